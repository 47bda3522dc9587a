import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RedisCacheStore } from '../../src/cache/redis-store.ts';
import { NEGATIVE_TTL_MS } from '../../src/engine/run-step.ts';
import {
  cacheTrail,
  lookup,
  lookupError,
  NYC_CALLS,
  startWeather,
  type WeatherHarness,
} from '../engine/weather-harness.ts';
import { inspector, readyStore, SECRET, stepCache, storedValue, uniquePrefix } from './redis-harness.ts';
import { reportFigures } from '../support/report-figures.ts';

// The weather chain against the real Redis, each replica an engine with its own Redis
// connection and its own StepCache, composed as start-gateway.ts composes them.

const DAY = 86_400_000;
let w: WeatherHarness;
const redis = inspector();
const stores: RedisCacheStore[] = [];
const prefixes: string[] = [];

async function replica(prefix: string) {
  const store = await readyStore(prefix);
  stores.push(store);
  return w.engine(stepCache(store), SECRET);
}
function prefix(label: string): string {
  const p = uniquePrefix(label);
  prefixes.push(p);
  return p;
}

beforeAll(async () => {
  w = await startWeather();
});
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
  for (const p of prefixes.splice(0)) await redis.removeAll(p);
});
afterAll(async () => {
  await w?.close();
  await redis.quit();
});

describe('two replicas sharing Redis', () => {
  it('what one replica stores, the other reads: only the uncached forecast is asked again', async () => {
    const p = prefix('replicas');
    const a = await replica(p);
    const b = await replica(p);

    const first = await lookup(a, w.v2, { city: 'New York' });
    expect(cacheTrail(first.report)).toEqual(['geocode:miss:200', 'point:miss:200', 'forecast:off:200']);
    const keys = await redis.waitForKeys(p, 2);
    expect(keys).toHaveLength(2);

    const since = w.replay.requests.length;
    const second = await lookup(b, w.v2, { city: 'New York' });
    expect(cacheTrail(second.report)).toEqual(['geocode:hit:200', 'point:hit:200', 'forecast:off:200']);
    expect(w.callsSince(since)).toEqual([NYC_CALLS.forecast]);
    expect(second.outputs).toEqual(first.outputs);

    // The step TTLs as stored, jittered ±10 % (and capped at 30 d).
    const ttl = new Map<string, number>();
    for (const key of keys) {
      const { body } = await storedValue(redis, key);
      ttl.set(Object.hasOwn(body as object, 'results') ? 'geocode' : 'point', await redis.pttl(key));
    }
    expect(ttl.get('geocode')).toBeGreaterThanOrEqual(27 * DAY - 60_000);
    expect(ttl.get('geocode')).toBeLessThanOrEqual(30 * DAY);
    expect(ttl.get('point')).toBeGreaterThanOrEqual(6.3 * DAY - 60_000);
    expect(ttl.get('point')).toBeLessThanOrEqual(7.7 * DAY);
  });

  it('a 404 is never written; an empty geocode is written with a 30 s TTL', async () => {
    const p = prefix('negative');
    const a = await replica(p);
    await lookupError(a, w.v2, { city: 'London' });
    const afterLondon = await redis.waitForKeys(p, 1);
    expect(afterLondon).toHaveLength(1);
    // The geocode's 200, not the point's 404.
    expect(await storedValue(redis, afterLondon[0]!)).toMatchObject({ status: 200 });

    await lookupError(a, w.v2, { city: 'xyznonexistentlocation12345' });
    const keys = await redis.waitForKeys(p, 2);
    const empty = keys.find((k) => !afterLondon.includes(k))!;
    const pttl = await redis.pttl(empty);
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(NEGATIVE_TTL_MS * 1.1);
    // Nothing more was written for the 404 in the meantime.
    expect(await redis.keys(p)).toHaveLength(2);
  });
});

describe('single flight (RELIABILITY E6, E8)', () => {
  it('20 concurrent identical invocations: one backend call per cached step', async () => {
    const a = await replica(prefix('flight'));
    const since = w.replay.requests.length;
    const results = await Promise.all(
      Array.from({ length: 20 }, () => lookup(a, w.v2, { city: 'New York' })),
    );
    const calls = w.callsSince(since);
    const count = (call: string) => calls.filter((c) => c === call).length;
    expect([count(NYC_CALLS.geocode), count(NYC_CALLS.point), count(NYC_CALLS.forecast)]).toEqual([1, 1, 20]);
    expect(new Set(results.map((r) => JSON.stringify(r.outputs))).size).toBe(1);
    for (const step of ['geocode', 'point']) {
      const outcomes = results.map((r) => r.report.steps.find((s) => s.id === step)!.cache);
      expect(outcomes.filter((o) => o === 'miss')).toHaveLength(1);
      expect(outcomes.every((o) => o === 'miss' || o === 'shared' || o === 'hit')).toBe(true);
      const tally = Object.fromEntries([...Map.groupBy(outcomes, (o) => o)].map(([k, v]) => [k, v.length]));
      const made = count(step === 'geocode' ? NYC_CALLS.geocode : NYC_CALLS.point);
      reportFigures(
        `[single flight] ${step}: 20 invocations, ${made} backend call; ${JSON.stringify(tally)}`,
      );
    }
  });

  it('three replicas, 50 concurrent invocations each, one cold key: one call per cached step in all', async () => {
    const p = prefix('flight3');
    const replicas = [await replica(p), await replica(p), await replica(p)];
    const since = w.replay.requests.length;
    const results = await Promise.all(
      Array.from({ length: 150 }, (_, i) => lookup(replicas[i % 3]!, w.v2, { city: 'New York' })),
    );
    const calls = w.callsSince(since);
    const geocode = calls.filter((c) => c === NYC_CALLS.geocode).length;
    const point = calls.filter((c) => c === NYC_CALLS.point).length;
    // Within a replica its own single flight; across replicas the lease in Redis: one call in
    // a quiet run. A replica whose Redis read overran its 50 ms budget (a loaded machine) treats
    // Redis as degraded and loads on its own — one per replica at most, never more.
    for (const calls of [geocode, point]) {
      expect(calls).toBeGreaterThanOrEqual(1);
      expect(calls).toBeLessThanOrEqual(3);
    }
    const outcomes = results.flatMap((r) => r.report.steps.slice(0, 2).map((s) => s.cache));
    expect(outcomes.filter((o) => o === 'miss')).toHaveLength(geocode + point);
    reportFigures(`[single flight] 3 replicas × 50 invocations: geocode ${geocode}, point ${point} call(s)`);
  });
});
