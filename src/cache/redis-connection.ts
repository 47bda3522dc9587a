import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { parseRedisUrl } from './redis-url.ts';

/** A client for any deployment src/cache/redis-url.ts describes. */
export type RedisClient = Redis | Cluster;

/** Connects to the deployment `url` names, every node with `options`. */
export function connectRedis(url: string, options: RedisOptions): RedisClient {
  const deployment = parseRedisUrl(url);
  if (deployment.kind === 'node') return new Redis(url, options);
  const auth = {
    ...(deployment.username ? { username: deployment.username } : {}),
    ...(deployment.password ? { password: deployment.password } : {}),
  };
  if (deployment.kind === 'sentinel') {
    return new Redis({
      ...options,
      ...auth,
      sentinels: deployment.sentinels,
      name: deployment.name,
      ...(deployment.sentinelUsername ? { sentinelUsername: deployment.sentinelUsername } : {}),
      ...(deployment.sentinelPassword ? { sentinelPassword: deployment.sentinelPassword } : {}),
      ...(deployment.db !== undefined ? { db: deployment.db } : {}),
      ...(deployment.tls ? { tls: {}, enableTLSForSentinelMode: true } : {}),
      // A sentinel that does not answer is skipped quickly for the next.
      sentinelRetryStrategy: (attempt: number) => Math.min(2000, 50 * 2 ** attempt),
      // After a failover, reconnect to the new primary instead of erroring on READONLY.
      reconnectOnError: (err: Error) => /READONLY/.test(err.message),
    });
  }
  const { retryStrategy, enableOfflineQueue, ...nodeOptions } = options;
  return new Cluster(deployment.nodes, {
    redisOptions: { ...nodeOptions, ...auth, ...(deployment.tls ? { tls: {} } : {}) },
    enableOfflineQueue: enableOfflineQueue ?? false,
    enableReadyCheck: true,
    clusterRetryStrategy: retryStrategy ? (attempt: number) => retryStrategy(attempt) ?? 1000 : undefined,
    // A moved slot (failover, resharding) is followed at once; the slots are refreshed meanwhile.
    maxRedirections: 4,
    retryDelayOnFailover: 100,
    retryDelayOnClusterDown: 100,
    slotsRefreshTimeout: 1000,
  });
}
