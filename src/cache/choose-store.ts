import type { CacheStore } from './cache-store.ts';
import { createMemoryStore } from './memory-store.ts';
import { createRedisStore } from './redis-store.ts';

/**
 * The store a serving gateway keeps step results, rate-limit buckets, quotas and OAuth tokens
 * in: Redis when a URL is given (shared by the replicas), else this process's memory.
 */
export function chooseCacheStore(redisUrl: string | undefined, onError: (err: Error) => void): CacheStore {
  return redisUrl ? createRedisStore(redisUrl, { onError }) : createMemoryStore();
}
