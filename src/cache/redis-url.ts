/**
 * The Redis deployments a `REDIS_URL` can name:
 *
 * - one node: `redis://[user:password@]host:port[/db]`, `rediss://` for TLS (ioredis's own form);
 * - Sentinel: `redis+sentinel://[user:password@]host:port[,host:port…]/<master name>[?…]`, or
 *   `rediss+sentinel://` for TLS to the data nodes; the user and password are the data nodes';
 *   `sentinelPassword` (and `sentinelUsername`) in the query authenticate to the sentinels,
 *   `db` selects a database;
 * - Cluster: `redis-cluster://[user:password@]host:port[,host:port…]` (seed nodes; the rest are
 *   discovered), or `rediss-cluster://` for TLS.
 *
 * Every form keeps the same bounded per-node settings (`redisOptions`), so Redis trouble stays a
 * fast miss whatever the deployment. Every key the gateway uses is a single key per command, so
 * nothing needs a hash tag to stay in one Cluster slot.
 *
 * These helpers do not import ioredis, so settings validation and log redaction do not load it
 * in a gateway without Redis; connecting is src/cache/redis-connection.ts.
 */
export type RedisDeployment =
  | { kind: 'node'; url: string }
  | {
      kind: 'sentinel';
      sentinels: Array<{ host: string; port: number }>;
      name: string;
      tls: boolean;
      username?: string;
      password?: string;
      sentinelUsername?: string;
      sentinelPassword?: string;
      db?: number;
    }
  | {
      kind: 'cluster';
      nodes: Array<{ host: string; port: number }>;
      tls: boolean;
      username?: string;
      password?: string;
    };

const SCHEME = /^(rediss?)(\+sentinel|-cluster)?:\/\//i;

/** Whether `url` is one of the forms above (for settings validation). */
export function isRedisUrl(url: string): boolean {
  return SCHEME.test(url);
}

/**
 * Every secret a REDIS_URL holds, for the log redactor: the data nodes' password and, for
 * Sentinel, the sentinels' (`sentinelPassword`). Multi-host URLs are no WHATWG URLs, so they
 * are read the way connectRedis reads them; a URL that does not parse holds nothing to hide
 * that the settings check has not already refused.
 */
export function redisSecrets(url: string | undefined): string[] {
  if (!url) return [];
  try {
    const deployment = parseRedisUrl(url);
    if (deployment.kind === 'node') {
      const { password } = new URL(url);
      return password ? [decodeURIComponent(password)] : [];
    }
    return [
      deployment.password,
      deployment.kind === 'sentinel' ? deployment.sentinelPassword : undefined,
    ].filter((value): value is string => value !== undefined && value.length > 0);
  } catch {
    return [];
  }
}

/** Parses a REDIS_URL; throws a message naming the expected form when it is not one. */
export function parseRedisUrl(url: string): RedisDeployment {
  const scheme = SCHEME.exec(url);
  if (!scheme)
    throw new Error('REDIS_URL must start with redis://, rediss://, redis+sentinel:// or redis-cluster://.');
  const tls = scheme[1]!.toLowerCase() === 'rediss';
  const variant = scheme[2]?.toLowerCase();
  if (!variant) return { kind: 'node', url };
  // Several host:port pairs are not a URL authority: split them off before URL parsing.
  const rest = url.slice(scheme[0].length);
  const at = rest.lastIndexOf('@', rest.search(/[/?]|$/));
  const userinfo = at >= 0 ? rest.slice(0, at) : '';
  const afterUser = at >= 0 ? rest.slice(at + 1) : rest;
  const hostsEnd = afterUser.search(/[/?]|$/);
  const hosts = afterUser
    .slice(0, hostsEnd)
    .split(',')
    .map((pair) => {
      const m = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(pair.trim());
      if (!m) throw new Error(`REDIS_URL: '${pair}' is not host:port.`);
      return { host: m[1]!.replace(/^\[|\]$/g, ''), port: Number(m[2]) };
    });
  const tail = new URL(`http://x${afterUser.slice(hostsEnd)}`);
  const [rawUser, ...rawPassword] = userinfo.split(':');
  const credentials = {
    ...(rawUser ? { username: decodeURIComponent(rawUser) } : {}),
    ...(rawPassword.length > 0 ? { password: decodeURIComponent(rawPassword.join(':')) } : {}),
  };
  if (variant === '-cluster') return { kind: 'cluster', nodes: hosts, tls, ...credentials };
  const name = decodeURIComponent(tail.pathname.replace(/^\//, ''));
  if (!name)
    throw new Error(
      'REDIS_URL: a Sentinel URL names its master after the hosts, e.g. redis+sentinel://s1:26379,s2:26379/mymaster.',
    );
  const query = tail.searchParams;
  const db = query.get('db');
  return {
    kind: 'sentinel',
    sentinels: hosts,
    name,
    tls,
    ...credentials,
    ...(query.get('sentinelUsername') ? { sentinelUsername: query.get('sentinelUsername')! } : {}),
    ...(query.get('sentinelPassword') ? { sentinelPassword: query.get('sentinelPassword')! } : {}),
    ...(db !== null ? { db: Number(db) } : {}),
  };
}
