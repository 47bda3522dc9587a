import { LRUCache } from 'lru-cache';
import { type CacheStore, type CacheStoreStats, emptyStats, storableTtlMs } from './cache-store.ts';

export interface MemoryStoreOptions {
  /** Most entries kept; the least recently used goes first. Default 10 000. */
  maxEntries?: number;
  /** Most bytes kept (keys and values, counted as UTF-16). Default 64 MiB. */
  maxBytes?: number;
}

const DEFAULT_MAX_ENTRIES = 10_000;
const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;

/**
 * The in-process store used when no Redis is configured. Bounded twice: by
 * entry count (many small values) and by bytes (a few large ones), so a cache
 * can never grow the heap past what the operator allowed. Expired entries are
 * dropped lazily on read and pushed out by LRU eviction; no timers are kept.
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): CacheStore {
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const counters = emptyStats();
  let closed = false;

  const lru = new LRUCache<string, string>({
    max: maxEntries,
    maxSize: maxBytes,
    // JS strings are UTF-16: two bytes per code unit is what they cost in the heap.
    // lru-cache needs a positive integer, hence the + 1 for empty strings.
    sizeCalculation: (value, key) => (value.length + key.length) * 2 + 1,
  });

  return {
    kind: 'memory',

    async get(key: string): Promise<string | undefined> {
      if (closed) return undefined;
      try {
        const value = lru.get(key);
        if (value === undefined) counters.misses++;
        else counters.hits++;
        return value;
      } catch {
        counters.errors++;
        return undefined;
      }
    },

    set(key: string, value: string, ttlMs: number): void {
      if (closed) return;
      const ttl = storableTtlMs(ttlMs);
      if (ttl === undefined) {
        counters.setsRejected++;
        return;
      }
      try {
        const status: LRUCache.Status<string, string> = {};
        lru.set(key, value, { ttl, status });
        // An entry bigger than maxBytes is silently not stored by lru-cache.
        if (status.maxEntrySizeExceeded) counters.setsRejected++;
        else counters.sets++;
      } catch {
        counters.setErrors++;
      }
    },

    delete(key: string): void {
      if (!closed) lru.delete(key);
    },

    // One process: its callers' own single flight already makes one load per key.
    claim: async () => undefined,
    release: () => {},

    async close(): Promise<void> {
      closed = true;
      lru.clear();
    },

    stats(): CacheStoreStats {
      return { ...counters };
    },
  };
}
