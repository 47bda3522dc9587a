import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createRedisStore,
  type RedisCacheStore,
  type RedisStoreOptions,
} from '../../src/cache/redis-store.ts';
import { type FakeRedis, refusedPort, startBlackhole, startFakeRedis } from './fake-redis.ts';
import { sleep, timed } from './timing.ts';
import { reportFigures } from '../support/report-figures.ts';

// Each fault mode: every get resolves undefined, never throws, and within its
// bound, whatever Redis does (RELIABILITY E7, F2, F3, M3).

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const BUDGET = 50;
/**
 * Scheduling slack for a loaded 2-core CI machine. What these tests prove is
 * "bounded by the budget", against stalls of seconds (ioredis defaults: 10-73 s).
 */
const SLACK = 100;
const PAUSE_MS = 200;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function store(url: string, options: RedisStoreOptions = {}): RedisCacheStore {
  const created = createRedisStore(url, { getBudgetMs: BUDGET, ...options });
  cleanups.push(() => created.close());
  return created;
}

async function fake(mode: FakeRedis['mode']): Promise<FakeRedis> {
  const created = await startFakeRedis(mode);
  cleanups.push(() => created.close());
  return created;
}

/** Runs `n` sequential gets and returns the slowest, checking each is a miss. */
async function slowestMiss(target: RedisCacheStore, n: number): Promise<number> {
  let slowest = 0;
  for (let i = 0; i < n; i++) {
    const { ms, result } = await timed(() => target.get(`k${i}`));
    expect(result).toBeUndefined();
    slowest = Math.max(slowest, ms);
  }
  return slowest;
}

function report(mode: string, numbers: Record<string, number>): void {
  const text = Object.entries(numbers)
    .map(([name, value]) => `${name} ${value.toFixed(2)}`)
    .join(', ');
  reportFigures(`[cache fault] ${mode}: ${text}`);
}

describe('Redis store under faults', () => {
  it('(a) refused port: misses at once, before and after the first failure', async () => {
    const port = await refusedPort();
    const errors: Error[] = [];
    let firstFailure: () => void = () => {};
    const failed = new Promise<void>((resolve) => {
      firstFailure = resolve;
    });
    const target = store(`redis://127.0.0.1:${port}`, {
      onError: (err) => {
        errors.push(err);
        firstFailure();
      },
    });
    const beforeFailure = await timed(() => target.get('boot'));
    expect(beforeFailure.result).toBeUndefined();
    await failed;
    const slowest = await slowestMiss(target, 100);
    // Let ioredis retry a few times: the error listener stays rate limited.
    await sleep(300);
    expect(slowest).toBeLessThan(SLACK);
    expect(beforeFailure.ms).toBeLessThan(SLACK);
    expect(errors.length).toBe(1);
    expect((errors[0] as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
    expect(target.stats()).toMatchObject({ unavailable: 101, errors: 0, timeouts: 0 });
    report('refused', { 'first get ms': beforeFailure.ms, 'slowest of 100 gets ms': slowest });
  });

  it('(b) accepts TCP and never answers: misses within the budget', async () => {
    const hole = await startBlackhole();
    cleanups.push(() => hole.close());
    // The handshake (CLIENT SETINFO, then the INFO ready check) times out at
    // commandTimeout and ioredis ends the connection, but a peer that never
    // reads never sees the FIN: only socketTimeout destroys the socket and lets
    // ioredis redial (default 2 s, shortened here to keep the test fast).
    const target = store(hole.url, { socketTimeoutMs: 400 });
    await sleep(20); // connected, ready check unanswered
    const start = performance.now();
    const soon = await slowestMiss(target, 20);
    let later = 0;
    while (hole.connections() < 2 && performance.now() - start < 1500) {
      later = Math.max(later, await slowestMiss(target, 1));
      await sleep(10);
    }
    const redialMs = performance.now() - start;
    expect(hole.connections()).toBeGreaterThanOrEqual(2);
    expect(Math.max(soon, later)).toBeLessThan(BUDGET + SLACK);
    expect(target.isReady()).toBe(false);
    expect(target.stats()).toMatchObject({ errors: 0, timeouts: 0 });
    report('blackhole', {
      'slowest get ms (connected, not ready)': soon,
      'slowest get ms (until redial)': later,
      'ms until redial': redialMs,
    });
  });

  it('(c) ready, then every command stalls: each get ends at the budget', async () => {
    const server = await fake('stall');
    const target = store(server.url, { breakerThreshold: 1_000 });
    expect(await target.waitUntilReady(1000)).toBe(true);
    const sequential = await slowestMiss(target, 5);
    const concurrent = await timed(() =>
      Promise.all(Array.from({ length: 20 }, (_, i) => target.get(`c${i}`))),
    );
    expect(concurrent.result.every((v) => v === undefined)).toBe(true);
    target.set('w', 'never acknowledged', 1_000); // fire-and-forget: returns at once
    expect(sequential).toBeLessThan(BUDGET + SLACK);
    expect(sequential).toBeGreaterThanOrEqual(BUDGET - 1);
    expect(concurrent.ms).toBeLessThan(BUDGET + SLACK);
    await sleep(150); // the SET's commandTimeout fires
    expect(target.stats()).toMatchObject({ timeouts: 25, errors: 0, setErrors: 1 });
    report('stalled after ready', {
      'slowest sequential get ms': sequential,
      '20 concurrent gets ms': concurrent.ms,
    });
  });

  it('(c′) a connection stalled past socketTimeout is dropped and redialled', async () => {
    const server = await fake('stall');
    const target = store(server.url, { socketTimeoutMs: 300, breakerThreshold: 1_000 });
    expect(await target.waitUntilReady(1000)).toBe(true);
    expect(await target.get('x')).toBeUndefined();
    expect(server.connections).toBe(1);
    await sleep(450);
    expect(server.connections).toBeGreaterThanOrEqual(2);
    server.mode = 'memory';
    expect(await target.waitUntilReady(1000)).toBe(true);
    target.set('x', 'fresh', 1_000);
    await sleep(10);
    expect(await target.get('x')).toBe('fresh');
  });

  it('(d) real Redis paused by CLIENT PAUSE: get ends at the budget, replies stay aligned after', async () => {
    const prefix = `sculptor-test:cache-pause:${randomUUID()}:`;
    const admin = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await admin.connect();
    cleanups.push(async () => {
      await admin.del(`${prefix}a`, `${prefix}b`);
      await admin.quit();
    });
    await admin.set(`${prefix}a`, 'value-a', 'PX', 10_000);
    await admin.set(`${prefix}b`, 'value-b', 'PX', 10_000);
    const target = store(REDIS_URL, { keyPrefix: prefix });
    expect(await target.waitUntilReady(2000)).toBe(true);
    expect(await target.get('a')).toBe('value-a');

    // Pauses every client of the shared Redis, so keep it short: 200 ms is
    // longer than both the get budget (50) and commandTimeout (100), which is
    // all this needs. CLIENT UNPAUSE cannot shorten it: on Redis 7.0 the
    // UNPAUSE itself waits for the pause to end (measured).
    await admin.client('PAUSE', PAUSE_MS, 'ALL');
    const paused = await timed(() => target.get('a'));
    await admin.ping(); // the admin connection is paused too: this returns when the pause ends
    expect(paused.result).toBeUndefined();
    expect(paused.ms).toBeLessThan(BUDGET + SLACK);
    // The late reply to the abandoned GET a must not be taken for GET b's.
    expect(await target.get('b')).toBe('value-b');
    expect(await target.get('a')).toBe('value-a');
    expect(target.stats()).toMatchObject({ timeouts: 1, hits: 3 });
    report('CLIENT PAUSE', { 'get ms while paused': paused.ms });
  });

  it('(e) the breaker opens after 5 consecutive errors, skips Redis, then probes once', async () => {
    const server = await fake('error');
    const target = store(server.url, { breakerCooldownMs: 200 });
    expect(await target.waitUntilReady(1000)).toBe(true);
    for (let i = 0; i < 5; i++) expect(await target.get(`e${i}`)).toBeUndefined();
    expect(server.commands.get('GET')).toBe(5);
    expect(target.stats()).toMatchObject({ errors: 5, breakerOpens: 1 });

    const skipped = await slowestMiss(target, 10);
    target.set('s', 'v', 1_000);
    expect(server.commands.get('GET')).toBe(5);
    expect(server.commands.get('SET')).toBeUndefined();
    expect(target.stats().skipped).toBe(11);
    expect(skipped).toBeLessThan(SLACK);

    // After the cool-down one probe goes through; it fails, so the breaker reopens.
    await sleep(220);
    const [probe, ...rest] = await Promise.all([target.get('p1'), target.get('p2'), target.get('p3')]);
    expect([probe, ...rest]).toEqual([undefined, undefined, undefined]);
    expect(server.commands.get('GET')).toBe(6);
    expect(target.stats().breakerOpens).toBe(2);

    // Redis recovers: the next probe succeeds and closes the breaker.
    server.mode = 'memory';
    await sleep(220);
    expect(await target.get('p4')).toBeUndefined();
    target.set('back', 'again', 1_000);
    await sleep(10);
    expect(await target.get('back')).toBe('again');
    report('breaker', { 'slowest skipped get ms': skipped });
  });

  it('(e′) timeouts count toward the breaker too', async () => {
    const server = await fake('stall');
    const target = store(server.url);
    expect(await target.waitUntilReady(1000)).toBe(true);
    for (let i = 0; i < 5; i++) await target.get(`t${i}`);
    const { ms } = await timed(() => target.get('t5'));
    expect(ms).toBeLessThan(SLACK);
    expect(target.stats()).toMatchObject({ timeouts: 5, skipped: 1, breakerOpens: 1 });
  });

  it('(f) restarted Redis: misses at once while it is gone, serves again once it is back', async () => {
    const server = await fake('memory');
    const target = store(server.url);
    expect(await target.waitUntilReady(1000)).toBe(true);
    target.set('r', 'before', 10_000);
    await sleep(10);
    expect(await target.get('r')).toBe('before');

    await server.stop();
    await sleep(20);
    const down = await slowestMiss(target, 20);
    expect(down).toBeLessThan(SLACK);

    await server.restart();
    const back = await timed(() => target.waitUntilReady(3000));
    expect(back.result).toBe(true);
    expect(await target.get('r')).toBe('before');
    report('restart', { 'slowest get ms while down': down, 'ms to ready after restart': back.ms });
  });
});
