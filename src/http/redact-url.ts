/**
 * URLs for logs and traces (RELIABILITY I3, OTel `url.full`): userinfo becomes
 * REDACTED:REDACTED@ and the values of secret-looking query keys become
 * REDACTED, keys kept. The rest of the text is left byte for byte, so a
 * redacted URL still matches what was requested. The fragment gets the same
 * treatment because OAuth implicit flows put access_token there.
 */

const SECRET_KEYS = new Set(
  [
    'api_key',
    'key',
    'token',
    'access_token',
    'client_secret',
    'password',
    'sig',
    'signature',
    'AWSAccessKeyId',
    'X-Goog-Signature',
  ].map((k) => k.toLowerCase()),
);

const REDACTED = 'REDACTED';

function decodeKey(key: string): string {
  try {
    return decodeURIComponent(key.replace(/\+/g, ' ')).toLowerCase();
  } catch {
    return key.toLowerCase();
  }
}

function redactPairs(text: string): string {
  return text
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      return SECRET_KEYS.has(decodeKey(pair.slice(0, eq))) ? `${pair.slice(0, eq + 1)}${REDACTED}` : pair;
    })
    .join('&');
}

export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Anything could be in text that is not a URL: log none of it.
    return '[unparseable URL]';
  }
  if (parsed.username !== '' || parsed.password !== '') {
    parsed.username = REDACTED;
    parsed.password = REDACTED;
  }
  // Rebuild from the parser's own serialization, swapping only query and fragment text.
  const search = parsed.search;
  const hash = parsed.hash;
  parsed.search = '';
  parsed.hash = '';
  let out = parsed.href;
  if (search.length > 1) out += `?${redactPairs(search.slice(1))}`;
  if (hash.length > 1) out += `#${redactPairs(hash.slice(1))}`;
  return out;
}
