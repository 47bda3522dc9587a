import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { expect } from 'vitest';
import {
  createRedisStore,
  type RedisCacheStore,
  type RedisStoreOptions,
} from '../../src/cache/redis-store.ts';
import { StepCache } from '../../src/cache/step-cache.ts';

/** The real Redis every test file shares: unique key prefixes, never FLUSHALL. */
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
export const SECRET = 'cache-integration-secret-0123456789';

export function uniquePrefix(label: string): string {
  return `test:cache-integration:${label}:${randomUUID()}:`;
}

/**
 * A Redis store configured as the gateway configures its own (default
 * budgets and timeouts), under a prefix of its own, connected before use.
 */
export async function readyStore(prefix: string, options: RedisStoreOptions = {}): Promise<RedisCacheStore> {
  const store = createRedisStore(REDIS_URL, { keyPrefix: prefix, ...options });
  expect(await store.waitUntilReady(2000)).toBe(true);
  return store;
}

export function stepCache(store: RedisCacheStore): StepCache {
  return new StepCache(store, { secret: SECRET });
}

/** A plain client for looking at what the stores wrote, and cleaning up after. */
export function inspector(): Redis & {
  keys(prefix: string): Promise<string[]>;
  waitForKeys(prefix: string, count: number): Promise<string[]>;
  removeAll(prefix: string): Promise<void>;
} {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1, connectTimeout: 1000 });
  const keys = async (prefix: string): Promise<string[]> => {
    const found: string[] = [];
    let cursor = '0';
    for (let i = 0; i < 1000; i++) {
      const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      found.push(...batch);
      cursor = next;
      if (cursor === '0') break;
    }
    return [...new Set(found)].sort();
  };
  return Object.assign(redis, {
    keys,
    // SETs are fire-and-forget: wait, bounded, until they have landed.
    async waitForKeys(prefix: string, count: number): Promise<string[]> {
      let found: string[] = [];
      for (let i = 0; i < 100 && found.length < count; i++) {
        found = await keys(prefix);
        if (found.length < count) await new Promise((r) => setTimeout(r, 20));
      }
      return found;
    },
    async removeAll(prefix: string): Promise<void> {
      const found = await keys(prefix);
      if (found.length > 0) await redis.del(...found);
    },
  });
}

/** The stored envelope's value under a full Redis key. */
export async function storedValue(redis: Redis, key: string): Promise<{ status: number; body: unknown }> {
  const raw = await redis.get(key);
  // `<mac>.<envelope JSON>` (src/cache/envelope.ts).
  return (JSON.parse(raw!.slice(raw!.indexOf('.') + 1)) as { value: { status: number; body: unknown } })
    .value;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
