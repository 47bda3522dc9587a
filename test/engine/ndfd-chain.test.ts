import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createMemoryStore } from '../../src/cache/memory-store.ts';
import { StepCache } from '../../src/cache/step-cache.ts';
import { compileSculpts } from '../../src/compile/compile-sculpts.ts';
import type { CompiledTool } from '../../src/compile/compile-tool.ts';
import { createEngine, type Engine } from '../../src/engine/invoke-tool.ts';
import { type BackendClient, createBackendClient } from '../../src/http/backend-client.ts';
import { loadRecordings, type ReplayServer, startReplayServer } from '../../src/replay/index.ts';
import { replayEnv } from '../../src/testing/index.ts';
import { cacheTrail, lookup, lookupError } from './weather-harness.ts';

/**
 * The NDFD flagship (sculpts/ndfd/) through the engine, against its recordings, as the REST
 * weather tool is tested: the chain geocode (REST, JSON) → NDFDgenByDay (SOAP, XML), the numbers
 * checked against the recorded answer itself, the step cache over both kinds of step, and the
 * SOAP fault of a place outside the grids.
 */
const SCULPTS = 'sculpts/ndfd';
const RECORDINGS = [
  'sculpts/ndfd/recordings',
  'sculpts/weather/recordings/open-meteo-geocoding',
  'sculpts/weather/recordings/derived/geocoder_london.yaml',
];
const SOAP_PATH = '/xml/SOAP_server/ndfdXMLserver.php';
const SECRET = 'engine-test-secret-0123456789';

let replay: ReplayServer;
let client: BackendClient;
let tools: CompiledTool[];
const tool = (name: string) => tools.find((t) => t.signature.name === name)!;
const engine = (cache?: StepCache): Engine =>
  createEngine({
    sender: client,
    ...(cache ? { cache } : {}),
    cacheSecret: SECRET,
    allowPrivateEgress: true,
  });

beforeAll(async () => {
  replay = await startReplayServer(await loadRecordings(RECORDINGS));
  tools = await compileSculpts(SCULPTS, await replayEnv(SCULPTS, replay.url));
  client = createBackendClient();
});
afterAll(async () => {
  await replay?.close();
  await client?.close();
});

/** The DWML inside the recorded SOAP answer, read with regular expressions (not the code under test). */
function recordedForecast(): { high: number; low: number; summary: string } {
  const cassette = parse(readFileSync('sculpts/ndfd/recordings/ndfd_by_day_new_york.yaml', 'utf8')) as {
    interactions: Array<{ response: { body: { string: string } } }>;
  };
  const dwml = cassette.interactions[0]!.response.body.string.replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"');
  const value = (type: string) =>
    Number(new RegExp(`type="${type}"[^>]*>\\s*<name>[^<]*</name>\\s*<value>(\\d+)</value>`).exec(dwml)![1]);
  return {
    high: value('maximum'),
    low: value('minimum'),
    summary: /weather-summary="([^"]+)"/.exec(dwml)![1]!,
  };
}

describe('daily_forecast_by_city: a REST step, then a SOAP step', () => {
  it('answers the recorded forecast for New York', async () => {
    const { high, low, summary } = recordedForecast();
    expect([high, low, summary]).toEqual([22, 16, 'Sunny']);
    const since = replay.requests.length;
    const { outputs } = await lookup(engine(), tool('daily_forecast_by_city'), { city: 'New York' });
    expect(outputs).toEqual({ high_f: high, low_f: low, forecast: summary, place: 'New York, New York, US' });
    const [geocode, soap] = replay.requests.slice(since);
    expect(geocode!.method).toBe('GET');
    expect([soap!.method, soap!.path, soap!.matched]).toEqual([
      'POST',
      SOAP_PATH,
      'sculpts/ndfd/recordings/ndfd_by_day_new_york.yaml#0',
    ]);
    // The rounded coordinates of the geocoder's answer, in the rpc/encoded envelope.
    expect(soap!.body).toContain(
      '<latitude xsi:type="xsd:decimal">40.7143</latitude><longitude xsi:type="xsd:decimal">-74.006</longitude>',
    );
  });

  it('caches both steps: a second invocation calls no backend', async () => {
    const e = engine(new StepCache(createMemoryStore(), { secret: SECRET }));
    const first = await lookup(e, tool('daily_forecast_by_city'), { city: 'New York' });
    expect(cacheTrail(first.report)).toEqual(['geocode:miss:200', 'forecast:miss:200']);
    const since = replay.requests.length;
    const second = await lookup(e, tool('daily_forecast_by_city'), { city: 'New York' });
    expect(cacheTrail(second.report)).toEqual(['geocode:hit:200', 'forecast:hit:200']);
    expect(replay.requests.length).toBe(since);
    expect(second.outputs).toEqual(first.outputs);
  });

  it('the SOAP fault for a place outside the grids is the declared tool error, and is never cached', async () => {
    const e = engine(new StepCache(createMemoryStore(), { secret: SECRET }));
    const since = replay.requests.length;
    for (let i = 0; i < 2; i++) {
      const { error, report } = await lookupError(e, tool('daily_forecast_by_city'), { city: 'London' });
      expect(error.code).toBe('tool.error');
      expect(error.message).toContain('only covers the United States');
      expect(report.steps.map((s) => [s.id, s.outcome, s.status])).toEqual([
        ['geocode', 'ok', 200],
        ['forecast', 'tool_error', 500],
      ]);
    }
    expect(replay.requests.slice(since).filter((r) => r.path === SOAP_PATH)).toHaveLength(2);
  });
});

describe('daily_forecast_at_coordinates: one SOAP operation as a tool', () => {
  it('answers the same forecast from the coordinates', async () => {
    const { outputs } = await lookup(engine(), tool('daily_forecast_at_coordinates'), {
      latitude: '40.7143',
      longitude: '-74.006',
    });
    expect(outputs).toEqual({ high_f: 22, low_f: 16, forecast: 'Sunny' });
  });

  it('refuses a latitude the message schema says is not a decimal, before any call', async () => {
    const since = replay.requests.length;
    const { error } = await lookupError(engine(), tool('daily_forecast_at_coordinates'), {
      latitude: 'north',
      longitude: '-74',
    });
    expect(error.code).toBe('input.invalid');
    expect(replay.requests.length).toBe(since);
  });
});
