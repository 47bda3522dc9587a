import type { RedisOptions } from 'ioredis';
import { createBreaker } from './breaker.ts';
import { connectRedis } from './redis-connection.ts';
import {
  type CacheStore,
  type CacheStoreStats,
  emptyStats,
  type QuotaWindow,
  storableTtlMs,
  type TokenVerdict,
} from './cache-store.ts';

export interface RedisStoreOptions {
  /** Longest a `get` may make its caller wait; past it the answer is a miss. Default 50 ms. */
  getBudgetMs?: number;
  /** ioredis `commandTimeout`: bounds every command, SETs included. Default 100 ms. */
  commandTimeoutMs?: number;
  /** ioredis `socketTimeout`: a connection with replies owed and silent this long is dropped and redialled. Default 2 000 ms. */
  socketTimeoutMs?: number;
  /** Prepended to every key, e.g. per environment. Default none. */
  keyPrefix?: string;
  /** Told about connection and command errors, at most once per `errorReportIntervalMs`. */
  onError?: (err: Error) => void;
  /** Default 10 000 ms. A Redis that is down fails every reconnect: one report per interval is enough. */
  errorReportIntervalMs?: number;
  /** Consecutive errors or timeouts that open the breaker. Default 5. */
  breakerThreshold?: number;
  /** How long an open breaker skips Redis. Default 10 000 ms. */
  breakerCooldownMs?: number;
}

export interface RedisOptionsInput {
  connectTimeoutMs?: number;
  commandTimeoutMs?: number;
  socketTimeoutMs?: number;
}

/**
 * A token bucket in one hash (`tokens`, `at`), refilled by elapsed time on Redis's own
 * clock (so replicas' clocks do not matter), one token taken when there is one.
 * Returns {1, 0} or {0, ms until the next token}. One key: Cluster-safe.
 */
const TAKE_TOKEN_LUA = `
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local b = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(b[1]) or burst
local at = tonumber(b[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
local ok = 0
local wait = 0
if tokens >= 1 then
  tokens = tokens - 1
  ok = 1
else
  wait = math.ceil((1 - tokens) / rate)
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {ok, wait}
`;

/**
 * Fixed windows, one key each (INCR, expiring a window after its first use): counted only
 * when every window is under its limit, so a refused call uses up nothing. Returns {1, 0},
 * or {0, ms until the full window ends}.
 */
const TAKE_QUOTA_LUA = `
for i, key in ipairs(KEYS) do
  local current = tonumber(redis.call('GET', key) or '0')
  if current >= tonumber(ARGV[2 * i - 1]) then
    local ttl = redis.call('PTTL', key)
    if ttl < 0 then ttl = tonumber(ARGV[2 * i]) end
    return {0, ttl}
  end
end
for i, key in ipairs(KEYS) do
  if redis.call('INCR', key) == 1 then redis.call('PEXPIRE', key, ARGV[2 * i]) end
end
return {1, 0}
`;

/**
 * Reconnect delay: full jitter over an exponential curve capped at 2 s, so
 * replicas that lost Redis together do not redial together (RELIABILITY F4). It never
 * returns null: null tells ioredis to give up on the connection for good.
 */
export function retryDelayMs(attempt: number): number {
  return Math.floor(Math.random() * Math.min(2000, 50 * 2 ** attempt));
}

/**
 * The ioredis settings for a cache that must never block a request
 * (RELIABILITY §F and M3). Exported so a test pins them (RELIABILITY F1).
 */
export function redisOptions(input: RedisOptionsInput = {}): RedisOptions {
  return {
    // Default 10 s: a dead host would hold the first connection attempt that long.
    connectTimeout: input.connectTimeoutMs ?? 1000,
    // Default none: a Redis that is ready and then stalls hangs a command forever.
    // Not below ~50 ms, or the INFO ready check times out and reconnects in a loop (ioredis #1431).
    commandTimeout: input.commandTimeoutMs ?? 100,
    // Not in §F: with replies owed and no byte back for this long, the connection is
    // treated as dead and redialled. Without it a half-open TCP flow stays "ready"
    // until the kernel gives up retransmitting (minutes), and the cache stays dark.
    socketTimeout: input.socketTimeoutMs ?? 2000,
    // Default true: commands would queue while disconnected. False fails them at once.
    enableOfflineQueue: false,
    // Default 20: 10.5 s per command while Redis is down (RELIABILITY M3).
    maxRetriesPerRequest: 1,
    // Default true: commands in flight at a disconnect would be re-sent after the
    // reconnect, writing stale values long after their caller gave up (ioredis #2130).
    autoResendUnfulfilledCommands: false,
    enableReadyCheck: true,
    keepAlive: 30_000,
    retryStrategy: retryDelayMs,
    reconnectOnError: null,
    // Connect at creation so Redis is usually ready by the first request; until
    // then reads are misses (RELIABILITY F2), which is also what lazy connecting would give.
    lazyConnect: false,
  };
}

export interface RedisCacheStore extends CacheStore {
  readonly kind: 'redis';
  /** Whether the connection is up and past the ready check. */
  isReady(): boolean;
  /** Resolves true once ready, or false after `timeoutMs`. Never rejects. */
  waitUntilReady(timeoutMs: number): Promise<boolean>;
}

/**
 * A Redis-backed store whose reads are bounded by `getBudgetMs` whatever Redis
 * does (refuses, accepts and stays silent, stalls after ready, restarts), and
 * whose writes are fire-and-forget. Failures are misses; after
 * `breakerThreshold` consecutive failures Redis is skipped for
 * `breakerCooldownMs` (E7).
 */
export function createRedisStore(url: string, options: RedisStoreOptions = {}): RedisCacheStore {
  const getBudgetMs = options.getBudgetMs ?? 50;
  const prefix = options.keyPrefix ?? '';
  const reportIntervalMs = options.errorReportIntervalMs ?? 10_000;
  const counters = emptyStats();
  const breaker = createBreaker({
    threshold: options.breakerThreshold ?? 5,
    cooldownMs: options.breakerCooldownMs ?? 10_000,
  });
  let closed = false;
  let lastReportAt = Number.NEGATIVE_INFINITY;

  // A down Redis emits an error on every reconnect attempt; pass on one per
  // interval so the log shows the outage without being flooded by it.
  function report(err: unknown): void {
    if (!options.onError) return;
    const at = performance.now();
    if (at - lastReportAt < reportIntervalMs) return;
    lastReportAt = at;
    try {
      options.onError(err instanceof Error ? err : new Error(String(err)));
    } catch {
      // A failing reporter must not turn a cache error into a request error.
    }
  }

  const client = connectRedis(
    url,
    redisOptions({
      ...(options.commandTimeoutMs === undefined ? {} : { commandTimeoutMs: options.commandTimeoutMs }),
      ...(options.socketTimeoutMs === undefined ? {} : { socketTimeoutMs: options.socketTimeoutMs }),
    }),
  );
  // Without an 'error' listener ioredis prints every connection error to the console.
  client.on('error', report);
  // One atomic round trip per rate-limit decision (EVALSHA, loaded once per connection).
  client.defineCommand('sculptorTakeToken', { numberOfKeys: 1, lua: TAKE_TOKEN_LUA });
  client.defineCommand('sculptorTakeQuota', { lua: TAKE_QUOTA_LUA });
  const takeTokenCommand = (
    client as unknown as {
      sculptorTakeToken(
        key: string,
        ratePerMs: string,
        burst: string,
        ttlMs: string,
      ): Promise<[number, number]>;
    }
  ).sculptorTakeToken.bind(client);
  const takeQuotaCommand = (
    client as unknown as {
      sculptorTakeQuota(keyCount: number, ...args: string[]): Promise<[number, number]>;
    }
  ).sculptorTakeQuota.bind(client);

  /** A script call bounded like a read: past the budget, or failing, the answer is "cannot say". */
  function bounded<T>(run: () => Promise<T>): Promise<T | undefined> {
    if (!isReady() || !breaker.allow()) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        counters.timeouts++;
        breaker.failure();
        resolve(undefined);
      }, getBudgetMs);
      const settle = (value: T | undefined) => {
        clearTimeout(timer);
        resolve(value);
      };
      try {
        run().then(
          (value) => {
            breaker.success();
            settle(value);
          },
          (err: unknown) => {
            counters.errors++;
            breaker.failure();
            report(err);
            settle(undefined);
          },
        );
      } catch (err) {
        report(err);
        settle(undefined);
      }
    });
  }

  const isReady = (): boolean => !closed && client.status === 'ready';

  function remove(key: string): void {
    if (!isReady() || !breaker.allow()) return;
    try {
      client.del(prefix + key).then(
        () => breaker.success(),
        (err: unknown) => report(err),
      );
    } catch (err) {
      report(err);
    }
  }

  return {
    kind: 'redis',

    get(key: string): Promise<string | undefined> {
      // Before ready (boot, reconnect) there is nothing to wait for: miss at once (RELIABILITY F2).
      if (!isReady()) {
        if (!closed) counters.unavailable++;
        return Promise.resolve(undefined);
      }
      if (!breaker.allow()) {
        counters.skipped++;
        return Promise.resolve(undefined);
      }
      return new Promise((resolve) => {
        let settled = false;
        const finish = (value: string | undefined): void => {
          settled = true;
          clearTimeout(timer);
          resolve(value);
        };
        // The budget is shorter than commandTimeout: the caller stops waiting here,
        // ioredis still settles the command later and that late answer is ignored.
        const timer = setTimeout(() => {
          if (settled) return;
          counters.timeouts++;
          breaker.failure();
          report(new Error(`Redis GET exceeded its ${getBudgetMs} ms budget`));
          finish(undefined);
        }, getBudgetMs);
        const onValue = (value: string | null): void => {
          if (settled) return;
          breaker.success();
          if (value === null) counters.misses++;
          else counters.hits++;
          finish(value ?? undefined);
        };
        const onError = (err: unknown): void => {
          if (settled) return;
          counters.errors++;
          breaker.failure();
          report(err);
          finish(undefined);
        };
        try {
          client.get(prefix + key).then(onValue, onError);
        } catch (err) {
          onError(err);
        }
      });
    },

    set(key: string, value: string, ttlMs: number): void {
      const ttl = storableTtlMs(ttlMs);
      if (ttl === undefined) {
        counters.setsRejected++;
        return;
      }
      if (!isReady()) {
        if (!closed) counters.unavailable++;
        return;
      }
      if (!breaker.allow()) {
        counters.skipped++;
        return;
      }
      counters.sets++;
      const onError = (err: unknown): void => {
        counters.setErrors++;
        breaker.failure();
        report(err);
      };
      try {
        // Bounded by commandTimeout; not replayed after a reconnect (autoResendUnfulfilledCommands).
        client.set(prefix + key, value, 'PX', ttl).then(() => breaker.success(), onError);
      } catch (err) {
        onError(err);
      }
    },

    claim(key: string, ttlMs: number): Promise<boolean | undefined> {
      const ttl = storableTtlMs(ttlMs);
      // Redis unreachable, slow or just failing: no lease can be taken, so the caller goes
      // ahead itself at once rather than spend a second budget on a degraded Redis.
      if (ttl === undefined) return Promise.resolve(undefined);
      // Counted like a read's, so that the metrics show a lease Redis could not give.
      if (!isReady()) {
        if (!closed) counters.unavailable++;
        return Promise.resolve(undefined);
      }
      if (breaker.failing || !breaker.allow()) {
        counters.skipped++;
        return Promise.resolve(undefined);
      }
      return new Promise((resolve) => {
        let settled = false;
        const settle = (held: boolean | undefined) => {
          settled = true;
          clearTimeout(timer);
          resolve(held);
        };
        // Past the budget the caller goes ahead and Redis's late answer is ignored. Counted, but
        // not held against the breaker: a lease only saves duplicate loads, and a burst of slow
        // claims (200 cold keys at once on a loaded machine) must not switch the cache's writes off.
        const timer = setTimeout(() => {
          counters.timeouts++;
          settle(undefined);
        }, getBudgetMs);
        try {
          client.set(prefix + key, '1', 'PX', ttl, 'NX').then(
            (answer) => {
              if (settled) return;
              breaker.success();
              settle(answer === 'OK');
            },
            (err: unknown) => {
              if (settled) return;
              counters.errors++;
              breaker.failure();
              report(err);
              settle(undefined);
            },
          );
        } catch (err) {
          report(err);
          settle(undefined);
        }
      });
    },

    async takeToken(key: string, ratePerS: number, burst: number): Promise<TokenVerdict | undefined> {
      // A full bucket refills in burst / rate seconds: the key may go after that.
      const ttlMs = Math.ceil((burst / ratePerS) * 1000) + 1000;
      const answer = await bounded(() =>
        takeTokenCommand(prefix + key, String(ratePerS / 1000), String(burst), String(ttlMs)),
      );
      if (!answer) return undefined;
      return answer[0] === 1 ? { ok: true } : { ok: false, retryAfterMs: answer[1] };
    },

    async takeQuota(key: string, windows: readonly QuotaWindow[]): Promise<TokenVerdict | undefined> {
      // One hash tag for all the windows' keys: one slot, so one script in Redis Cluster too.
      const keys = windows.map((w) => `${prefix}{quota:${key}}:${w.windowMs}`);
      const args = windows.flatMap((w) => [String(w.limit), String(w.windowMs)]);
      const answer = await bounded(() => takeQuotaCommand(keys.length, ...keys, ...args));
      if (!answer) return undefined;
      return answer[0] === 1 ? { ok: true } : { ok: false, retryAfterMs: answer[1] };
    },

    // A lease given up and a refused entry are both a plain DEL. One that fails costs nothing:
    // the lease expires, and the entry is refused (and deleted) again on its next read.
    release: remove,
    delete: remove,

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      // QUIT lets Redis finish what it has; bounded so shutdown never hangs on a stalled server.
      if (client.status === 'ready') {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          client.quit().catch(() => undefined),
          new Promise((resolve) => {
            timer = setTimeout(resolve, 200);
          }),
        ]);
        clearTimeout(timer);
      }
      client.disconnect();
    },

    stats(): CacheStoreStats {
      return { ...counters, breakerOpens: breaker.opens };
    },

    isReady,

    waitUntilReady(timeoutMs: number): Promise<boolean> {
      if (isReady()) return Promise.resolve(true);
      if (closed) return Promise.resolve(false);
      return new Promise((resolve) => {
        const done = (ready: boolean): void => {
          clearTimeout(timer);
          client.off('ready', onReady);
          resolve(ready);
        };
        const onReady = (): void => done(true);
        const timer = setTimeout(() => done(isReady()), timeoutMs);
        client.on('ready', onReady);
      });
    },
  };
}
