import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CacheStore } from '../../src/cache/cache-store.ts';
import { decodeEnvelope, envelopeMacKey } from '../../src/cache/envelope.ts';
import { createMemoryStore } from '../../src/cache/memory-store.ts';
import { type LoadResult, StepCache, type StepCacheOutcome } from '../../src/cache/step-cache.ts';
import { sleep } from './timing.ts';

const SECRET = 'step-cache-test-secret';

/** A stored string as the cache writes it: `<MAC>.<JSON>` under SECRET's derived key. */
const mac = (json: string) =>
  `${createHmac('sha256', envelopeMacKey(SECRET)).update(json).digest('base64url')}.${json}`;

/** A memory store that also remembers the TTL of each write, to check jitter and caps. */
function recordingStore(): CacheStore & { ttls: Map<string, number> } {
  const inner = createMemoryStore();
  const ttls = new Map<string, number>();
  return {
    kind: 'memory',
    get: (key) => inner.get(key),
    set(key, value, ttlMs) {
      ttls.set(key, ttlMs);
      inner.set(key, value, ttlMs);
    },
    claim: (key, ttlMs) => inner.claim(key, ttlMs),
    release: (key) => inner.release(key),
    delete: (key) => inner.delete(key),
    close: () => inner.close(),
    stats: () => inner.stats(),
    ttls,
  };
}

function deferred<T>(): { promise: Promise<T>; resolve(value: T): void; reject(err: unknown): void } {
  let resolve!: (value: T) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

function countOutcomes(outcomes: StepCacheOutcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const outcome of outcomes) counts[outcome] = (counts[outcome] ?? 0) + 1;
  return counts;
}

describe('StepCache', () => {
  it('loads on a miss, stores, and serves the next call from the store', async () => {
    const store = recordingStore();
    const cache = new StepCache(store, { secret: SECRET });
    let loads = 0;
    const load = async () => {
      loads++;
      return { value: { lat: 48.85, lon: 2.35 }, cacheable: true };
    };
    expect(await cache.getOrLoad('k', 60_000, load)).toEqual({
      value: { lat: 48.85, lon: 2.35 },
      outcome: 'miss',
    });
    expect(await cache.getOrLoad('k', 60_000, load)).toEqual({
      value: { lat: 48.85, lon: 2.35 },
      outcome: 'hit',
    });
    expect(loads).toBe(1);
    const stored = decodeEnvelope((await store.get('k'))!, 'k', envelopeMacKey(SECRET), Date.now());
    expect(stored).toMatchObject({ ok: true, value: { lat: 48.85, lon: 2.35 } });
    expect(cache.stats()).toMatchObject({ hits: 1, misses: 1, loads: 1, stored: 1, inFlight: 0 });
  });

  it('single flight: 50 concurrent calls on one key load once and share the value', async () => {
    const cache = new StepCache(createMemoryStore(), { secret: SECRET });
    const gate = deferred<LoadResult<{ n: number }>>();
    let loads = 0;
    const load = () => {
      loads++;
      return gate.promise;
    };
    const calls = Array.from({ length: 50 }, () => cache.getOrLoad('one', 60_000, load));
    await sleep(5); // all 50 are waiting on the one load
    expect(cache.stats().inFlight).toBe(1);
    gate.resolve({ value: { n: 42 }, cacheable: true });
    const results = await Promise.all(calls);
    expect(loads).toBe(1);
    const first = results[0]!.value;
    for (const result of results) expect(result.value).toBe(first);
    expect(countOutcomes(results.map((r) => r.outcome))).toEqual({ miss: 1, shared: 49 });
    expect(cache.stats()).toMatchObject({ misses: 1, shared: 49, loads: 1, inFlight: 0 });
  });

  it('single flight covers the store lookup: joiners of a lookup that hits are hits', async () => {
    const store = createMemoryStore();
    const cache = new StepCache(store, { secret: SECRET });
    await cache.getOrLoad('warm', 60_000, async () => ({ value: 'v', cacheable: true }));
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        cache.getOrLoad('warm', 60_000, async () => {
          throw new Error('must not load');
        }),
      ),
    );
    expect(results.every((r) => r.outcome === 'hit' && r.value === 'v')).toBe(true);
    expect(store.stats().hits).toBe(1); // one store read for all ten
  });

  it('a rejected load rejects every waiter, is not cached, and the next call loads again', async () => {
    const store = recordingStore();
    const cache = new StepCache(store, { secret: SECRET });
    const failure = new Error('backend 503');
    let loads = 0;
    const calls = Array.from({ length: 10 }, () =>
      cache.getOrLoad('flaky', 60_000, async () => {
        loads++;
        await sleep(5);
        throw failure;
      }),
    );
    const settled = await Promise.allSettled(calls);
    expect(loads).toBe(1);
    for (const result of settled) expect(result).toEqual({ status: 'rejected', reason: failure });
    expect(store.ttls.size).toBe(0);
    expect(cache.stats()).toMatchObject({ loadFailures: 1, inFlight: 0 });

    const next = await cache.getOrLoad('flaky', 60_000, async () => {
      loads++;
      return { value: 'recovered', cacheable: true };
    });
    expect(next).toEqual({ value: 'recovered', outcome: 'miss' });
    expect(loads).toBe(2);
  });

  it('a retry issued from inside a rejected waiter starts a fresh load', async () => {
    const cache = new StepCache(createMemoryStore(), { secret: SECRET });
    let loads = 0;
    const retried = cache
      .getOrLoad('retry', 1_000, async () => {
        loads++;
        throw new Error('first attempt fails');
      })
      .catch(() => cache.getOrLoad('retry', 1_000, async () => ({ value: ++loads, cacheable: true })));
    expect(await retried).toEqual({ value: 2, outcome: 'miss' });
  });

  it('a load that throws synchronously is a rejection too', async () => {
    const cache = new StepCache(createMemoryStore(), { secret: SECRET });
    const load = (() => {
      throw new Error('sync');
    }) as unknown as () => Promise<LoadResult<number>>;
    await expect(cache.getOrLoad('sync', 1_000, load)).rejects.toThrow('sync');
    expect(cache.stats().inFlight).toBe(0);
  });

  it('does not store uncacheable results', async () => {
    const store = recordingStore();
    const cache = new StepCache(store, { secret: SECRET });
    let loads = 0;
    const load = async () => ({ value: { status: 500, n: ++loads }, cacheable: false });
    expect((await cache.getOrLoad('u', 60_000, load)).outcome).toBe('miss');
    expect((await cache.getOrLoad('u', 60_000, load)).outcome).toBe('miss');
    expect(loads).toBe(2);
    expect(store.ttls.size).toBe(0);
    expect(cache.stats().uncacheable).toBe(2);
  });

  it('envelope tamper: a value written under key A, copied into key B, is a miss for B', async () => {
    const store = createMemoryStore();
    const cache = new StepCache(store, { secret: SECRET });
    await cache.getOrLoad('tenant-a', 60_000, async () => ({ value: { secret: 'A data' }, cacheable: true }));
    store.set('tenant-b', (await store.get('tenant-a'))!, 60_000);
    const b = await cache.getOrLoad('tenant-b', 60_000, async () => ({
      value: { secret: 'B data' },
      cacheable: true,
    }));
    expect(b).toEqual({ value: { secret: 'B data' }, outcome: 'miss' });
    expect(cache.stats().integrityViolations).toBe(1);
    // The load rewrote B with its own envelope.
    expect(
      await cache.getOrLoad('tenant-b', 60_000, async () => ({ value: 'unused', cacheable: true })),
    ).toEqual({
      value: { secret: 'B data' },
      outcome: 'hit',
    });
  });

  it('treats unparseable or misshapen stored values as misses', async () => {
    const store = createMemoryStore();
    const cache = new StepCache(store, { secret: SECRET });
    const bad = [
      'not json',
      '"a string"',
      '[1,2]',
      'null',
      '{"v":3,"key":"x","createdAt":1,"expiresAt":9e15,"value":1}',
      '{"v":2,"key":"x","createdAt":1,"value":1}',
      '{"v":2,"key":"x","createdAt":"now","expiresAt":9e15,"value":1}',
      '{"v":2,"key":"x","createdAt":1,"expiresAt":"never","value":1}',
      '{"v":2,"key":"x","createdAt":1,"expiresAt":9e15}',
    ];
    // MAC'd under the cache's own secret, so the shape checks behind the MAC are what refuses them.
    for (const raw of bad) {
      store.set('x', mac(raw), 60_000);
      const result = await cache.getOrLoad('x', 60_000, async () => ({ value: 'fresh', cacheable: false }));
      expect(result).toEqual({ value: 'fresh', outcome: 'miss' });
    }
    expect(cache.stats().integrityViolations).toBe(bad.length);
  });

  it("refuses, counts and deletes an entry past its envelope's expiry, though the store still holds it", async () => {
    const store = recordingStore();
    let clock = 1_000_000;
    const cache = new StepCache(store, { secret: SECRET, jitter: 0, now: () => clock });
    await cache.getOrLoad('k', 60_000, async () => ({ value: 'old', cacheable: true }));
    // The envelope expires with the TTL the store was given.
    const written = decodeEnvelope((await store.get('k'))!, 'k', envelopeMacKey(SECRET), clock);
    expect(written).toMatchObject({ ok: true, createdAt: clock, expiresAt: clock + store.ttls.get('k')! });

    clock += 59_999;
    expect(
      (await cache.getOrLoad('k', 60_000, async () => ({ value: 'new', cacheable: false }))).outcome,
    ).toBe('hit');
    // The store's own clock has not moved (its TTL is wall time): only the envelope says it expired.
    clock += 1;
    expect(await cache.getOrLoad('k', 60_000, async () => ({ value: 'new', cacheable: false }))).toEqual({
      value: 'new',
      outcome: 'miss',
    });
    expect(cache.stats()).toMatchObject({ expired: 1, integrityViolations: 0 });
    expect(await store.get('k')).toBeUndefined();
  });

  it('an authentic entry of the previous envelope format is a miss, counted apart from integrity violations', async () => {
    const store = createMemoryStore();
    const cache = new StepCache(store, { secret: SECRET });
    store.set('old', mac('{"v":1,"key":"old","createdAt":1,"value":"stale"}'), 60_000);
    expect(await cache.getOrLoad('old', 60_000, async () => ({ value: 'fresh', cacheable: true }))).toEqual({
      value: 'fresh',
      outcome: 'miss',
    });
    expect(cache.stats()).toMatchObject({ previousFormat: 1, integrityViolations: 0 });
  });

  it('serves but never stores an answer that holds one of its secrets', async () => {
    const store = recordingStore();
    const cache = new StepCache(store, { secret: SECRET });
    const secrets = ['tok-0123456789', 'tok\\"quoted'];
    const load = (body: unknown) => async () => ({ value: { status: 200, body }, cacheable: true, secrets });
    expect(await cache.getOrLoad('a', 60_000, load({ echoed: 'Bearer tok-0123456789' }))).toEqual({
      value: { status: 200, body: { echoed: 'Bearer tok-0123456789' } },
      outcome: 'miss',
    });
    // Searched in the string the store would keep: the secret `tok"quoted` appears JSON-escaped.
    await cache.getOrLoad('b', 60_000, load({ echoed: 'tok"quoted' }));
    await cache.getOrLoad('c', 60_000, load({ echoed: 'nothing secret' }));
    expect([...store.ttls.keys()]).toEqual(['c']);
    expect(cache.stats()).toMatchObject({ secretsWithheld: 2, stored: 1 });
    expect((await cache.getOrLoad('a', 60_000, load({}))).outcome).toBe('miss');
  });

  it('never lets a cached __proto__ reach a prototype', async () => {
    const store = createMemoryStore();
    const cache = new StepCache(store, { secret: SECRET });
    store.set(
      'p',
      mac('{"v":2,"key":"p","createdAt":1,"expiresAt":9e15,"value":{"__proto__":{"polluted":true},"a":1}}'),
      60_000,
    );
    const { value, outcome } = await cache.getOrLoad<Record<string, unknown>>('p', 60_000, async () => ({
      value: {},
      cacheable: false,
    }));
    expect(outcome).toBe('hit');
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('serves but does not store values that are not JSON data (BigInt, cycles, 200k deep, undefined)', async () => {
    const store = recordingStore();
    const cache = new StepCache(store, { secret: SECRET });
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    let deep: unknown = 'leaf';
    for (let i = 0; i < 200_000; i++) deep = [deep];
    const values: unknown[] = [10n, cyclic, deep, undefined, () => 1];
    for (const [i, value] of values.entries()) {
      const result = await cache.getOrLoad(`bad${i}`, 60_000, async () => ({ value, cacheable: true }));
      expect(result.value).toBe(value);
      expect(result.outcome).toBe('miss');
    }
    expect(store.ttls.size).toBe(0);
    expect(cache.stats().unserializable).toBe(values.length);
  });

  it('does not store values over maxValueBytes, counting UTF-8 bytes', async () => {
    const store = recordingStore();
    const cache = new StepCache(store, { secret: SECRET, maxValueBytes: 200 });
    await cache.getOrLoad('small', 60_000, async () => ({ value: 'x'.repeat(50), cacheable: true }));
    await cache.getOrLoad('long', 60_000, async () => ({ value: 'x'.repeat(300), cacheable: true }));
    // 60 snowmen: 60 UTF-16 units, but 180 UTF-8 bytes plus the envelope.
    await cache.getOrLoad('wide', 60_000, async () => ({ value: '☃'.repeat(60), cacheable: true }));
    expect([...store.ttls.keys()]).toEqual(['small']);
    expect(cache.stats().oversize).toBe(2);
  });

  it('jitters TTLs within ±jitter and caps them at maxTtlMs', async () => {
    const store = recordingStore();
    const cache = new StepCache(store, { secret: SECRET, jitter: 0.1, maxTtlMs: 1_050 });
    for (let i = 0; i < 300; i++)
      await cache.getOrLoad(`j${i}`, 1_000, async () => ({ value: i, cacheable: true }));
    const ttls = [...store.ttls.values()];
    expect(Math.min(...ttls)).toBeGreaterThanOrEqual(900);
    expect(Math.min(...ttls)).toBeLessThan(950);
    expect(Math.max(...ttls)).toBe(1_050);
    expect(ttls.every(Number.isInteger)).toBe(true);

    const exact = new StepCache(store, { secret: SECRET, random: () => 0.5 });
    await exact.getOrLoad('exact', 12_345, async () => ({ value: 1, cacheable: true }));
    expect(store.ttls.get('exact')).toBe(12_345);
  });

  it('does not store values whose TTL is not a positive finite number', async () => {
    const store = recordingStore();
    const cache = new StepCache(store, { secret: SECRET });
    for (const ttl of [0, -5, Number.NaN, Number.POSITIVE_INFINITY]) {
      await cache.getOrLoad(`t${ttl}`, ttl, async () => ({ value: 1, cacheable: true }));
    }
    expect(store.ttls.size).toBe(0);
    expect(cache.stats().invalidTtl).toBe(4);
  });

  it('survives a store that breaks its contract and throws', async () => {
    const broken: CacheStore = {
      kind: 'memory',
      get: () => {
        throw new Error('get exploded');
      },
      claim: () => {
        throw new Error('claim exploded');
      },
      release: () => {
        throw new Error('release exploded');
      },
      delete: () => {
        throw new Error('delete exploded');
      },
      set: () => {
        throw new Error('set exploded');
      },
      close: async () => {},
      stats: () => createMemoryStore().stats(),
    };
    const cache = new StepCache(broken, { secret: SECRET });
    expect(await cache.getOrLoad('k', 1_000, async () => ({ value: 'ok', cacheable: true }))).toEqual({
      value: 'ok',
      outcome: 'miss',
    });
  });

  it('keyFor uses its secret', () => {
    const input = { method: 'GET', url: 'https://a.test/', scope: 'caller' as const, credentialId: 'cred-1' };
    const a = new StepCache(createMemoryStore(), { secret: 'one' });
    const b = new StepCache(createMemoryStore(), { secret: 'two' });
    expect(a.keyFor(input)).not.toBe(b.keyFor(input));
    expect(() => new StepCache(createMemoryStore(), { secret: '' })).toThrow(TypeError);
  });

  it('P7: under any interleaving, concurrent misses load once per key, share results, and fan out rejections', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(fc.constantFrom('k1', 'k2', 'k3'), { minLength: 1, maxLength: 20 }),
        fc.boolean(),
        async (s, keys, fail) => {
          const cache = new StepCache(createMemoryStore(), { secret: SECRET });
          const loads = new Map<string, number>();
          const running = new Map<string, number>();
          let maxRunning = 0;
          const backend = s.scheduleFunction(async (key: string) => {
            if (fail) throw new Error(`fail ${key}`);
            return { key, load: loads.get(key) };
          });
          const load = async (key: string) => {
            loads.set(key, (loads.get(key) ?? 0) + 1);
            running.set(key, (running.get(key) ?? 0) + 1);
            maxRunning = Math.max(maxRunning, running.get(key)!);
            try {
              return { value: await backend(key), cacheable: true };
            } finally {
              running.set(key, running.get(key)! - 1);
            }
          };
          // Callers arrive in a scheduler-chosen order, interleaved with the backend's answers.
          const calls = keys.map((key) =>
            s.schedule(Promise.resolve(key)).then(() => cache.getOrLoad(key, 60_000, () => load(key))),
          );
          const settled = Promise.allSettled(calls);
          await s.waitIdle();
          const results = await settled;

          expect(maxRunning).toBe(1); // never two loads of one key at once
          expect(cache.stats().inFlight).toBe(0);
          if (fail) {
            expect(results.every((r) => r.status === 'rejected')).toBe(true);
            expect(cache.stats().stored).toBe(0);
            return;
          }
          // Success: one load per key; later arrivals share it or hit the store.
          for (const key of new Set(keys)) expect(loads.get(key)).toBe(1);
          const outcomes: StepCacheOutcome[] = [];
          for (const [i, result] of results.entries()) {
            expect(result.status).toBe('fulfilled');
            if (result.status !== 'fulfilled') continue;
            expect(result.value.value).toEqual({ key: keys[i], load: 1 });
            outcomes.push(result.value.outcome);
          }
          expect(outcomes.filter((o) => o === 'miss').length).toBe(new Set(keys).size);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('P7: joiners of one flight receive the very same object', async () => {
    const cache = new StepCache(createMemoryStore(), { secret: SECRET });
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        cache.getOrLoad('same', 1_000, async () => ({ value: { a: 1 }, cacheable: false })),
      ),
    );
    for (const result of results) expect(result.value).toBe(results[0]!.value);
  });
});
