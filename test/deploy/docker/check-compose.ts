import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parse } from 'yaml';
import { REPO } from '../../server/gateway-process.ts';
import {
  check,
  close,
  docker,
  freePort,
  invokeWeather,
  listen,
  outputOf,
  run,
  seconds,
  until,
} from './docker-cli.ts';

/**
 * docker-compose.yml, run (called by run.sh): the gateway, Redis and the replay server, with the
 * stand-in images run.sh built. What is changed, and why, is all in `hostNetwork` below: this
 * engine has no bridge network (containers share the machine's), so services find each other on
 * 127.0.0.1 at free ports instead of by name; no image of the OpenTelemetry Collector or Jaeger
 * can be made here (neither is packaged by Debian or npm), so a loopback OTLP receiver stands in
 * for the Collector. Shown: the stack turns healthy, the weather tool answers, the gateway's
 * cache is the stack's Redis (its keys appear there, the second call is served from them), traces
 * reach the OTLP endpoint, and `down` stops every service with exit 0.
 */
const { values } = parseArgs({
  options: { gateway: { type: 'string' }, redis: { type: 'string' }, project: { type: 'string' } },
});
const COMPOSE = process.env.DOCKER_COMPOSE ?? 'docker-compose';

/* eslint-disable @typescript-eslint/no-explicit-any -- compose files are untyped YAML */
type Doc = any;

const ports = { gateway: await freePort(), redis: await freePort(), replay: await freePort() };
let traces = 0;
const otlp = await listen((req, res) => {
  if (req.url === '/v1/traces') traces++;
  req.resume().once('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
});

/** The compose file as this engine can run it: host network, loopback addresses, stand-in images. */
function hostNetwork(compose: Doc): Doc {
  const services = compose.services as Record<string, Doc>;
  delete services['otel-collector'];
  delete services.jaeger;
  for (const service of Object.values(services)) {
    service.network_mode = 'host';
    delete service.ports;
    delete service.build;
  }
  const { gateway, replay, redis } = services as Record<'gateway' | 'replay' | 'redis', Doc>;
  gateway.image = values.gateway;
  replay.image = values.gateway;
  redis.image = values.redis;
  delete gateway.depends_on['otel-collector'];
  const env = gateway.environment as Record<string, string>;
  Object.assign(env, {
    PORT: String(ports.gateway),
    HOST: '127.0.0.1',
    REDIS_URL: env.REDIS_URL!.replace('redis:6379', `127.0.0.1:${ports.redis}`),
    NWS_BASE_URL: env.NWS_BASE_URL!.replace('replay:9091', `127.0.0.1:${ports.replay}`),
    GEOCODER_BASE_URL: env.GEOCODER_BASE_URL!.replace('replay:9091', `127.0.0.1:${ports.replay}`),
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${otlp.port}`,
  });
  const replayCommand = replay.command as string[];
  replayCommand[replayCommand.indexOf('--port') + 1] = String(ports.replay);
  replayCommand[replayCommand.indexOf('--host') + 1] = '127.0.0.1';
  replay.healthcheck.test = (replay.healthcheck.test as string[]).map((a) =>
    a.replace('127.0.0.1:9091', `127.0.0.1:${ports.replay}`),
  );
  redis.command = [...(redis.command as string[]), '--port', String(ports.redis), '--bind', '127.0.0.1'];
  redis.healthcheck.test = [
    ...(redis.healthcheck.test as string[]).slice(0, 2),
    '-p',
    String(ports.redis),
    'ping',
  ];
  // compose v1 (Debian's docker-compose) does not know the top-level `name`: -p gives it.
  delete compose.name;
  return compose;
}

const dir = mkdtempSync(join(tmpdir(), 'sculptor-compose-'));
const file = join(dir, 'docker-compose.yml');
const composeArgs = ['-p', values.project!, '-f', file, '--project-directory', REPO];
const compose = (args: string[], timeoutMs?: number) => run(COMPOSE, [...composeArgs, ...args], timeoutMs);
let passed = false;
try {
  // JSON, which is YAML too: compose v1 reads YAML 1.1, where a bare `no` would be false.
  writeFileSync(
    file,
    JSON.stringify(hostNetwork(parse(readFileSync(join(REPO, 'docker-compose.yml'), 'utf8')) as Doc)),
  );
  const started = performance.now();
  await compose(['up', '-d', '--no-build'], 120_000);
  const gatewayUrl = `http://127.0.0.1:${ports.gateway}`;
  const container = await compose(['ps', '-q', 'gateway']);
  await until(
    'the compose gateway turns healthy',
    60_000,
    async () =>
      (await docker(['inspect', '-f', '{{.State.Health.Status}}', container])) === 'healthy'
        ? true
        : undefined,
    500,
  );
  const healthyMs = performance.now() - started;
  console.log(`compose: gateway, redis, replay up; gateway healthy ${seconds(healthyMs)} s after up`);

  const logs = await docker(['logs', container]);
  const serving = JSON.parse(logs.split('\n').find((l) => l.includes('"event":"serving"'))!) as {
    cache: string;
  };
  check(serving.cache === 'redis', `the gateway's cache is redis, got ${serving.cache}`);

  const redisCli = (...args: string[]) =>
    compose(['exec', '-T', 'redis', 'redis-cli', '-p', String(ports.redis), ...args]);
  const keysBefore = Number(await redisCli('dbsize'));
  const first = await invokeWeather(gatewayUrl, { city: 'New York' });
  check(
    first.status === 200 && typeof outputOf(first.body, 'temperature_f') === 'number',
    `weather: ${JSON.stringify(first.body)}`,
  );
  const keysAfter = Number(await redisCli('dbsize'));
  check(
    keysAfter > keysBefore,
    `the invocation stored its cached steps in the stack's Redis (${keysBefore} → ${keysAfter} keys)`,
  );
  const hitsBefore = await cacheHits(gatewayUrl);
  const second = await invokeWeather(gatewayUrl, { city: 'New York' });
  check(second.status === 200, `second call: ${second.status}`);
  const hits = (await cacheHits(gatewayUrl)) - hitsBefore;
  check(hits >= 2, `the second call's geocode and point steps came from Redis (${hits} hits)`);
  console.log(
    `compose: weather 200 twice; Redis holds ${keysAfter} keys; the second call had ${hits} cache hits`,
  );
  await until('a trace reaches the OTLP endpoint', 15_000, async () => (traces > 0 ? true : undefined), 200);
  console.log(`compose: ${traces} OTLP trace export(s) received`);

  const stopAt = performance.now();
  const ids = (await compose(['ps', '-q'])).split('\n').filter(Boolean);
  await compose(['stop', '-t', '10'], 60_000);
  const stopMs = performance.now() - stopAt;
  for (const id of ids) {
    const [name, code] = (await docker(['inspect', '-f', '{{.Name}} {{.State.ExitCode}}', id])).split(' ');
    // redis-server exits 0 on SIGTERM; the gateway and the replay server drain and exit 0.
    check(code === '0', `${name} exited ${code} on stop`);
  }
  console.log(`compose: ${ids.length} services stopped with exit 0 in ${seconds(stopMs)} s`);
  console.log(`FIGURES compose healthy_s=${seconds(healthyMs)} stop_s=${seconds(stopMs)}`);
  passed = true;
} finally {
  // `down` removes the containers, and run.sh's own log dump on failure with them: print the
  // services' state and logs first.
  if (!passed) await printComposeLogs();
  await compose(['down', '-t', '5', '--remove-orphans'], 60_000).catch((e: unknown) =>
    console.error(String(e)),
  );
  await close(otlp.server);
  rmSync(dir, { recursive: true, force: true });
}

/** On failure: every service's state and its last log lines, on stderr (each call bounded). */
async function printComposeLogs(): Promise<void> {
  for (const args of [
    ['ps', '-a'],
    ['logs', '--no-color', '--timestamps', '--tail', '80'],
  ]) {
    const output = await compose(args, 30_000).catch((e: unknown) => String(e));
    console.error(`--- ${COMPOSE} ${args.join(' ')} ---\n${output}`);
  }
}

/** sculptor_step_cache_total{outcome="hit"} summed over tools and steps. */
async function cacheHits(gatewayUrl: string): Promise<number> {
  const text = await (await fetch(`${gatewayUrl}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('sculptor_step_cache_total{') && line.includes('outcome="hit"'))
      sum += Number(line.split(' ').at(-1));
  }
  return sum;
}
