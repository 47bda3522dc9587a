import type { CacheStore } from '../cache/cache-store.ts';
import { createHash } from 'node:crypto';

/**
 * Per-caller rate limit (RELIABILITY A7): a token bucket per caller, `ratePerS`
 * tokens a second up to `burst`. It runs before authentication: a caller is the SHA-256 of its
 * `Authorization` header when it sends one (the token itself is never kept),
 * else its remote address. Made-up Authorization values get a bucket each, and
 * then 401 from the face (with SCULPTOR_CALLERS), which costs no backend call.
 */
export interface RateLimiter {
  /** Takes a token for `caller`; when none is left, the seconds until one is. */
  take(caller: string): { ok: true } | { ok: false; retryAfterS: number };
  /** Buckets currently kept (bounded by `maxCallers`). */
  size(): number;
}

export interface RateLimiterOptions {
  ratePerS: number;
  burst: number;
  /** Buckets kept at most; the least recently used are forgotten (a forgotten caller starts full). */
  maxCallers?: number;
  now?: () => number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export function createRateLimiter({
  ratePerS,
  burst,
  maxCallers = 10_000,
  now = () => performance.now(),
}: RateLimiterOptions): RateLimiter {
  const buckets = new Map<string, Bucket>();
  return {
    take(caller) {
      const t = now();
      let bucket = buckets.get(caller);
      if (bucket) {
        buckets.delete(caller); // re-inserted below: Map order is recency
        bucket.tokens = Math.min(burst, bucket.tokens + ((t - bucket.at) / 1000) * ratePerS);
        bucket.at = t;
      } else {
        bucket = { tokens: burst, at: t };
        if (buckets.size >= maxCallers) buckets.delete(buckets.keys().next().value!);
      }
      buckets.set(caller, bucket);
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return { ok: true };
      }
      return { ok: false, retryAfterS: Math.max(1, Math.ceil((1 - bucket.tokens) / ratePerS)) };
    },
    size: () => buckets.size,
  };
}

/**
 * The per-caller limit shared by every replica: the bucket lives in the
 * cache store's Redis, taken from in one atomic script. While Redis cannot answer
 * (down, slow, breaker open) each replica falls back to its own in-process bucket,
 * so the deployment admits at most replicas × the limit until Redis is back.
 */
/** The rate limit the replicas share (through the cache store). */
export interface SharedRateLimiter {
  take(caller: string): Promise<{ ok: true } | { ok: false; retryAfterS: number }>;
}

export function createSharedRateLimiter(
  store: CacheStore,
  options: { ratePerS: number; burst: number },
): SharedRateLimiter {
  const local = createRateLimiter(options);
  return {
    async take(caller) {
      const shared = await store.takeToken?.(`rate:${caller}`, options.ratePerS, options.burst);
      if (!shared) return local.take(caller);
      return shared.ok
        ? shared
        : { ok: false, retryAfterS: Math.max(1, Math.ceil(shared.retryAfterMs / 1000)) };
    },
  };
}

/** The rate-limit key of a request: a hash of its Authorization header, else its remote address. */
export function callerKey(authorization: string | undefined, remoteAddress: string | undefined): string {
  if (authorization) {
    return `auth:${createHash('sha256').update(authorization).digest('base64url').slice(0, 22)}`;
  }
  return `addr:${remoteAddress ?? 'unknown'}`;
}
