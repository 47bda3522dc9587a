import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeEnvelope, encodeEnvelope } from '../../src/cache/envelope.ts';

describe('envelope', () => {
  it('round-trips any JSON value under its own key', () => {
    fc.assert(
      fc.property(fc.string(), fc.jsonValue(), (key, value) => {
        const decoded = decodeEnvelope(encodeEnvelope(key, value, 1_700_000_000_000), key);
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
        expect(decodeEnvelope(encodeEnvelope(a, value, 0), b)).toEqual({ ok: false, reason: 'key' });
      }),
    );
  });

  it('never throws on arbitrary stored strings', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json()), (raw) => {
        const decoded = decodeEnvelope(raw, 'k');
        expect(typeof decoded.ok).toBe('boolean');
      }),
    );
  });

  it('refuses values JSON cannot carry', () => {
    expect(() => encodeEnvelope('k', 1n, 0)).toThrow(TypeError);
    expect(() => encodeEnvelope('k', undefined, 0)).toThrow(TypeError);
    expect(() => encodeEnvelope('k', Symbol('s'), 0)).toThrow(TypeError);
  });
});
