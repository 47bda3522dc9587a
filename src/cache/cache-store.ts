/**
 * The contract every step-cache backend fulfils. A cache is an optimisation:
 * when the store is slow, down or full, the step runs against the backend as
 * if nothing were cached. So a store never throws and never makes a caller
 * wait longer than its own budget (RELIABILITY E7, F2, F3).
 */

export interface CacheStoreStats {
  /** `get` found a value. */
  hits: number;
  /** `get` asked the store and found nothing. */
  misses: number;
  /** `get` failed (connection lost, server error): answered as a miss. */
  errors: number;
  /** `get` outran its budget: answered as a miss. */
  timeouts: number;
  /** `get` or `set` not attempted because the breaker is open. */
  skipped: number;
  /** `get` or `set` not attempted because the store was not connected and ready. */
  unavailable: number;
  /** `set` handed to the store. */
  sets: number;
  /** `set` failed or timed out (swallowed). */
  setErrors: number;
  /** `set` refused by the store itself (entry over the size bound, invalid TTL). */
  setsRejected: number;
  /** How many times the breaker opened. */
  breakerOpens: number;
}

export interface CacheStore {
  readonly kind: 'memory' | 'redis';
  /** Resolves the stored string, or `undefined` on a miss of any kind. Never rejects. */
  get(key: string): Promise<string | undefined>;
  /**
   * Stores `value` for `ttlMs` milliseconds. Fire-and-forget: the response path
   * never waits on a cache write, and its failures are swallowed and counted.
   */
  set(key: string, value: string, ttlMs: number): void;
  /** Removes `key` (fire-and-forget, like `set`): an entry the step cache refused to serve. */
  delete(key: string): void;
  /**
   * Takes a short lease on `key` for `ttlMs` (one replica fetches, the others wait
   * for its result): true when this caller now holds it, false when another does,
   * undefined when the store cannot tell (down, slow, or private to one process — there
   * the callers' own single flight already makes one fetch): then the caller goes ahead.
   */
  claim(key: string, ttlMs: number): Promise<boolean | undefined>;
  /** Gives a lease up before it expires (fire-and-forget, like `set`). */
  release(key: string): void;
  /**
   * Takes one token from the bucket `key` (`ratePerS` a second, up to `burst`) shared by
   * every replica using this store, in one atomic round trip. Undefined when the store
   * cannot say (a store private to the process, or Redis down or slow): the caller then
   * uses its own in-process bucket.
   */
  takeToken?(key: string, ratePerS: number, burst: number): Promise<TokenVerdict | undefined>;
  /**
   * Counts one use against fixed windows (e.g. this minute and this day), all or none:
   * `ok` when every window is under its limit, else how long until the fullest one ends.
   * One atomic round trip; undefined when the store cannot say (then count in process).
   */
  takeQuota?(key: string, windows: readonly QuotaWindow[]): Promise<TokenVerdict | undefined>;
  /** Releases connections and timers; later calls are misses and no-ops. */
  close(): Promise<void>;
  /** A snapshot of the counters since the store was created. */
  stats(): CacheStoreStats;
}

export type TokenVerdict = { ok: true } | { ok: false; retryAfterMs: number };

export interface QuotaWindow {
  windowMs: number;
  limit: number;
}

export function emptyStats(): CacheStoreStats {
  return {
    hits: 0,
    misses: 0,
    errors: 0,
    timeouts: 0,
    skipped: 0,
    unavailable: 0,
    sets: 0,
    setErrors: 0,
    setsRejected: 0,
    breakerOpens: 0,
  };
}

/** Store TTLs are whole milliseconds ≥ 1; anything else is not storable. */
export function storableTtlMs(ttlMs: number): number | undefined {
  if (!Number.isFinite(ttlMs) || ttlMs < 1) return undefined;
  return Math.floor(ttlMs);
}
