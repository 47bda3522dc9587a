import { type CacheKeyInput, cacheKey } from './cache-key.ts';
import type { CacheStore } from './cache-store.ts';
import { decodeEnvelope, encodeEnvelope, envelopeMacKey } from './envelope.ts';

export interface StepCacheOptions {
  /** Server secret: keys caller-scoped entries (HMAC of the credential identity). */
  secret: string;
  /** Largest serialized envelope stored, in UTF-8 bytes. Default 512 KiB (E9). */
  maxValueBytes?: number;
  /** Stored TTL = ttl × U(1 − jitter, 1 + jitter), so keys written together expire apart (E5). Default 0.1. */
  jitter?: number;
  /** Upper bound on any stored TTL, after jitter. Default 30 days. */
  maxTtlMs?: number;
  /** Uniform [0, 1) source for the jitter. Default Math.random. */
  random?: () => number;
  /** Wall clock for an envelope's `createdAt` and `expiresAt`, and for checking the latter on read. Default Date.now. */
  now?: () => number;
  /**
   * Across replicas: how long a cold key's lease is held by the replica loading it
   * (it is released as soon as the load settles), and how long the others wait for
   * its answer before loading themselves. Defaults 10 000 and 3 000 ms.
   */
  leaseMs?: number;
  leaseWaitMs?: number;
}

/**
 * `hit`: read from the store. `miss`: this call ran `load`. `shared`: this call
 * joined a load another call had started (single flight), in this process or,
 * through the store's lease, on another replica.
 */
export type StepCacheOutcome = 'hit' | 'miss' | 'shared';

export interface StepCacheResult<T> {
  value: T;
  outcome: StepCacheOutcome;
}

export interface LoadResult<T> {
  value: T;
  /** Whether this answer may be stored (e.g. false for 5xx, partial, no-store: E3). */
  cacheable: boolean;
  /** Keeps this answer for this long instead of the `ttlMs` asked for, e.g. a short negative TTL (E4). */
  ttlMs?: number;
  /**
   * Strings that must never reach the store: the credentials the load held or sent, in
   * each form they take inside JSON. An answer whose stored form holds one is served but
   * not stored, so whoever reads the store (a Redis dump, a replica, a backup) never finds
   * a credential in it.
   */
  secrets?: Iterable<string>;
}

export interface StepCacheStats {
  hits: number;
  misses: number;
  shared: number;
  /** `load` calls, and how many of them rejected. */
  loads: number;
  loadFailures: number;
  /** Values handed to the store. */
  stored: number;
  /** `load` said the value may not be stored. */
  uncacheable: number;
  /** Not JSON data (BigInt, cycle, too deep, undefined): served but not stored. */
  unserializable: number;
  /** Serialized value over maxValueBytes: served but not stored. */
  oversize: number;
  /** TTL that is not a positive finite number: served but not stored. */
  invalidTtl: number;
  /** Held one of its load's `secrets` (a backend echoing a credential): served but not stored. */
  secretsWithheld: number;
  /**
   * Stored value that failed its MAC (forged, altered, written without the secret), failed
   * to parse or whose envelope names another key: treated as a miss.
   */
  integrityViolations: number;
  /**
   * Authentic stored value past the expiry its envelope carries, whatever the store's TTL
   * said (copied back, `PERSIST`ed, restored): refused, deleted, and treated as a miss.
   */
  expired: number;
  /** Authentic stored value in the previous envelope format (no expiry in it): a miss. */
  previousFormat: number;
  /** Loads running now. */
  inFlight: number;
}

interface Flight {
  value: unknown;
  outcome: 'hit' | 'miss' | 'remote';
}

const DEFAULT_MAX_VALUE_BYTES = 512 * 1024;
const DEFAULT_JITTER = 0.1;
const DEFAULT_MAX_TTL_MS = 30 * 24 * 60 * 60 * 1000;
const DEFAULT_LEASE_MS = 10_000;
const DEFAULT_LEASE_WAIT_MS = 3000;
const LEASE_POLL_MS = 25;

/**
 * The cache in front of step calls: looks a key up in the store, otherwise
 * runs the step once per key however many invocations ask at the same time,
 * and stores the answer when the step says it may.
 *
 * Single flight is per process (E6) and, through a short lease in the store,
 * across replicas: the replica holding a cold key's lease loads it;
 * the others poll the store for its answer, and load themselves when the lease
 * is released without one (the load failed or was not cacheable), expires (the
 * holder died) or the wait passes its bound. The store never throws, so a cache
 * outage only costs the load it would have saved (E7, E8).
 */
export class StepCache {
  readonly #store: CacheStore;
  readonly #secret: string;
  readonly #macKey: Buffer;
  readonly #maxValueBytes: number;
  readonly #jitter: number;
  readonly #maxTtlMs: number;
  readonly #random: () => number;
  readonly #now: () => number;
  readonly #leaseMs: number;
  readonly #leaseWaitMs: number;
  readonly #inFlight = new Map<string, Promise<Flight>>();
  readonly #counters = {
    hits: 0,
    misses: 0,
    shared: 0,
    loads: 0,
    loadFailures: 0,
    stored: 0,
    uncacheable: 0,
    unserializable: 0,
    oversize: 0,
    invalidTtl: 0,
    secretsWithheld: 0,
    integrityViolations: 0,
    expired: 0,
    previousFormat: 0,
  };

  constructor(store: CacheStore, options: StepCacheOptions) {
    if (!options.secret) throw new TypeError('StepCache: a non-empty secret is required');
    const jitter = options.jitter ?? DEFAULT_JITTER;
    if (!(jitter >= 0 && jitter < 1)) throw new RangeError('StepCache: jitter must be in [0, 1)');
    this.#store = store;
    this.#secret = options.secret;
    this.#macKey = envelopeMacKey(options.secret);
    this.#maxValueBytes = options.maxValueBytes ?? DEFAULT_MAX_VALUE_BYTES;
    this.#jitter = jitter;
    this.#maxTtlMs = options.maxTtlMs ?? DEFAULT_MAX_TTL_MS;
    this.#random = options.random ?? Math.random;
    this.#now = options.now ?? Date.now;
    this.#leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.#leaseWaitMs = options.leaseWaitMs ?? DEFAULT_LEASE_WAIT_MS;
  }

  /** The key for one step call under this cache's secret (see `cacheKey`). */
  keyFor(input: CacheKeyInput): string {
    return cacheKey(input, this.#secret);
  }

  /**
   * Looks up `key`; on a miss runs `load` once per key even under concurrency.
   * Concurrent callers share one promise (lookup included), so they all get
   * the same value, or all get the same rejection. A rejection is not cached:
   * the in-flight entry is removed when the load settles and the next call
   * loads again. The stored TTL is `ttlMs` jittered and capped at maxTtlMs.
   *
   * Callers that joined a load receive the very same value object: treat it
   * as read-only.
   */
  getOrLoad<T>(key: string, ttlMs: number, load: () => Promise<LoadResult<T>>): Promise<StepCacheResult<T>> {
    const running = this.#inFlight.get(key);
    if (running) {
      return running.then((flight) => {
        // Joining a lookup that found the value is a hit, not a shared load.
        if (flight.outcome === 'hit') {
          this.#counters.hits++;
          return { value: flight.value as T, outcome: 'hit' };
        }
        this.#counters.shared++;
        return { value: flight.value as T, outcome: 'shared' };
      });
    }
    const flight = this.#fly(key, ttlMs, load);
    this.#inFlight.set(key, flight);
    // Registered before any caller's reaction, so the entry is gone by the time
    // any waiter resumes: a retry after a rejection always starts a new load.
    const forget = (): void => {
      if (this.#inFlight.get(key) === flight) this.#inFlight.delete(key);
    };
    flight.then(forget, forget);
    return flight.then((f) => ({
      value: f.value as T,
      outcome: f.outcome === 'remote' ? 'shared' : f.outcome,
    }));
  }

  stats(): StepCacheStats {
    return { ...this.#counters, inFlight: this.#inFlight.size };
  }

  async #fly<T>(key: string, ttlMs: number, load: () => Promise<LoadResult<T>>): Promise<Flight> {
    const cached = await this.#read(key);
    if (cached.found) {
      this.#counters.hits++;
      return { value: cached.value, outcome: 'hit' };
    }
    // The key inside braces is the lease's Redis Cluster hash tag: a key without braces is
    // hashed whole, so the lease lands in the value's slot, and the holder's write-then-release
    // on one connection reaches one shard in order (a waiter that sees the lease free reads
    // the value first, see #readAgain).
    const lease = `lease:{${key}}`;
    const claimed = await this.#claim(lease);
    // true: held, though a holder may have finished just before; false: another replica
    // loads; undefined: the store cannot tell (private to this process, or degraded).
    const remote =
      claimed === true
        ? await this.#readAgain(key, lease)
        : claimed === false
          ? await this.#awaitHolder(key, lease)
          : ({ found: false } as const);
    if (remote.found) {
      this.#counters.shared++;
      return { value: remote.value, outcome: 'remote' };
    }
    this.#counters.misses++;
    this.#counters.loads++;
    let result: LoadResult<T>;
    try {
      result = await load();
    } catch (err) {
      this.#counters.loadFailures++;
      this.#release(lease);
      throw err;
    }
    if (result.cacheable) this.#write(key, result.ttlMs ?? ttlMs, result.value, result.secrets ?? []);
    else this.#counters.uncacheable++;
    // After the write was handed over: a waiter that finds the lease free reads the value first.
    this.#release(lease);
    return { value: result.value, outcome: 'miss' };
  }

  async #claim(lease: string): Promise<boolean | undefined> {
    try {
      return await this.#store.claim(lease, this.#leaseMs);
    } catch {
      return undefined;
    }
  }

  #release(lease: string): void {
    try {
      this.#store.release(lease);
    } catch {
      // A store that throws breaks its contract; the lease then just expires.
    }
  }

  /**
   * Another replica holds the lease: poll for its answer until it is stored, or the
   * lease is free again (this call then holds it and loads), or the wait's bound.
   */
  async #awaitHolder(
    key: string,
    lease: string,
  ): Promise<{ found: true; value: unknown } | { found: false }> {
    const until = Date.now() + this.#leaseWaitMs;
    while (Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, LEASE_POLL_MS));
      const stored = await this.#read(key);
      if (stored.found) return stored;
      const claimed = await this.#claim(lease);
      if (claimed === true) return this.#readAgain(key, lease);
      if (claimed === undefined) return { found: false };
    }
    return { found: false };
  }

  /**
   * Just after taking the lease: a holder that finished between our read and our claim
   * wrote its value before releasing (one connection, in order), so one more read finds it
   * and spares a second load.
   */
  async #readAgain(key: string, lease: string): Promise<{ found: true; value: unknown } | { found: false }> {
    const stored = await this.#read(key);
    if (stored.found) this.#release(lease);
    return stored;
  }

  async #read(key: string): Promise<{ found: true; value: unknown } | { found: false }> {
    let raw: string | undefined;
    try {
      raw = await this.#store.get(key);
    } catch {
      // Stores are built never to throw; one that does still only costs a miss.
      return { found: false };
    }
    if (raw === undefined) return { found: false };
    const decoded = decodeEnvelope(raw, key, this.#macKey, this.#now());
    if (!decoded.ok) {
      if (decoded.reason === 'expired') {
        this.#counters.expired++;
        // Fire-and-forget. Should a fresh value have landed since the read, deleting it only
        // costs one more load: the load this miss starts writes a value again.
        try {
          this.#store.delete(key);
        } catch {
          // A store that throws breaks its contract; the entry is refused again on its next read.
        }
      } else if (decoded.reason === 'format') {
        this.#counters.previousFormat++;
      } else {
        this.#counters.integrityViolations++;
      }
      return { found: false };
    }
    return { found: true, value: decoded.value };
  }

  #write(key: string, ttlMs: number, value: unknown, secrets: Iterable<string>): void {
    const ttl = this.#storedTtl(ttlMs);
    if (ttl === undefined) {
      this.#counters.invalidTtl++;
      return;
    }
    let json: string;
    try {
      const createdAt = this.#now();
      // The envelope expires with the key: the store's TTL and the envelope agree, and only
      // the envelope's, inside the MAC, is trusted on read.
      json = encodeEnvelope(key, value, { createdAt, expiresAt: createdAt + ttl }, this.#macKey);
    } catch {
      this.#counters.unserializable++;
      return;
    }
    // UTF-8 takes at least one byte per UTF-16 code unit: a long string is
    // over the cap without counting its bytes.
    if (json.length > this.#maxValueBytes || Buffer.byteLength(json, 'utf8') > this.#maxValueBytes) {
      this.#counters.oversize++;
      return;
    }
    // Searched in the very string the store would keep.
    for (const secret of secrets) {
      if (secret !== '' && json.includes(secret)) {
        this.#counters.secretsWithheld++;
        return;
      }
    }
    try {
      this.#store.set(key, json, ttl);
      this.#counters.stored++;
    } catch {
      // set is fire-and-forget and built never to throw; a broken store is a skipped write.
    }
  }

  #storedTtl(ttlMs: number): number | undefined {
    if (!Number.isFinite(ttlMs) || ttlMs <= 0) return undefined;
    const factor = 1 + this.#jitter * (2 * this.#random() - 1);
    const ttl = Math.floor(Math.min(ttlMs * factor, this.#maxTtlMs));
    return ttl >= 1 ? ttl : undefined;
  }
}
