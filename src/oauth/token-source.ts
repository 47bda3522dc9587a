import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { CacheStore } from '../cache/cache-store.ts';
import { type IssuedToken, requestToken, type TokenRequest } from './request-token.ts';

/**
 * Access tokens for backends, fetched as rarely as their lifetimes allow:
 * kept in this process until shortly before they expire, shared with the other
 * replicas through the cache store (Redis) so N replicas do not fetch N tokens, one
 * fetch at a time per token in a process (single flight) and — through a short lease
 * in the store — across replicas. A backend's 401 drops the token it refused.
 *
 * Nothing is kept in clear outside this process: store keys are HMACs of what the
 * token is for (the user's subject included), and stored tokens are sealed with
 * AES-256-GCM under a key derived from SCULPTOR_SECRET.
 */
export interface TokenSource {
  /** A Bearer token for `request`, fetched when none is kept or the kept one is about to expire. */
  token(request: TokenRequest, signal?: AbortSignal): Promise<string>;
  /** Forget `token` (a backend refused it): the next `token()` fetches a new one. */
  invalidate(request: TokenRequest, token: string): void;
  stats(): TokenSourceStats;
}

export interface TokenSourceStats {
  /** Token-endpoint calls made by this process. */
  fetched: number;
  /** Tokens found in the shared store (fetched by another replica). */
  shared: number;
  /** Stored entries that did not open under this gateway's key (forged or another secret's). */
  rejected: number;
}

export interface TokenSourceOptions {
  /** The step cache's store: memory, or the Redis shared by every replica. */
  store?: CacheStore;
  secret: string;
  /** Token endpoint client; tests may count calls through it. */
  fetchToken?: (request: TokenRequest, signal?: AbortSignal) => Promise<IssuedToken>;
}

/** A token is renewed this long before it expires (or at 90 % of a short lifetime). */
const RENEW_BEFORE_MS = 60_000;
/** While another replica holds the lease, wait for its token at most this long, polling. */
const LEASE_MS = 5000;
const LEASE_WAIT_MS = 2000;
const LEASE_POLL_MS = 50;
const MAX_TOKENS = 10_000;

export function createTokenSource(options: TokenSourceOptions): TokenSource {
  const keyBase = Buffer.from(hkdfSync('sha256', options.secret, 'sculptor', 'oauth-token-cache-keys', 32));
  const sealKey = Buffer.from(hkdfSync('sha256', options.secret, 'sculptor', 'oauth-token-seal', 32));
  const fetchToken = options.fetchToken ?? requestToken;
  const kept = new LRUCache<string, IssuedToken>({ max: MAX_TOKENS });
  const inFlight = new Map<string, Promise<IssuedToken>>();
  const counters: TokenSourceStats = { fetched: 0, shared: 0, rejected: 0 };

  const keyOf = (request: TokenRequest): string =>
    createHmac('sha256', keyBase)
      .update(
        JSON.stringify([
          request.grant,
          request.tokenUrl,
          request.clientId,
          [...request.scopes].sort(),
          request.resource ?? null,
          request.subject?.key ?? null,
        ]),
      )
      .digest('base64url');

  const fresh = (token: IssuedToken | undefined, now = Date.now()): token is IssuedToken =>
    token !== undefined && now < renewAt(token);

  const fromStore = async (key: string): Promise<IssuedToken | undefined> => {
    const sealed = await options.store?.get(`oauth:${key}`);
    if (sealed === undefined || sealed === '') return undefined;
    const token = unseal(sealKey, sealed, key);
    if (!token) counters.rejected++;
    return token;
  };

  const fetchAndShare = async (key: string, request: TokenRequest, signal?: AbortSignal) => {
    counters.fetched++;
    const token = await fetchToken(request, signal);
    const ttlMs = token.expiresAt - Date.now();
    if (ttlMs > 0) options.store?.set(`oauth:${key}`, seal(sealKey, token, key), ttlMs);
    return token;
  };

  const obtain = async (key: string, request: TokenRequest, signal?: AbortSignal): Promise<IssuedToken> => {
    const stored = await fromStore(key);
    if (fresh(stored)) {
      counters.shared++;
      return stored;
    }
    // One replica fetches; the others wait briefly for what it stores, then fetch themselves.
    const lease = `oauth-lease:${key}`;
    if (!options.store || (await options.store.claim(lease, LEASE_MS)) !== false) {
      try {
        return await fetchAndShare(key, request, signal);
      } finally {
        // Released so the next renewal or a refetch after a 401 does not wait out the lease.
        options.store?.release(lease);
      }
    }
    const until = Date.now() + LEASE_WAIT_MS;
    while (Date.now() < until && !signal?.aborted) {
      await new Promise((resolve) => setTimeout(resolve, LEASE_POLL_MS));
      const shared = await fromStore(key);
      if (fresh(shared)) {
        counters.shared++;
        return shared;
      }
    }
    return fetchAndShare(key, request, signal);
  };

  return {
    async token(request, signal) {
      const key = keyOf(request);
      const local = kept.get(key);
      if (fresh(local)) return local.accessToken;
      let pending = inFlight.get(key);
      if (!pending) {
        pending = obtain(key, request, signal).finally(() => inFlight.delete(key));
        inFlight.set(key, pending);
      }
      const token = await pending;
      kept.set(key, token);
      return token.accessToken;
    },
    invalidate(request, token) {
      const key = keyOf(request);
      if (kept.get(key)?.accessToken !== token) return;
      kept.delete(key);
      // The shared copy is the same refused token: a 1 ms TTL removes it for every replica.
      options.store?.set(`oauth:${key}`, '', 1);
    },
    stats: () => ({ ...counters }),
  };
}

function renewAt(token: IssuedToken): number {
  const lifetime = token.expiresAt - Date.now();
  return token.expiresAt - Math.min(RENEW_BEFORE_MS, Math.max(0, lifetime) * 0.1 + 1000);
}

/** AES-256-GCM, with the entry's key as associated data: an entry moved to another key does not open. */
function seal(key: Buffer, token: IssuedToken, aad: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad));
  const body = Buffer.concat([cipher.update(JSON.stringify(token), 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url')).join('.');
}

function unseal(key: Buffer, sealed: string, aad: string): IssuedToken | undefined {
  try {
    const [iv, tag, body] = sealed.split('.').map((part) => Buffer.from(part, 'base64url'));
    const decipher = createDecipheriv('aes-256-gcm', key, iv!);
    decipher.setAAD(Buffer.from(aad));
    decipher.setAuthTag(tag!);
    const text = Buffer.concat([decipher.update(body!), decipher.final()]).toString('utf8');
    const token = JSON.parse(text) as IssuedToken;
    return typeof token.accessToken === 'string' && typeof token.expiresAt === 'number' ? token : undefined;
  } catch {
    return undefined;
  }
}
