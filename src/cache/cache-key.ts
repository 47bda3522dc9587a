import { createHash, createHmac } from 'node:crypto';
import { canonicalJson } from './canonical-json.ts';

/** Everything that can change a backend's answer to one step call. */
export interface CacheKeyInput {
  method: string;
  /** The absolute URL the call goes to, query included. */
  url: string;
  body?: string;
  /** Request headers the answer depends on (e.g. Accept-Language). */
  varyHeaders?: Record<string, string>;
  /** `shared`: every caller gets the same answer. `caller`: answers differ per credentials. */
  scope: 'shared' | 'caller';
  /** Identity of the credentials used for this call: hashed with the secret, never stored raw. */
  credentialId?: string;
}

export const CACHE_KEY_PREFIX = 'sculptor:v1:step:';

/**
 * The cache key of one step call: `sculptor:v1:step:` + sha256(canonical JSON).
 *
 * Equivalent requests share a key: the method is upper-cased, the URL is
 * serialized the way the WHATWG parser (and so fetch) puts it on the wire, the
 * fragment (never sent) is dropped, query parameters are ordered by name, and
 * header names are lower-cased and sorted. Everything else is kept byte for
 * byte, so two requests a server could answer differently never share a key.
 *
 * For `caller` scope the key mixes in HMAC(secret, credentialId): callers with
 * different credentials never read each other's answers (OWASP API1), and the
 * credential identity cannot be recovered or guessed from the key without the
 * secret. `shared` scope ignores credentials by design.
 *
 * Throws a TypeError for a programming error: an empty secret, or `caller`
 * scope without a credentialId (which would silently share per-caller data).
 */
export function cacheKey(input: CacheKeyInput, secret: string): string {
  if (secret === '') throw new TypeError('cacheKey: the secret must not be empty');
  let caller: string | null = null;
  if (input.scope === 'caller') {
    if (input.credentialId === undefined || input.credentialId === '') {
      throw new TypeError('cacheKey: caller scope needs a credentialId');
    }
    caller = createHmac('sha256', secret).update(input.credentialId, 'utf8').digest('hex');
  } else if (input.scope !== 'shared') {
    throw new TypeError(`cacheKey: unknown scope ${String(input.scope)}`);
  }
  const canonical = canonicalJson({
    method: asciiUpper(input.method),
    url: canonicalUrl(input.url),
    body: input.body ?? null,
    headers: canonicalHeaders(input.varyHeaders ?? {}),
    scope: input.scope,
    caller,
  });
  return CACHE_KEY_PREFIX + createHash('sha256').update(canonical, 'utf8').digest('hex');
}

interface CanonicalUrl {
  /** Everything before the query: scheme, credentials, host, port, path. */
  base: string;
  /** Raw `name=value` pieces, ordered by name; null when the URL has no `?`. */
  query: string[] | null;
}

function canonicalUrl(url: string): CanonicalUrl | { unparsed: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not absolute: still a distinct key, just without normalization.
    return { unparsed: url };
  }
  parsed.hash = '';
  const href = parsed.href;
  // After serialization the first `?` starts the query: the parser
  // percent-encodes `?` in userinfo and path.
  const mark = href.indexOf('?');
  if (mark < 0) return { base: href, query: null };
  return { base: href.slice(0, mark), query: sortQuery(href.slice(mark + 1)) };
}

/**
 * Orders query pieces by their raw (still percent-encoded) name. The sort is
 * stable, so repeated names keep their relative order: `id=2&id=1` is not
 * `id=1&id=2` to many APIs (result order, priority lists). Values are never
 * decoded: decoding would merge `%zz` with `%25zz` and `+` with `%2B`.
 */
function sortQuery(query: string): string[] {
  const pieces = query.split('&').map((piece) => {
    const eq = piece.indexOf('=');
    return { name: eq < 0 ? piece : piece.slice(0, eq), piece };
  });
  pieces.sort((a, b) => compare(a.name, b.name));
  return pieces.map((p) => p.piece);
}

function canonicalHeaders(headers: Record<string, string>): [string, string][] {
  const pairs = Object.entries(headers).map(([name, value]): [string, string] => [asciiLower(name), value]);
  // Names differing only in case both stay; the value breaks the tie so the order is total.
  pairs.sort((a, b) => compare(a[0], b[0]) || compare(a[1], b[1]));
  return pairs;
}

// ASCII-only case folding: methods and header names are ASCII tokens, and full
// Unicode folding would merge distinct strings ('ß' → 'SS', 'K' (Kelvin) → 'k').
function asciiUpper(text: string): string {
  return text.replace(/[a-z]/g, (c) => c.toUpperCase());
}

function asciiLower(text: string): string {
  return text.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
