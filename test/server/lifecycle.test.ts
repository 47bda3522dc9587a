import { connect, createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { toolIdFor } from '../../src/compile/tool-signature.ts';
import { type ItemsBackend, startItemsBackend } from '../telemetry/support/items-backend.ts';
import { startOtlpReceiver } from '../telemetry/support/otlp-receiver.ts';
import { startGatewayProcess } from './gateway-process.ts';
import { reportFigures } from '../support/report-figures.ts';

const SCULPTS = 'test/telemetry/fixtures/sculpts';
const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function refusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function gatewayFor(backend: ItemsBackend, env: Record<string, string> = {}, imports?: string[]) {
  const gateway = await startGatewayProcess({
    sculpts: SCULPTS,
    env: {
      ITEMS_URL: backend.url,
      ITEMS_TOKEN: 'lifecycle-token-0001',
      ITEMS_QUERY_KEY: 'lifecycle-qkey',
      ...env,
    },
    ...(imports ? { imports } : {}),
  });
  cleanup.push(() => gateway.kill());
  return gateway;
}

async function backendFor(): Promise<ItemsBackend> {
  const backend = await startItemsBackend();
  cleanup.push(() => backend.close());
  return backend;
}

function invoke(url: string, name: string, params: Record<string, unknown>) {
  return fetch(`${url}/tools/${toolIdFor(name)}:invoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      name,
      input_parameters: Object.entries(params).map(([n, value]) => ({ name: n, value })),
    }),
  }).then(async (res) => ({ status: res.status, body: (await res.json()) as Record<string, unknown> }));
}

async function until(what: string, check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * A connection whose request head is half sent: the server counts it as busy,
 * so closing idle connections leaves it open; the rest is sent later.
 */
function halfSentRequest(url: string, path: string) {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  let data = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (data += chunk));
  const ended = new Promise<string>((resolve) => socket.on('close', () => resolve(data)));
  const ready = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return {
    ready: ready.then(() => void socket.write(`GET ${path} HTTP/1.1\r\nHost: gateway\r\n`)),
    finish: () => {
      socket.write('Connection: close\r\n\r\n');
      return ended;
    },
  };
}

describe('health', () => {
  it('/livez and /readyz answer 200 while Redis refuses connections, and invocations still work', async () => {
    const backend = await backendFor();
    const gateway = await gatewayFor(backend, { REDIS_URL: `redis://127.0.0.1:${await refusedPort()}` });
    const live = await fetch(`${gateway.url}/livez`);
    expect([live.status, await live.json()]).toEqual([200, { status: 'ok' }]);
    const ready = await fetch(`${gateway.url}/readyz`);
    expect([ready.status, await ready.json()]).toEqual([200, { status: 'ready', tools: 4 }]);
    expect(gateway.logs().find((l) => l.event === 'serving')).toMatchObject({ cache: 'redis', tools: 4 });

    const result = await invoke(gateway.url, 'lookup_item', { name: 'redis-down' });
    expect(result.status).toBe(200);
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(
      Number(/sculptor_cache_store_operations_total\{result="unavailable"\} (\d+)/.exec(metrics)?.[1]),
    ).toBeGreaterThan(0);
    expect((await fetch(`${gateway.url}/readyz`)).status).toBe(200);
  });
});

describe('SIGTERM', () => {
  it('drains: readiness 503 at once, no new connections, 10 in-flight invocations finish 200, spans flushed, exit 0', async () => {
    const backend = await backendFor();
    const receiver = await startOtlpReceiver();
    cleanup.push(() => receiver.close());
    const gateway = await gatewayFor(backend, {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      // Nothing would be exported before exit but for the shutdown flush.
      OTEL_BSP_SCHEDULE_DELAY: '60000',
    });
    const probe = halfSentRequest(gateway.url, '/readyz');
    await probe.ready;
    const calls = Array.from({ length: 10 }, () => invoke(gateway.url, 'slow_call', { ms: 2000 }));
    await until('10 calls at the backend', () => backend.pending() === 10);

    const sigterm = performance.now();
    gateway.child.kill('SIGTERM');
    await until('the draining log line', () => gateway.logs().some((l) => l.event === 'draining'));
    expect(await probe.finish()).toMatch(/^HTTP\/1\.1 503 [^]*"status":"draining"/);
    await expect(fetch(`${gateway.url}/livez`)).rejects.toThrow();

    const results = await Promise.all(calls);
    const answeredAfter = performance.now() - sigterm;
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    const { code } = await gateway.exited;
    const exitedAfter = performance.now() - sigterm;
    expect(code).toBe(0);
    // Within the drain time (default SCULPTOR_DRAIN_MS 8000), soon after the slow calls end.
    expect(exitedAfter).toBeLessThan(8000);
    expect(exitedAfter - answeredAfter).toBeLessThan(1500);
    expect(gateway.logs().find((l) => l.event === 'drained')).toMatchObject({ aborted: 0 });
    expect(gateway.logs().at(-1)).toMatchObject({ event: 'stopped' });
    expect(receiver.spans.filter((s) => s.name === 'execute_tool slow_call')).toHaveLength(10);
    reportFigures(
      `drain: calls answered ${Math.round(answeredAfter)} ms and exit ${Math.round(exitedAfter)} ms after SIGTERM`,
    );
  }, 30_000);

  it('cuts a drain that overruns SCULPTOR_DRAIN_MS: in-flight get 503 gateway.draining, exit 0 before 10 s', async () => {
    const backend = await backendFor();
    const gateway = await gatewayFor(backend);
    const calls = Array.from({ length: 10 }, () => invoke(gateway.url, 'slow_call', { ms: 30_000 }));
    await until('10 calls at the backend', () => backend.pending() === 10);

    const sigterm = performance.now();
    gateway.child.kill('SIGTERM');
    const results = await Promise.all(calls);
    const answeredAfter = performance.now() - sigterm;
    for (const r of results) expect([r.status, r.body.code]).toEqual([503, 'gateway.draining']);
    const { code } = await gateway.exited;
    const exitedAfter = performance.now() - sigterm;
    expect(code).toBe(0);
    // Default SCULPTOR_DRAIN_MS is 8000: the calls end at the deadline, the process soon after.
    expect(answeredAfter).toBeGreaterThan(7900);
    expect(exitedAfter).toBeLessThan(10_000);
    expect(gateway.logs().find((l) => l.event === 'drained')).toMatchObject({ aborted: 10 });
    const lines = gateway.logs().filter((l) => l.event === 'invocation');
    expect(lines.map((l) => l.outcome)).toEqual(Array(10).fill('gateway.draining'));
    reportFigures(
      `overrun drain: calls answered ${Math.round(answeredAfter)} ms and exit ${Math.round(exitedAfter)} ms after SIGTERM`,
    );
  }, 30_000);
});

describe('a collector that refuses exports', () => {
  it('costs the gateway nothing but a logged SDK error and a bounded flush at exit', async () => {
    const backend = await backendFor();
    const gateway = await gatewayFor(backend, {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${await refusedPort()}`,
      OTEL_EXPORTER_OTLP_TIMEOUT: '500',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    expect(gateway.logs().find((l) => l.event === 'serving')).toMatchObject({ tracing: true });
    expect((await invoke(gateway.url, 'lookup_item', { name: 'collector-down' })).status).toBe(200);
    await until('the SDK error line', () => gateway.logs().some((l) => l.event === 'otel_diag'), 8000);
    const diag = gateway.logs().find((l) => l.event === 'otel_diag')!;
    expect(diag).toMatchObject({
      level: 'error',
      msg: expect.stringMatching(/^opentelemetry: .*ECONNREFUSED/),
    });
    // Still serving; then the exit waits at most the flush bound (1 s) for the unreachable collector.
    expect((await invoke(gateway.url, 'lookup_item', { name: 'collector-down-2' })).status).toBe(200);
    const sigterm = performance.now();
    gateway.child.kill('SIGTERM');
    expect((await gateway.exited).code).toBe(0);
    expect(performance.now() - sigterm).toBeLessThan(2500);
  }, 20_000);
});

describe('stop signals', () => {
  it('are listened for before the "serving" line is written: a SIGTERM sent on reading it drains', async () => {
    const backend = await backendFor();
    const gateway = await gatewayFor(backend, {}, ['./test/server/fixtures/report-signal-listeners.ts']);
    // stderr is its own pipe: its line may arrive just after the serving line.
    await expect.poll(() => gateway.stderr.join(''), { timeout: 5000 }).toMatch(/signal-listeners/);
    expect(gateway.stderr.join('')).toMatch(/signal-listeners SIGTERM=[1-9]\d* SIGINT=[1-9]/);
    gateway.child.kill('SIGTERM');
    expect((await gateway.exited).code).toBe(0);
    expect(gateway.logs().map((l) => l.event)).toEqual(expect.arrayContaining(['draining', 'drained']));
  });
});

describe('crashes', () => {
  it.each(['exception', 'rejection'])(
    'an uncaught %s is logged, redacted, and the process exits 70',
    async (kind) => {
      const backend = await backendFor();
      const gateway = await gatewayFor(
        backend,
        {
          CRASH_KIND: kind,
          CRASH_MESSAGE: 'backend said: invalid key lifecycle-token-0001 at https://u:pw@h',
        },
        ['./test/server/fixtures/crash-on-signal.ts'],
      );
      gateway.child.kill('SIGUSR2');
      const { code } = await gateway.exited;
      expect(code).toBe(70);
      const crash = gateway.logs().find((l) => l.event === 'crash') as {
        level: string;
        err: { message: string };
      };
      expect(crash.level).toBe('fatal');
      expect(crash.err.message).toBe('backend said: invalid key [REDACTED] at https://REDACTED:REDACTED@h');
      expect(gateway.stdout.join('\n')).not.toContain('lifecycle-token-0001');
    },
  );
});

describe('settings are checked at start', () => {
  it.each([
    [{ SCULPTOR_DRAIN_MS: 'soon' }, true, /SCULPTOR_DRAIN_MS must be a whole number/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, true, /OTEL_EXPORTER_OTLP_ENDPOINT must be an http/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, false, /OTEL_EXPORTER_OTLP_ENDPOINT must be an http/],
  ])('%j (register loaded: %s) → exit 1 naming the variable', async (env, register, message) => {
    await expect(startGatewayProcess({ sculpts: SCULPTS, env, register })).rejects.toThrow(message);
  });
});
