import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRedisStore, type RedisCacheStore } from '../../src/cache/redis-store.ts';
import { toolIdFor } from '../../src/compile/tool-signature.ts';
import type { Engine } from '../../src/engine/invoke-tool.ts';
import { refusedPort, startBlackhole, startFakeRedis } from '../cache/fake-redis.ts';
import { invocationBody } from '../../src/testing/index.ts';
import { lookup, startWeather, type WeatherHarness } from '../engine/weather-harness.ts';
import { invoke, startTestGateway } from '../support/start-test-gateway.ts';
import { percentile, SECRET, stepCache, uniquePrefix } from './redis-harness.ts';
import { reportFigures } from '../support/report-figures.ts';

// A cache outage only costs the loads the cache would have saved (RELIABILITY E7, F2, F3):
// every invocation still succeeds, within the backend's own latency plus a small budget.
// Stores use the gateway's defaults (50 ms GET budget, 100 ms commandTimeout, breaker 5/10 s).

const BUDGET_MS = 150;
const RUNS = 8;
let w: WeatherHarness;
let plain: Engine;
/** Invocations without a cache, run alternately with the ones measured: the backend latency now. */
let baseline: number[] = [];
const cleanups: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  w = await startWeather();
  plain = w.engine();
  await timedRuns(plain, 3); // warm up connections and JIT
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  baseline = [];
});
afterAll(async () => {
  await w?.close();
});

async function timedRuns(engine: Engine, n: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    // Machines running other work make latency noisy: measure the no-cache baseline in step.
    if (engine !== plain) baseline.push(...(await timedRuns(plain, 1)));
    const started = performance.now();
    const { outputs } = await lookup(engine, w.v2, { city: 'New York' });
    times.push(performance.now() - started);
    expect(outputs).toEqual({ temperature_f: 22, forecast: 'Sunny', place: 'New York, New York, US' });
  }
  return times;
}

function report(mode: string, times: number[]): void {
  const p50 = percentile(times, 50).toFixed(1);
  const max = Math.max(...times);
  const over = (max - Math.max(...baseline)).toFixed(1);
  const baseMax = Math.max(...baseline).toFixed(1);
  const base = `no cache p50 ${percentile(baseline, 50).toFixed(1)} ms, max ${baseMax} ms`;
  reportFigures(
    `[cache fault] ${mode}: p50 ${p50} ms, max ${max.toFixed(1)} ms (${base}; max added ${over} ms)`,
  );
}

function engineOn(url: string): { engine: Engine; store: RedisCacheStore } {
  const store = createRedisStore(url, { keyPrefix: uniquePrefix('faults') });
  cleanups.push(() => store.close());
  return { engine: w.engine(stepCache(store), SECRET), store };
}

/**
 * Runs one fault scenario (`scenario` sets up its own Redis fake, store and breaker and
 * returns the invocation times) and asserts every invocation stayed within the no-cache
 * latency measured alongside plus BUDGET_MS. A machine busy with other work can stall any
 * one request; so a scenario over the bound is set up and measured once more, from scratch.
 * A delay Redis causes comes back on the second attempt and still fails the test.
 */
async function withinBudget(label: string, scenario: () => Promise<number[]>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    baseline = [];
    const times = await scenario();
    report(label, times);
    const bound = Math.max(...baseline) + BUDGET_MS;
    if (attempt === 2 || times.every((t) => t <= bound)) {
      expect(Math.max(...times)).toBeLessThanOrEqual(bound);
      return;
    }
    reportFigures(`[cache fault] ${label}: over ${bound.toFixed(1)} ms once; measuring again from scratch`);
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  }
}

describe('invocations succeed, bounded, whatever Redis does', () => {
  it('(a) Redis refuses connections', async () => {
    await withinBudget('refused', async () => {
      const { engine, store } = engineOn(`redis://127.0.0.1:${await refusedPort()}`);
      const times = await timedRuns(engine, RUNS);
      expect(store.isReady()).toBe(false);
      expect(store.stats().unavailable).toBeGreaterThan(0);
      return times;
    });
  });

  it('(b) Redis accepts TCP and never answers', async () => {
    await withinBudget('blackhole', async () => {
      const hole = await startBlackhole();
      cleanups.push(() => hole.close());
      const { engine, store } = engineOn(hole.url);
      const times = await timedRuns(engine, RUNS);
      expect(hole.connections()).toBeGreaterThan(0);
      expect(store.isReady()).toBe(false);
      return times;
    });
  });

  it('(c) Redis is ready, then stalls on every command', async () => {
    await withinBudget('stalled after ready', async () => {
      const fake = await startFakeRedis('stall');
      cleanups.push(() => fake.close());
      const { engine, store } = engineOn(fake.url);
      expect(await store.waitUntilReady(2000)).toBe(true);
      const times = await timedRuns(engine, RUNS);
      // The GET budget cut the first reads; then the breaker skipped Redis.
      expect(store.stats().timeouts).toBeGreaterThan(0);
      expect(store.stats().breakerOpens).toBeGreaterThanOrEqual(1);
      return times;
    });
  });

  it('(d) Redis goes away during a run, and the cache had been working', async () => {
    await withinBudget('stopped mid-run', async () => {
      const fake = await startFakeRedis('memory');
      cleanups.push(() => fake.close());
      const { engine, store } = engineOn(fake.url);
      expect(await store.waitUntilReady(2000)).toBe(true);
      const before = await timedRuns(engine, 4);
      // Fire-and-forget SETs land within a few ms on loopback; then the reads hit.
      await new Promise((r) => setTimeout(r, 50));
      const hit = await lookup(engine, w.v2, { city: 'New York' });
      expect(hit.report.steps.map((s) => s.cache)).toEqual(['hit', 'hit', 'off']);
      await fake.stop();
      const after = await timedRuns(engine, RUNS);
      const last = await lookup(engine, w.v2, { city: 'New York' });
      expect(last.report.steps.map((s) => s.cache)).toEqual(['miss', 'miss', 'off']);
      return [...before, ...after];
    });
  });
});

describe('the gateway itself', () => {
  it('configured with a Redis that refuses, answers from the backends within the budget', async () => {
    await withinBudget('gateway over HTTP, refused', async () => {
      const gateway = await startTestGateway('sculpts/weather', w.env, {
        redisUrl: `redis://127.0.0.1:${await refusedPort()}`,
        secret: SECRET,
      });
      cleanups.push(() => gateway.close());
      expect(gateway.cache.kind).toBe('redis');
      const path = `/tools/${toolIdFor('lookup_weather_by_city')}:invoke`;
      const body = invocationBody('lookup_weather_by_city', { city: 'New York' });
      await invoke(gateway.url, path, body); // warm up
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        baseline.push(...(await timedRuns(plain, 1)));
        const started = performance.now();
        const res = await invoke(gateway.url, path, body);
        times.push(performance.now() - started);
        expect(res.status).toBe(200);
      }
      expect(gateway.reports.at(-1)!.steps.map((s) => s.cache)).toEqual(['miss', 'miss', 'off']);
      return times;
    });
  });
});
