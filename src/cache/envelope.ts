import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * What is stored under a cache key: the value wrapped with the key it was
 * written for and the instant it stops being valid. A read checks that echo, so a
 * value that ends up under another key (a bug, a key collision, a reply read off
 * the wrong connection as in the ChatGPT 2023-03-20 incident, or a tampered
 * store) is never served (E2).
 *
 * Stored as `<mac>.<envelope JSON>`: an HMAC-SHA256 of the exact JSON under a
 * key derived from the server secret. Whoever can write to Redis but does not
 * hold SCULPTOR_SECRET cannot make an entry a replica will serve: a forged,
 * altered or unauthenticated one is a miss, counted as an integrity violation.
 *
 * The expiry is inside the MAC, so it is the envelope, not the store, that says
 * how long a value lives: an entry copied back after its key expired, or a key
 * whose TTL was removed (`PERSIST`, a restore from a dump), is refused once its
 * `expiresAt` has passed, whatever the store still holds.
 */
export interface Envelope {
  v: 2;
  key: string;
  /** Epoch milliseconds when the value was written. */
  createdAt: number;
  /** Epoch milliseconds from which the value is refused. */
  expiresAt: number;
  value: unknown;
}

/** When an envelope was written and until when it may be served (epoch milliseconds). */
export interface Lifetime {
  createdAt: number;
  expiresAt: number;
}

/**
 * Serializes `value` in an envelope for `key`. Throws when the value is not
 * JSON data: BigInt, cycles and depth beyond the stack throw in
 * `JSON.stringify`, and `undefined`, functions and symbols would silently
 * vanish, so they throw here.
 */
export function encodeEnvelope(key: string, value: unknown, lifetime: Lifetime, macKey: Buffer): string {
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') {
    throw new TypeError(`a ${typeof value} cannot be cached`);
  }
  const envelope: Envelope = {
    v: 2,
    key,
    createdAt: lifetime.createdAt,
    expiresAt: lifetime.expiresAt,
    value,
  };
  const json = JSON.stringify(envelope);
  return `${macOf(macKey, json).toString('base64url')}.${json}`;
}

/**
 * The envelope MAC key, derived from the server secret (never the secret itself). The
 * label is the derivation's, not the envelope version's: kept as it was, so an entry of
 * the previous version is recognised as authentic and answered as a plain miss.
 */
export function envelopeMacKey(secret: string): Buffer {
  return createHmac('sha256', secret).update('sculptor/cache-envelope/v1').digest();
}

/** base64url of a 32-byte HMAC-SHA256, without padding. */
const MAC_CHARS = 43;

function macOf(macKey: Buffer, json: string): Buffer {
  return createHmac('sha256', macKey).update(json).digest();
}

/**
 * Why a stored string is not served. `mac`, `parse`, `shape` and `key` are integrity
 * violations (forged, altered, misplaced); `expired` is an authentic entry past its
 * expiry; `format` an authentic entry of the previous envelope version, which carried
 * no expiry (written before an upgrade, or by a replica not yet upgraded): a plain miss.
 */
export type RefusalReason = 'mac' | 'parse' | 'shape' | 'key' | 'expired' | 'format';

export type DecodedEnvelope =
  { ok: true; value: unknown; createdAt: number; expiresAt: number } | { ok: false; reason: RefusalReason };

/**
 * Parses and verifies a stored string read under `key` at `now` (epoch ms). The
 * value comes back as plain JSON data (JSON.parse makes `__proto__` an own
 * property, never a prototype) and is handed over as-is, never merged into an
 * existing object.
 */
export function decodeEnvelope(raw: string, key: string, macKey: Buffer, now: number): DecodedEnvelope {
  // Authenticated before it is parsed: a forged entry is never even read.
  if (raw.charCodeAt(MAC_CHARS) !== 46 /* . */) return { ok: false, reason: 'mac' };
  const json = raw.slice(MAC_CHARS + 1);
  const mac = Buffer.from(raw.slice(0, MAC_CHARS), 'base64url');
  if (mac.length !== 32 || !timingSafeEqual(mac, macOf(macKey, json))) return { ok: false, reason: 'mac' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return { ok: false, reason: 'parse' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { ok: false, reason: 'shape' };
  }
  const fields = parsed as Record<string, unknown>;
  if (fields['v'] === 1) return { ok: false, reason: 'format' };
  const { createdAt, expiresAt } = fields;
  if (
    fields['v'] !== 2 ||
    typeof fields['key'] !== 'string' ||
    typeof createdAt !== 'number' ||
    !Number.isFinite(createdAt) ||
    typeof expiresAt !== 'number' ||
    !Number.isFinite(expiresAt) ||
    !Object.hasOwn(fields, 'value')
  ) {
    return { ok: false, reason: 'shape' };
  }
  if (fields['key'] !== key) return { ok: false, reason: 'key' };
  if (now >= expiresAt) return { ok: false, reason: 'expired' };
  return { ok: true, value: fields['value'], createdAt, expiresAt };
}
