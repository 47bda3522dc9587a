import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createRedisStore,
  type RedisCacheStore,
  redisOptions,
  retryDelayMs,
} from '../../src/cache/redis-store.ts';
import { StepCache } from '../../src/cache/step-cache.ts';
import { sleep } from './timing.ts';
import { reportFigures } from '../support/report-figures.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('redisOptions', () => {
  it('pins the settings of a cache that must never block a request', () => {
    const { retryStrategy, ...rest } = redisOptions();
    expect(rest).toEqual({
      connectTimeout: 1000,
      commandTimeout: 100,
      socketTimeout: 2000,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      autoResendUnfulfilledCommands: false,
      enableReadyCheck: true,
      keepAlive: 30_000,
      reconnectOnError: null,
      lazyConnect: false,
    });
    expect(retryStrategy).toBe(retryDelayMs);
  });

  it('takes the timeouts it is given', () => {
    expect(
      redisOptions({ commandTimeoutMs: 150, connectTimeoutMs: 500, socketTimeoutMs: 900 }),
    ).toMatchObject({
      commandTimeout: 150,
      connectTimeout: 500,
      socketTimeout: 900,
    });
  });

  it('retries with full jitter, capped at 2 s, and never gives up', () => {
    const samples = Array.from({ length: 1000 }, () => retryDelayMs(3));
    expect(new Set(samples).size).toBeGreaterThan(1);
    for (const delay of samples) {
      expect(Number.isInteger(delay)).toBe(true);
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThan(400);
    }
    for (const attempt of [1, 10, 100, 10_000]) {
      const delay = retryDelayMs(attempt);
      expect(typeof delay).toBe('number');
      expect(delay).toBeLessThan(2000);
    }
  });
});

describe('createRedisStore against the real Redis', () => {
  const prefix = `sculptor-test:cache:${randomUUID()}:`;
  let admin: Redis;
  let store: RedisCacheStore;

  beforeAll(async () => {
    admin = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await admin.connect();
    // A generous read budget: these tests are about what is stored, and 200 writes at once on a
    // loaded machine (the full suite on two cores) must not turn Redis "degraded" and skip some.
    // The 50 ms budget itself is tested in redis-store.faults.test.ts.
    store = createRedisStore(REDIS_URL, { keyPrefix: prefix, getBudgetMs: 1000 });
    expect(await store.waitUntilReady(2000)).toBe(true);
  });

  afterAll(async () => {
    await store?.close();
    // Delete only this run's keys: the Redis is shared with other test files.
    for await (const keys of admin.scanStream({ match: `${prefix}*`, count: 500 })) {
      if ((keys as string[]).length > 0) await admin.del(...(keys as string[]));
    }
    await admin.quit();
  });

  async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
    const deadline = performance.now() + 1000;
    for (;;) {
      const value = await read();
      if (done(value) || performance.now() > deadline) return value;
      await sleep(5);
    }
  }

  it('round-trips a value under keyPrefix, with PX TTL', async () => {
    store.set('round-trip', 'hello ☃', 5_000);
    expect(
      await eventually(
        () => store.get('round-trip'),
        (v) => v !== undefined,
      ),
    ).toBe('hello ☃');
    // keyPrefix: the key in Redis is prefix + key, and nothing is written unprefixed.
    expect(await admin.get(`${prefix}round-trip`)).toBe('hello ☃');
    expect(await admin.exists('round-trip')).toBe(0);
    const pttl = await admin.pttl(`${prefix}round-trip`);
    expect(pttl).toBeGreaterThan(4_000);
    expect(pttl).toBeLessThanOrEqual(5_000);
    expect(await store.get('absent')).toBeUndefined();
    expect(store.stats()).toMatchObject({ hits: 1, misses: 1, errors: 0, timeouts: 0 });
  });

  it('stores step values with TTLs jittered within ±10 % (E5)', async () => {
    const cache = new StepCache(store, { secret: 'test-secret' });
    const count = 200;
    const ttl = 10_000;
    await Promise.all(
      Array.from({ length: count }, (_, i) =>
        cache.getOrLoad(`ttl:${i}`, ttl, async () => ({ value: { i }, cacheable: true })),
      ),
    );
    const keys = Array.from({ length: count }, (_, i) => `${prefix}ttl:${i}`);
    const pttls = await eventually(
      async () => {
        const pipeline = admin.pipeline();
        for (const key of keys) pipeline.pttl(key);
        return ((await pipeline.exec()) ?? []).map(([, v]) => v as number);
      },
      (values) => values.every((v) => v > 0),
    );
    const min = Math.min(...pttls);
    const max = Math.max(...pttls);
    expect(min).toBeGreaterThanOrEqual(ttl * 0.9 - 1_000); // elapsed time only lowers PTTL
    expect(max).toBeLessThanOrEqual(ttl * 1.1);
    // 200 uniform draws: both ends of the range are reached.
    expect(min).toBeLessThan(ttl * 0.95);
    expect(max).toBeGreaterThan(ttl * 1.05);
    reportFigures(`[cache] PTTL over ${count} writes of ttl ${ttl}: min ${min} ms, max ${max} ms`);
  });

  it('reads back what StepCache stored, as a hit', async () => {
    const cache = new StepCache(store, { secret: 'test-secret' });
    let loads = 0;
    const load = async () => {
      loads++;
      return { value: { city: 'Lyon', lat: 45.76 }, cacheable: true };
    };
    expect((await cache.getOrLoad('geo:lyon', 5_000, load)).outcome).toBe('miss');
    await eventually(
      () => admin.exists(`${prefix}geo:lyon`),
      (n) => n === 1,
    );
    expect(await cache.getOrLoad('geo:lyon', 5_000, load)).toEqual({
      value: { city: 'Lyon', lat: 45.76 },
      outcome: 'hit',
    });
    expect(loads).toBe(1);
  });

  it('is a miss and a no-op after close', async () => {
    const other = createRedisStore(REDIS_URL, { keyPrefix: prefix });
    expect(await other.waitUntilReady(2000)).toBe(true);
    await other.close();
    other.set('after-close', 'x', 5_000);
    expect(await other.get('round-trip')).toBeUndefined();
    expect(other.isReady()).toBe(false);
    expect(await admin.exists(`${prefix}after-close`)).toBe(0);
  });
});
