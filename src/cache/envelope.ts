/**
 * What is stored under a cache key: the value wrapped with the key it was
 * written for. A read checks that echo, so a value that ends up under another
 * key (a bug, a key collision, a reply read off the wrong connection as in the
 * ChatGPT 2023-03-20 incident, or a tampered store) is never served (E2).
 */
export interface Envelope {
  v: 1;
  key: string;
  /** Epoch milliseconds when the value was written. */
  createdAt: number;
  value: unknown;
}

/**
 * Serializes `value` in an envelope for `key`. Throws when the value is not
 * JSON data: BigInt, cycles and depth beyond the stack throw in
 * `JSON.stringify`, and `undefined`, functions and symbols would silently
 * vanish, so they throw here.
 */
export function encodeEnvelope(key: string, value: unknown, createdAt: number): string {
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') {
    throw new TypeError(`a ${typeof value} cannot be cached`);
  }
  const envelope: Envelope = { v: 1, key, createdAt, value };
  return JSON.stringify(envelope);
}

export type DecodedEnvelope =
  { ok: true; value: unknown; createdAt: number } | { ok: false; reason: 'parse' | 'shape' | 'key' };

/**
 * Parses and verifies a stored string read under `key`. The value comes back
 * as plain JSON data (JSON.parse makes `__proto__` an own property, never a
 * prototype) and is handed over as-is, never merged into an existing object.
 */
export function decodeEnvelope(raw: string, key: string): DecodedEnvelope {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return { ok: false, reason: 'parse' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { ok: false, reason: 'shape' };
  }
  const fields = parsed as Record<string, unknown>;
  if (
    fields['v'] !== 1 ||
    typeof fields['key'] !== 'string' ||
    typeof fields['createdAt'] !== 'number' ||
    !Number.isFinite(fields['createdAt']) ||
    !Object.hasOwn(fields, 'value')
  ) {
    return { ok: false, reason: 'shape' };
  }
  if (fields['key'] !== key) return { ok: false, reason: 'key' };
  return { ok: true, value: fields['value'], createdAt: fields['createdAt'] };
}
