import type * as Jose from 'jose';
import { SculptorError } from '../errors/sculptor-error.ts';

/**
 * The identity provider's signing keys (its JWKS), fetched and kept so that the provider is
 * asked a bounded number of times whatever tokens arrive, and so that a token is refused for
 * what it is:
 *
 * - a key id the keys do not hold is the token's fault (`auth.invalid_token`, 401). Rotation
 *   publishes a new key before signing with it, so an unknown id first refetches the keys —
 *   at most once per `refreshMs`, however many such tokens come (a forger sending random
 *   ids costs the provider one request per interval);
 * - keys that cannot be fetched are the provider's (`auth.provider_unavailable`, 503): the
 *   first fetch, one after `maxAgeMs`, or a refresh that failed — until the next attempt, an
 *   unknown id is answered 503 at once, since the provider could not be asked about it.
 *
 * One fetch at a time: callers arriving while one runs wait for it.
 */
export interface ProviderKeysOptions {
  url: URL;
  /** Least time between two fetches an unknown key id asks for. */
  refreshMs: number;
  /** Keys older than this are fetched again before use. */
  maxAgeMs: number;
  /** After a failed fetch of keys that must be fetched, least time before the next attempt. */
  retryMs: number;
  timeoutMs: number;
  maxBytes: number;
}

type KeySet = ReturnType<typeof Jose.createLocalJWKSet>;

let jose: typeof Jose | undefined;

/** jose, loaded on first use: a gateway without an identity provider never carries it in memory. */
export async function loadJose(): Promise<typeof Jose> {
  return (jose ??= await import('jose'));
}

export function providerKeys(options: ProviderKeysOptions): Jose.JWTVerifyGetKey {
  let keys: { set: KeySet; fetchedAt: number } | undefined;
  let attemptAt = Number.NEGATIVE_INFINITY;
  let failure: unknown;
  let pending: Promise<KeySet> | undefined;

  const fetchKeys = (): Promise<KeySet> => {
    pending ??= (async () => {
      attemptAt = Date.now();
      try {
        const { createLocalJWKSet } = await loadJose();
        const set = createLocalJWKSet((await readProviderJson(options.url, options)) as Jose.JSONWebKeySet);
        keys = { set, fetchedAt: Date.now() };
        failure = undefined;
        return set;
      } catch (err) {
        failure = err;
        throw providerUnavailable(err);
      } finally {
        pending = undefined;
      }
    })();
    return pending;
  };

  const usableKeys = async (): Promise<KeySet> => {
    if (pending) return pending;
    if (keys && Date.now() - keys.fetchedAt < options.maxAgeMs) return keys.set;
    if (failure !== undefined && Date.now() - attemptAt < options.retryMs) throw providerUnavailable(failure);
    return fetchKeys();
  };

  return async (header, token) => {
    const set = await usableKeys();
    try {
      return await set(header, token);
    } catch (err) {
      // A key set exists, so jose is loaded: this await settles at once.
      const { errors } = await loadJose();
      if (!(err instanceof errors.JWKSNoMatchingKey)) throw err;
      // A fetch running or done since this lookup began: its keys answer.
      if (pending) return (await pending)(header, token);
      if (keys && keys.set !== set) return keys.set(header, token);
      if (Date.now() - attemptAt < options.refreshMs) {
        if (failure !== undefined) throw providerUnavailable(failure);
        throw err;
      }
      return (await fetchKeys())(header, token);
    }
  };
}

/** A JSON document the provider publishes (discovery, keys), fetched within a time and size bound. */
export async function readProviderJson(
  url: URL | string,
  bounds: { timeoutMs: number; maxBytes: number },
): Promise<unknown> {
  const response = await fetch(url, {
    signal: AbortSignal.timeout(bounds.timeoutMs),
    redirect: 'error',
    headers: { accept: 'application/json' },
  });
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`HTTP ${response.status}`);
  }
  return JSON.parse(await readCapped(response, bounds.maxBytes)) as unknown;
}

/** Counts bytes as they arrive, so a provider sending gigabytes is cut off at the cap, not after. */
async function readCapped(response: Response, maxBytes: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  const reader = response.body?.getReader();
  for (;;) {
    const next = await reader?.read();
    if (!next || next.done) break;
    bytes += next.value.byteLength;
    if (bytes > maxBytes) {
      await reader!.cancel().catch(() => undefined);
      throw new Error(`over ${maxBytes} bytes`);
    }
    chunks.push(next.value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function providerUnavailable(cause?: unknown): SculptorError {
  return new SculptorError(
    'auth.provider_unavailable',
    'The identity provider cannot be reached to check the token; try again shortly.',
    { cause },
  );
}
