/**
 * Response headers a backend may hand to the rest of the gateway (RFC 9110
 * §7.6.1, RELIABILITY I1/I2): lower-case names, hop-by-hop headers removed,
 * including any header the backend named in `Connection`, and no cookies.
 * This is a deny-list for one hop; which headers reach an A2T caller is a
 * separate allow-list decision made by the caller.
 */

const DROPPED = new Set([
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'set-cookie',
  'set-cookie2',
  // Assigning it on a plain object would not create a key; refuse it plainly.
  '__proto__',
]);

export type RawHeaders = Record<string, string | string[] | undefined>;

function tokens(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  const joined = Array.isArray(value) ? value.join(',') : value;
  return joined
    .split(',')
    .map((t) => t.trim().toLowerCase())
    .filter((t) => t !== '');
}

export function filterResponseHeaders(raw: RawHeaders): Record<string, string> {
  // Most answers say `Connection: keep-alive`, a name dropped anyway: no set for that.
  const connection = raw['connection'] ?? raw['Connection'];
  const namedInConnection =
    connection === undefined || connection === 'keep-alive' ? undefined : new Set(tokens(connection));
  const out: Record<string, string> = {};
  // for…in with hasOwn visits what Object.entries would, without an array of pairs per answer.
  for (const rawName in raw) {
    if (!Object.hasOwn(raw, rawName)) continue;
    const value = raw[rawName];
    if (value === undefined) continue;
    const name = rawName.toLowerCase();
    if (DROPPED.has(name) || name.startsWith('proxy-') || namedInConnection?.has(name) === true) continue;
    const joined = Array.isArray(value) ? value.join(', ') : value;
    out[name] = Object.hasOwn(out, name) ? `${out[name]}, ${joined}` : joined;
  }
  return out;
}
