import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeEnvelope, encodeEnvelope, envelopeMacKey } from '../../src/cache/envelope.ts';

const MAC = envelopeMacKey('envelope-test-secret');

describe('envelope', () => {
  it('round-trips any JSON value under its own key', () => {
    fc.assert(
      fc.property(fc.string(), fc.jsonValue(), (key, value) => {
        const decoded = decodeEnvelope(encodeEnvelope(key, value, 1_700_000_000_000, MAC), key, MAC);
        // JSON has no -0: it comes back as 0.
        expect(decoded).toEqual({
          ok: true,
          value: JSON.parse(JSON.stringify(value)),
          createdAt: 1_700_000_000_000,
        });
      }),
    );
  });

  it('rejects an envelope read under another key', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.jsonValue(), (a, b, value) => {
        fc.pre(a !== b);
        expect(decodeEnvelope(encodeEnvelope(a, value, 0, MAC), b, MAC)).toEqual({
          ok: false,
          reason: 'key',
        });
      }),
    );
  });

  it("refuses an envelope without its MAC, with another secret's, or altered after writing (issue #13)", () => {
    const good = encodeEnvelope('k', { status: 200, body: { price: 10 } }, 0, MAC);
    const json = good.slice(good.indexOf('.') + 1);
    const forged = [
      json, // as written before MACs, or by anyone with Redis access
      encodeEnvelope('k', { status: 200, body: { price: 10 } }, 0, envelopeMacKey('another-secret')),
      good.replace('"price":10', '"price":0'),
      `${'A'.repeat(43)}.${json}`,
      `.${json}`,
    ];
    for (const raw of forged) expect(decodeEnvelope(raw, 'k', MAC)).toEqual({ ok: false, reason: 'mac' });
    expect(decodeEnvelope(good, 'k', MAC)).toMatchObject({ ok: true, value: { body: { price: 10 } } });
  });

  it('never throws on arbitrary stored strings', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json()), (raw) => {
        const decoded = decodeEnvelope(raw, 'k', MAC);
        expect(typeof decoded.ok).toBe('boolean');
      }),
    );
  });

  it('refuses values JSON cannot carry', () => {
    expect(() => encodeEnvelope('k', 1n, 0, MAC)).toThrow(TypeError);
    expect(() => encodeEnvelope('k', undefined, 0, MAC)).toThrow(TypeError);
    expect(() => encodeEnvelope('k', Symbol('s'), 0, MAC)).toThrow(TypeError);
  });
});
