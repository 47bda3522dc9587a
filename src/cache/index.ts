// The step cache: keys, envelopes, single flight, and the stores behind it.
export { type Breaker, type BreakerOptions, createBreaker } from './breaker.ts';
export { CACHE_KEY_PREFIX, type CacheKeyInput, cacheKey } from './cache-key.ts';
export type { CacheStore, CacheStoreStats } from './cache-store.ts';
export { canonicalJson } from './canonical-json.ts';
export { createMemoryStore, type MemoryStoreOptions } from './memory-store.ts';
export {
  createRedisStore,
  type RedisCacheStore,
  type RedisOptionsInput,
  type RedisStoreOptions,
  redisOptions,
  retryDelayMs,
} from './redis-store.ts';
export {
  type LoadResult,
  StepCache,
  type StepCacheOptions,
  type StepCacheOutcome,
  type StepCacheResult,
  type StepCacheStats,
} from './step-cache.ts';
