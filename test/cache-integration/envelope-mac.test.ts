/**
 * Without a MAC, anyone who could write to Redis could serve forged step results, so each
 * cache envelope is `<HMAC>.<JSON>` under a key derived from SCULPTOR_SECRET;
 * over the real Redis, a forged or unauthenticated entry is a miss and counted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeEnvelope, envelopeMacKey } from '../../src/cache/envelope.ts';
import type { RedisCacheStore } from '../../src/cache/redis-store.ts';
import { StepCache } from '../../src/cache/step-cache.ts';
import { inspector, readyStore, stepCache, uniquePrefix } from './redis-harness.ts';

const prefix = uniquePrefix('envelope-mac');
const redis = inspector();
let store: RedisCacheStore;
let replica: RedisCacheStore;

beforeAll(async () => {
  [store, replica] = await Promise.all([readyStore(prefix), readyStore(prefix)]);
});
afterAll(async () => {
  await redis.removeAll(prefix);
  await Promise.all([store?.close(), replica?.close()]);
  redis.disconnect();
});

const answer = (price: number) => ({ status: 200, body: { price } });
const loader = (price: number) => async () => ({ value: answer(price), cacheable: true });

describe('authenticated cache envelopes in Redis', () => {
  it('another replica with the same secret reads the entry; forged and unauthenticated ones are misses, counted', async () => {
    const cache = stepCache(store);
    expect(await cache.getOrLoad('price', 60_000, loader(10))).toEqual({
      value: answer(10),
      outcome: 'miss',
    });
    const [full] = await redis.waitForKeys(prefix, 1);
    expect(full).toBe(`${prefix}price`);
    const written = (await redis.get(full!))!;
    expect(written).toMatch(/^[A-Za-z0-9_-]{43}\.\{"v":2,"key":"price"/);

    // A second replica, same SCULPTOR_SECRET: the entry is served.
    const other = stepCache(replica);
    expect(await other.getOrLoad('price', 60_000, loader(99))).toEqual({ value: answer(10), outcome: 'hit' });

    // Someone with write access to Redis but not the secret.
    const json = written.slice(written.indexOf('.') + 1).replace('"price":10', '"price":0');
    const forgeries = [
      json, // no MAC at all (as entries were written before)
      `${written.slice(0, 43)}.${json}`, // the old MAC over altered JSON
      encodeEnvelope(
        'price',
        answer(0),
        { createdAt: Date.now(), expiresAt: Date.now() + 60_000 },
        envelopeMacKey('a-guessed-secret'),
      ),
    ];
    let load = 20;
    for (const forged of forgeries) {
      await redis.set(full!, forged, 'PX', 60_000);
      const fresh = ++load;
      // A miss: the load runs and its value is answered, never the forged 0.
      expect(await other.getOrLoad('price', 60_000, loader(fresh))).toEqual({
        value: answer(fresh),
        outcome: 'miss',
      });
    }
    // Each forged read is counted (a miss reads once more after taking the load's lease).
    expect(other.stats().integrityViolations).toBeGreaterThanOrEqual(forgeries.length);

    // A cache under another secret (a misconfigured replica) cannot read this one's entries either.
    const stranger = new StepCache(replica, { secret: 'some-other-secret-0123456789' });
    expect((await stranger.getOrLoad('price', 60_000, loader(7))).outcome).toBe('miss');
    expect(stranger.stats().integrityViolations).toBeGreaterThanOrEqual(1);
  });
});
