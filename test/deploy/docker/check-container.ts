import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { parseArgs } from 'node:util';
import {
  check,
  close,
  docker,
  freePort,
  invokeWeather,
  listen,
  outputOf,
  seconds,
  until,
} from './docker-cli.ts';

/**
 * The image, run as production runs it (called by run.sh with the image just built):
 * --network host, read-only root filesystem, every capability dropped, no new privileges.
 *
 * - a replay server of the recorded weather exchanges runs from the same image; a delaying
 *   proxy (here, on loopback) stands between the gateway and it, so a request can be held in flight;
 * - start-up: `docker run` → /readyz 200, then the image's own HEALTHCHECK → healthy;
 * - the container's user is node (uid 1000), no capability is effective, / cannot be written;
 * - the weather tool answers "New York" through the replay server;
 * - SIGTERM (docker stop, through tini) while an invocation waits on its backend: that invocation
 *   still answers 200, and the container exits 0 within the 10 s grace period.
 */
const { values } = parseArgs({
  options: { image: { type: 'string' }, name: { type: 'string' } },
});
const image = values.image!;
const prefix = values.name!;
const GRACE_S = 10;
const DELAY_MS = 1500;

const gatewayPort = await freePort();
const replayPort = await freePort();
const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
const hardening = [
  '--network',
  'host',
  '--read-only',
  '--cap-drop',
  'ALL',
  '--security-opt',
  'no-new-privileges',
];

// Held requests: the proxy counts what it has received and not yet answered.
let slow = false;
let pending = 0;
const proxy = await listen((req, res) => {
  pending++;
  const forward = () => {
    const upstream = request(
      { host: '127.0.0.1', port: replayPort, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res).once('finish', () => pending--);
      },
    );
    upstream.once('error', () => {
      pending--;
      res.writeHead(502).end();
    });
    req.pipe(upstream);
  };
  if (slow) setTimeout(forward, DELAY_MS);
  else forward();
});
const backendUrl = `http://127.0.0.1:${proxy.port}`;

try {
  await docker([
    'run',
    '-d',
    '--name',
    `${prefix}-replay`,
    ...hardening,
    image,
    'node',
    'src/cli/main.ts',
    'replay',
    '/app/sculpts/weather/recordings',
    '--port',
    String(replayPort),
  ]);
  const started = performance.now();
  await docker([
    'run',
    '-d',
    '--name',
    `${prefix}-gateway`,
    ...hardening,
    '--stop-timeout',
    String(GRACE_S),
    '-e',
    `PORT=${gatewayPort}`,
    '-e',
    'HOST=127.0.0.1',
    '-e',
    `SCULPTOR_SECRET=${randomBytes(24).toString('hex')}`,
    // The backends are on loopback, which the gateway refuses unless told.
    '-e',
    'SCULPTOR_ALLOW_PRIVATE_EGRESS=true',
    '-e',
    `NWS_BASE_URL=${backendUrl}`,
    '-e',
    `GEOCODER_BASE_URL=${backendUrl}`,
    image,
  ]);
  await until(
    '/readyz answers 200',
    30_000,
    async () =>
      (await fetch(`${gatewayUrl}/readyz`, { signal: AbortSignal.timeout(1000) })).ok ? true : undefined,
    50,
  );
  const readyMs = performance.now() - started;
  // The HEALTHCHECK's first probe runs one interval (10 s) after the start.
  await until(
    'the HEALTHCHECK reports healthy',
    45_000,
    async () =>
      (await docker(['inspect', '-f', '{{.State.Health.Status}}', `${prefix}-gateway`])) === 'healthy'
        ? true
        : undefined,
    500,
  );
  const healthyMs = performance.now() - started;
  console.log(
    `container: /readyz 200 ${seconds(readyMs)} s after docker run; HEALTHCHECK healthy after ${seconds(healthyMs)} s`,
  );

  const config = JSON.parse(await docker(['inspect', `${prefix}-gateway`]))[0];
  check(config.Config.User === 'node', `image user is node, got ${config.Config.User}`);
  check(config.HostConfig.ReadonlyRootfs === true, 'root filesystem read-only');
  check(JSON.stringify(config.HostConfig.CapDrop) === '["ALL"]', 'every capability dropped');
  const inside = JSON.parse(
    await docker([
      'exec',
      `${prefix}-gateway`,
      'node',
      '-e',
      `const fs = require('fs'); let write = 'written';
       try { fs.writeFileSync('/app/probe', 'x'); } catch (e) { write = e.code; }
       const caps = fs.readFileSync('/proc/1/status', 'utf8').match(/^CapEff:\\s*(\\w+)/m)[1];
       const pid1 = fs.readFileSync('/proc/1/cmdline', 'utf8').split('\\0')[0];
       console.log(JSON.stringify({ uid: process.getuid(), gid: process.getgid(), write, caps, pid1 }))`,
    ]),
  ) as { uid: number; gid: number; write: string; caps: string; pid1: string };
  check(inside.uid === 1000 && inside.gid === 1000, `runs as 1000:1000, got ${inside.uid}:${inside.gid}`);
  check(inside.write === 'EROFS', `writing /app fails with EROFS, got ${inside.write}`);
  check(/^0+$/.test(inside.caps), `PID 1 has no effective capability, got ${inside.caps}`);
  check(inside.pid1 === '/usr/bin/tini', `PID 1 is tini, got ${inside.pid1}`);
  console.log(
    `container: uid ${inside.uid}, read-only / (${inside.write}), CapEff ${inside.caps}, PID 1 ${inside.pid1}`,
  );

  const first = await invokeWeather(gatewayUrl, { city: 'New York' });
  check(first.status === 200, `weather for New York: 200, got ${first.status} ${JSON.stringify(first.body)}`);
  const temperature = outputOf(first.body, 'temperature_f');
  check(typeof temperature === 'number', `temperature_f is a number: ${JSON.stringify(first.body)}`);
  console.log(`container: ${JSON.stringify(first.body.output_parameters)}`);

  // Drain: an invocation held at its (uncached) forecast step when SIGTERM arrives.
  slow = true;
  const held = invokeWeather(gatewayUrl, { city: 'New York', day: 'TOMORROW' });
  await until('the invocation reaches its backend', 10_000, async () => (pending > 0 ? true : undefined), 20);
  const stopAt = performance.now();
  const stopped = docker(['stop', '-t', String(GRACE_S), `${prefix}-gateway`], 30_000);
  const answer = await held;
  const answeredMs = performance.now() - stopAt;
  await stopped;
  const stopMs = performance.now() - stopAt;
  const state = JSON.parse(await docker(['inspect', '-f', '{{json .State}}', `${prefix}-gateway`])) as {
    ExitCode: number;
    OOMKilled: boolean;
  };
  check(
    answer.status === 200,
    `the in-flight invocation answers 200 during the drain, got ${answer.status} ${JSON.stringify(answer.body)}`,
  );
  check(state.ExitCode === 0, `exit code 0 after SIGTERM, got ${state.ExitCode}`);
  check(stopMs < GRACE_S * 1000, `stopped within the ${GRACE_S} s grace period, took ${seconds(stopMs)} s`);
  const logs = await docker(['logs', `${prefix}-gateway`]);
  check(logs.includes('"event":"stopped"'), 'the gateway logged its stop');
  console.log(
    `container: SIGTERM with 1 invocation in flight (backend delayed ${DELAY_MS} ms): answered 200 after ${seconds(answeredMs)} s, exit 0 after ${seconds(stopMs)} s (grace ${GRACE_S} s)`,
  );
  console.log(
    `FIGURES container ready_s=${seconds(readyMs)} healthy_s=${seconds(healthyMs)} stop_s=${seconds(stopMs)}`,
  );
} finally {
  await close(proxy.server);
}
