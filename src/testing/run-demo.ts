#!/usr/bin/env node
/**
 * The offline demo: the flagship weather tool served over A2T, its backends
 * (Open-Meteo geocoding, the National Weather Service) replayed from the
 * recordings in sculpts/weather/recordings. Nothing leaves this machine.
 *
 *   node src/testing/run-demo.ts            serve until Ctrl-C
 *   node src/testing/run-demo.ts --check    start, invoke once over HTTP, print, stop
 *
 * Environment: PORT (8080), HOST (127.0.0.1), REPLAY_PORT (9091). The
 * gateway reads NWS_BASE_URL and GEOCODER_BASE_URL, which this script points
 * at the replay server, and SCULPTOR_ALLOW_PRIVATE_EGRESS=true, since the
 * replay server is on loopback (the production default refuses loopback).
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { toolIdFor } from '../compile/tool-signature.ts';
import { readSettings } from '../config/settings.ts';
import { loadRecordings, startReplayServer } from '../replay/index.ts';
import { startGateway } from '../server/start-gateway.ts';
import { stopSignal } from '../server/stop-signal.ts';
import { replayEnv } from './point-at-replay.ts';

const WEATHER = path.resolve(import.meta.dirname, '../../sculpts/weather');
const TOOL = 'lookup_weather_by_city';

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { check: { type: 'boolean', default: false } } });
  const replayPort = Number(process.env.REPLAY_PORT ?? 9091);
  const replay = await startReplayServer(await loadRecordings([path.join(WEATHER, 'recordings')]), {
    host: '127.0.0.1',
    port: replayPort,
  });
  const backends = await replayEnv(WEATHER, replay.url);
  const env = {
    ...process.env,
    HOST: process.env.HOST || '127.0.0.1',
    PORT: process.env.PORT || '8080',
    ...backends,
    SCULPTOR_ALLOW_PRIVATE_EGRESS: 'true',
  };
  let gateway: Awaited<ReturnType<typeof startGateway>>;
  try {
    gateway = await startGateway({ settings: readSettings(env, { sculpts: WEATHER }), env });
  } catch (err) {
    await replay.close();
    throw err;
  }

  const invokeUrl = `${gateway.url}/tools/${toolIdFor(TOOL)}:invoke`;
  const curl = (inputs: string) =>
    `curl -s -X POST ${invokeUrl} -H 'content-type: application/json' \\\n` +
    `    -d '{"name":"${TOOL}","input_parameters":[${inputs}]}'`;
  console.log(`sculptor demo (offline): ${TOOL}, toolId ${toolIdFor(TOOL)}
  replay server  ${replay.url}  (${Object.entries(backends)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ')})
  gateway        ${gateway.url}

  The recordings date from 20 Jan 2026: New York, London (outside NWS coverage) and a place the
  geocoder does not know are recorded; any other city gets the replay server's 404.

  ${curl('{"name":"city","value":"New York"}')}
  ${curl('{"name":"city","value":"New York"},{"name":"day","value":"TOMORROW"}')}
  ${curl('{"name":"city","value":"London"}')}
  curl -s ${gateway.url}/tools/${toolIdFor(TOOL)}
`);

  let code = 0;
  if (values.check) {
    const res = await fetch(invokeUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: TOOL, input_parameters: [{ name: 'city', value: 'New York' }] }),
    });
    const text = await res.text();
    console.log(`POST ${invokeUrl} → ${res.status}\n${text}`);
    code = res.status === 200 ? 0 : 1;
  } else {
    const stopped = stopSignal();
    console.log('Ctrl-C to stop.');
    await stopped;
  }
  await gateway.close();
  await replay.close();
  return code;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  },
);
