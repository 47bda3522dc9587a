/**
 * Single flight across replicas: three step caches, each over its own Redis
 * connection as three gateway replicas have, share one cold key. These cases fail without the
 * lease (each replica then loads once: 3) and show both ways a waiter stops waiting.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { RedisCacheStore } from '../../src/cache/redis-store.ts';
import { StepCache } from '../../src/cache/step-cache.ts';
import { inspector, readyStore, SECRET, uniquePrefix } from './redis-harness.ts';

const redis = inspector();
const stores: RedisCacheStore[] = [];
let prefix = uniquePrefix('flight');

afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
  await redis.removeAll(prefix);
  prefix = uniquePrefix('flight');
});
afterAll(async () => {
  redis.disconnect();
});

/** A replica: its own connection (a generous read budget, so a loaded test machine does not turn Redis "degraded"). */
async function replica(options: { leaseMs?: number; leaseWaitMs?: number } = {}): Promise<StepCache> {
  const store = await readyStore(prefix, { getBudgetMs: 1000 });
  stores.push(store);
  return new StepCache(store, { secret: SECRET, ...options });
}

const slowLoad = (loads: { count: number }, ms: number) => async () => {
  loads.count++;
  await new Promise((resolve) => setTimeout(resolve, ms));
  return { value: { answer: 42 }, cacheable: true };
};

describe('cross-replica single flight', () => {
  it('3 replicas × 20 concurrent callers, one cold key: one load in all, every caller the same answer', async () => {
    const replicas = [await replica(), await replica(), await replica()];
    const loads = { count: 0 };
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) => replicas[i % 3]!.getOrLoad('cold', 60_000, slowLoad(loads, 300))),
    );
    expect(loads.count).toBe(1);
    expect(results.every((r) => JSON.stringify(r.value) === '{"answer":42}')).toBe(true);
    expect(results.filter((r) => r.outcome === 'miss')).toHaveLength(1);
  });

  it('a lease holder that dies (never writes, never releases): the others load once the lease expires', async () => {
    const [holder, waiter] = [await replica({ leaseMs: 400 }), await replica({ leaseWaitMs: 5_000 })];
    // The holder takes the lease and its process "dies" with the load: it never settles.
    void holder.getOrLoad(
      'orphan',
      60_000,
      () => new Promise<{ value: unknown; cacheable: boolean }>(() => {}),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    const loads = { count: 0 };
    const started = performance.now();
    const result = await waiter.getOrLoad('orphan', 60_000, slowLoad(loads, 10));
    const waited = performance.now() - started;
    expect(result.outcome).toBe('miss');
    expect(loads.count).toBe(1);
    // It waited for the lease to expire (400 ms from its taking), not for its own 5 s bound.
    expect(waited).toBeGreaterThan(250);
    expect(waited).toBeLessThan(3_000);
  });

  it('a holder slower than the wait bound: the waiter stops waiting and loads itself', async () => {
    const [holder, waiter] = [await replica({ leaseMs: 10_000 }), await replica({ leaseWaitMs: 200 })];
    const holderLoads = { count: 0 };
    const slow = holder.getOrLoad('slow', 60_000, slowLoad(holderLoads, 2_000));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const loads = { count: 0 };
    const started = performance.now();
    const result = await waiter.getOrLoad('slow', 60_000, slowLoad(loads, 10));
    const waited = performance.now() - started;
    expect(result.outcome).toBe('miss');
    expect(loads.count).toBe(1);
    expect(waited).toBeGreaterThanOrEqual(190);
    expect(waited).toBeLessThan(1_500);
    await slow;
    expect(holderLoads.count).toBe(1);
  });
});
