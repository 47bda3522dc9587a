/**
 * The envelope, not Redis, says how long an entry lives: over the real Redis, an entry copied
 * back after its key expired (or whose TTL was removed) is refused once its own expiry has
 * passed, counted and deleted; an entry of the previous envelope format is a plain miss.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelopeMacKey } from '../../src/cache/envelope.ts';
import type { RedisCacheStore } from '../../src/cache/redis-store.ts';
import { StepCache } from '../../src/cache/step-cache.ts';
import { inspector, readyStore, SECRET, uniquePrefix } from './redis-harness.ts';

const prefix = uniquePrefix('stale-entries');
const redis = inspector();
let store: RedisCacheStore;

beforeAll(async () => {
  // What is stored is under test, not how fast: a read slowed by a loaded machine must not pass for a miss.
  store = await readyStore(prefix, { getBudgetMs: 2000, commandTimeoutMs: 2000 });
});
afterAll(async () => {
  await redis.removeAll(prefix);
  await store?.close();
  redis.disconnect();
});

const answer = (price: number) => ({ status: 200, body: { price } });
const cacheable = (price: number) => async () => ({ value: answer(price), cacheable: true });
const uncacheable = (price: number) => async () => ({ value: answer(price), cacheable: false });

/** Polls a condition on Redis, bounded: stores write and delete fire-and-forget. */
async function until(check: () => Promise<boolean>, attempts = 100): Promise<boolean> {
  for (let i = 0; i < attempts; i++) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

describe('stale step-cache entries in Redis', () => {
  it('an expired entry written back without a TTL is refused, counted and deleted', async () => {
    const cache = new StepCache(store, { secret: SECRET, jitter: 0 });
    const full = `${prefix}price-expired`;
    expect((await cache.getOrLoad('price-expired', 150, cacheable(10))).outcome).toBe('miss');
    expect(await until(async () => (await redis.exists(full)) === 1)).toBe(true);
    const written = (await redis.get(full))!;
    // Redis drops the key at its TTL; someone writes the very bytes back, with no TTL at all.
    expect(await until(async () => (await redis.exists(full)) === 0)).toBe(true);
    await redis.set(full, written);
    expect(await redis.pttl(full)).toBe(-1);

    // Not served: the load runs and its answer is the one returned.
    expect(await cache.getOrLoad('price-expired', 60_000, uncacheable(11))).toEqual({
      value: answer(11),
      outcome: 'miss',
    });
    expect(cache.stats()).toMatchObject({ integrityViolations: 0 });
    expect(cache.stats().expired).toBeGreaterThanOrEqual(1);
    // And deleted, though the load's answer was not stored in its place.
    expect(await until(async () => (await redis.exists(full)) === 0)).toBe(true);
  });

  it('an entry of the previous envelope format (authentic, no expiry) is a miss, not an error', async () => {
    const cache = new StepCache(store, { secret: SECRET });
    const full = `${prefix}price-v1`;
    // As the previous version wrote it: `<MAC>.{"v":1,"key","createdAt","value"}` under the same key.
    const json = JSON.stringify({ v: 1, key: 'price-v1', createdAt: Date.now(), value: answer(1) });
    const mac = createHmac('sha256', envelopeMacKey(SECRET)).update(json).digest('base64url');
    await redis.set(full, `${mac}.${json}`, 'PX', 60_000);

    expect(await cache.getOrLoad('price-v1', 60_000, cacheable(2))).toEqual({
      value: answer(2),
      outcome: 'miss',
    });
    expect(cache.stats()).toMatchObject({ integrityViolations: 0, loadFailures: 0 });
    expect(cache.stats().previousFormat).toBeGreaterThanOrEqual(1);
    // The load's answer replaced it, in the current format, and is served from then on.
    expect(await until(async () => (await redis.get(full))?.includes('"v":2') === true)).toBe(true);
    expect((await cache.getOrLoad('price-v1', 60_000, cacheable(3))).outcome).toBe('hit');
  });
});
