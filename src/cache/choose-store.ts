import type { CacheStore } from './cache-store.ts';
import { createMemoryStore } from './memory-store.ts';

/**
 * The store a serving gateway keeps step results, rate-limit buckets, quotas and OAuth tokens
 * in: Redis when a URL is given (shared by the replicas), else this process's memory. The
 * Redis store (and ioredis with it) is loaded only when a URL is given, so a gateway without
 * Redis does not carry the client in memory.
 */
export async function chooseCacheStore(
  redisUrl: string | undefined,
  onError: (err: Error) => void,
): Promise<CacheStore> {
  if (!redisUrl) return createMemoryStore();
  const { createRedisStore } = await import('./redis-store.ts');
  return createRedisStore(redisUrl, { onError });
}
