import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeEnvelope, encodeEnvelope, envelopeMacKey } from '../../src/cache/envelope.ts';

const MAC = envelopeMacKey('envelope-test-secret');
const CREATED = 1_700_000_000_000;
const LIFETIME = { createdAt: CREATED, expiresAt: CREATED + 60_000 };
/** A read within the lifetime. */
const NOW = CREATED + 1;

describe('envelope', () => {
  it('round-trips any JSON value under its own key', () => {
    fc.assert(
      fc.property(fc.string(), fc.jsonValue(), (key, value) => {
        const decoded = decodeEnvelope(encodeEnvelope(key, value, LIFETIME, MAC), key, MAC, NOW);
        // JSON has no -0: it comes back as 0.
        expect(decoded).toEqual({ ok: true, value: JSON.parse(JSON.stringify(value)), ...LIFETIME });
      }),
    );
  });

  it('rejects an envelope read under another key', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.jsonValue(), (a, b, value) => {
        fc.pre(a !== b);
        expect(decodeEnvelope(encodeEnvelope(a, value, LIFETIME, MAC), b, MAC, NOW)).toEqual({
          ok: false,
          reason: 'key',
        });
      }),
    );
  });

  it("refuses an envelope without its MAC, with another secret's, or altered after writing", () => {
    const good = encodeEnvelope('k', { status: 200, body: { price: 10 } }, LIFETIME, MAC);
    const json = good.slice(good.indexOf('.') + 1);
    const forged = [
      json, // as written before MACs, or by anyone with Redis access
      encodeEnvelope('k', { status: 200, body: { price: 10 } }, LIFETIME, envelopeMacKey('another-secret')),
      good.replace('"price":10', '"price":0'),
      `${'A'.repeat(43)}.${json}`,
      `.${json}`,
    ];
    for (const raw of forged)
      expect(decodeEnvelope(raw, 'k', MAC, NOW)).toEqual({ ok: false, reason: 'mac' });
    expect(decodeEnvelope(good, 'k', MAC, NOW)).toMatchObject({ ok: true, value: { body: { price: 10 } } });
  });

  it('is refused from its expiry on, and the MAC covers the expiry: it cannot be pushed back', () => {
    const good = encodeEnvelope('k', 'v', LIFETIME, MAC);
    expect(decodeEnvelope(good, 'k', MAC, LIFETIME.expiresAt - 1)).toMatchObject({ ok: true });
    expect(decodeEnvelope(good, 'k', MAC, LIFETIME.expiresAt)).toEqual({ ok: false, reason: 'expired' });
    const extended = good.replace(
      `"expiresAt":${LIFETIME.expiresAt}`,
      `"expiresAt":${LIFETIME.expiresAt * 2}`,
    );
    expect(extended).not.toBe(good);
    expect(decodeEnvelope(extended, 'k', MAC, LIFETIME.expiresAt)).toEqual({ ok: false, reason: 'mac' });
  });

  it("an authentic entry of the previous format (no expiry) is told apart from a forgery: 'format'", () => {
    const json = JSON.stringify({ v: 1, key: 'k', createdAt: CREATED, value: 'v' });
    const previous = `${createHmac('sha256', MAC).update(json).digest('base64url')}.${json}`;
    expect(decodeEnvelope(previous, 'k', MAC, NOW)).toEqual({ ok: false, reason: 'format' });
    expect(decodeEnvelope(json, 'k', MAC, NOW)).toEqual({ ok: false, reason: 'mac' });
  });

  it('never throws on arbitrary stored strings', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json()), (raw) => {
        const decoded = decodeEnvelope(raw, 'k', MAC, NOW);
        expect(typeof decoded.ok).toBe('boolean');
      }),
    );
  });

  it('refuses values JSON cannot carry', () => {
    expect(() => encodeEnvelope('k', 1n, LIFETIME, MAC)).toThrow(TypeError);
    expect(() => encodeEnvelope('k', undefined, LIFETIME, MAC)).toThrow(TypeError);
    expect(() => encodeEnvelope('k', Symbol('s'), LIFETIME, MAC)).toThrow(TypeError);
  });
});
