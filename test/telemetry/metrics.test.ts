import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisCacheStore } from '../../src/cache/redis-store.ts';
import { toolIdFor } from '../../src/compile/tool-signature.ts';
import { invoke, startTestGateway } from '../support/start-test-gateway.ts';
import { type ItemsBackend, startItemsBackend } from './support/items-backend.ts';

let backend: ItemsBackend;
let gateway: Awaited<ReturnType<typeof startTestGateway>>;

beforeAll(async () => {
  backend = await startItemsBackend({ errorBodyCanary: 'x' });
  gateway = await startTestGateway(
    'test/telemetry/fixtures/sculpts',
    { ITEMS_URL: backend.url, ITEMS_TOKEN: 'metrics-token', ITEMS_QUERY_KEY: 'metrics-key' },
    { redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' },
  );
  expect(await (gateway.cache as RedisCacheStore).waitUntilReady(2000)).toBe(true);
});
afterAll(async () => {
  await gateway?.close();
  await backend?.close();
});

const call = (name: string, params: Record<string, unknown>) =>
  invoke(gateway.url, `/tools/${toolIdFor(name)}:invoke`, {
    name,
    input_parameters: Object.entries(params).map(([n, value]) => ({ name: n, value })),
  });

async function scrape(): Promise<string> {
  const res = await fetch(`${gateway.url}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
}

/** The value of one sample, 0 when absent. Labels must be given in full, in any order. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const found = Object.fromEntries(
      [...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]),
    );
    const keys = Object.keys(labels);
    if (keys.length === Object.keys(found).length && keys.every((k) => found[k] === labels[k]))
      return Number(m[3]);
  }
  return 0;
}

describe('/metrics (Prometheus text, prom-client)', () => {
  it('exposes every gateway metric and the process metrics', async () => {
    const text = await scrape();
    for (const name of [
      'sculptor_invocations_total',
      'sculptor_invocation_duration_seconds',
      'sculptor_step_duration_seconds',
      'sculptor_step_cache_total',
      'sculptor_backend_calls_total',
      'sculptor_invocations_in_flight',
      'sculptor_cache_store_operations_total',
      'sculptor_cache_integrity_violations_total',
      'sculptor_cache_refused_total',
      'process_cpu_user_seconds_total',
      'nodejs_eventloop_lag_seconds',
    ]) {
      expect(text).toContain(`# HELP ${name} `);
    }
    for (const reason of ['expired', 'previous_format', 'secret']) {
      expect(text).toMatch(new RegExp(`^sculptor_cache_refused_total\\{reason="${reason}"\\} \\d+$`, 'm'));
    }
  });

  it('counts invocations by tool, version and outcome, steps by cache outcome, backend calls by status', async () => {
    const name = `metrics-${randomBytes(4).toString('hex')}`;
    const tool = { tool: 'lookup_item', version: '1' };
    const before = await scrape();

    expect((await call('lookup_item', { name })).status).toBe(200);
    const first = await scrape();
    expect(sample(first, 'sculptor_invocations_total', { ...tool, outcome: 'ok' })).toBe(
      sample(before, 'sculptor_invocations_total', { ...tool, outcome: 'ok' }) + 1,
    );
    expect(sample(first, 'sculptor_invocation_duration_seconds_count', { ...tool, outcome: 'ok' })).toBe(
      sample(before, 'sculptor_invocation_duration_seconds_count', { ...tool, outcome: 'ok' }) + 1,
    );
    for (const step of ['find', 'detail']) {
      const labels = { tool: 'lookup_item', step, outcome: 'miss' };
      expect(sample(first, 'sculptor_step_cache_total', labels)).toBe(
        sample(before, 'sculptor_step_cache_total', labels) + 1,
      );
      const timing = { tool: 'lookup_item', step, backend: 'items', cache: 'miss' };
      expect(sample(first, 'sculptor_step_duration_seconds_count', timing)).toBe(
        sample(before, 'sculptor_step_duration_seconds_count', timing) + 1,
      );
    }
    const ok = { backend: 'items', status: '200' };
    expect(sample(first, 'sculptor_backend_calls_total', ok)).toBe(
      sample(before, 'sculptor_backend_calls_total', ok) + 2,
    );

    // Same name again: both steps from the cache, no backend call.
    expect((await call('lookup_item', { name })).status).toBe(200);
    const second = await scrape();
    for (const step of ['find', 'detail']) {
      const labels = { tool: 'lookup_item', step, outcome: 'hit' };
      expect(sample(second, 'sculptor_step_cache_total', labels)).toBe(
        sample(first, 'sculptor_step_cache_total', labels) + 1,
      );
    }
    expect(sample(second, 'sculptor_backend_calls_total', ok)).toBe(
      sample(first, 'sculptor_backend_calls_total', ok),
    );
    expect(
      sample(second, 'sculptor_cache_store_operations_total', { result: 'hits' }),
    ).toBeGreaterThanOrEqual(sample(first, 'sculptor_cache_store_operations_total', { result: 'hits' }) + 2);
    expect(
      sample(second, 'sculptor_cache_store_operations_total', { result: 'sets' }),
    ).toBeGreaterThanOrEqual(2);
  });

  it('counts failures by error code and backend answers by status', async () => {
    const before = await scrape();
    expect((await call('fail_call', { note: 'n' })).status).toBe(502);
    const after = await scrape();
    const failed = { tool: 'fail_call', version: '1', outcome: 'upstream.error' };
    expect(sample(after, 'sculptor_invocations_total', failed)).toBe(
      sample(before, 'sculptor_invocations_total', failed) + 1,
    );
    const status = { backend: 'items', status: '500' };
    expect(sample(after, 'sculptor_backend_calls_total', status)).toBe(
      sample(before, 'sculptor_backend_calls_total', status) + 1,
    );
  });

  it('shows invocations in flight while they run', async () => {
    expect(sample(await scrape(), 'sculptor_invocations_in_flight')).toBe(0);
    const running = call('slow_call', { ms: 800 });
    let seen = 0;
    for (let i = 0; i < 30 && seen === 0; i++) {
      seen = sample(await scrape(), 'sculptor_invocations_in_flight');
      if (seen === 0) await new Promise((r) => setTimeout(r, 20));
    }
    expect(seen).toBe(1);
    expect((await running).status).toBe(200);
    expect(sample(await scrape(), 'sculptor_invocations_in_flight')).toBe(0);
  });
});
