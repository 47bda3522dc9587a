import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/cache/canonical-json.ts';

function shuffleKeys(value: unknown, seed: number): unknown {
  if (Array.isArray(value)) return value.map((item) => shuffleKeys(item, seed));
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    const rotated = entries
      .slice(seed % (entries.length || 1))
      .concat(entries.slice(0, seed % (entries.length || 1)));
    return Object.fromEntries(rotated.reverse().map(([k, v]) => [k, shuffleKeys(v, seed + 1)]));
  }
  return value;
}

describe('canonicalJson', () => {
  it('is independent of key order and parses back to the same data', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(), (value, seed) => {
        const text = canonicalJson(value);
        expect(canonicalJson(shuffleKeys(value, seed))).toBe(text);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });

  it('drops undefined members and refuses what JSON cannot represent', () => {
    expect(canonicalJson({ b: 1, a: undefined, c: [null] })).toBe('{"b":1,"c":[null]}');
    expect(() => canonicalJson(Number.NaN)).toThrow(TypeError);
    expect(() => canonicalJson(new Date(0))).toThrow(TypeError);
    expect(() => canonicalJson(1n)).toThrow(TypeError);
  });
});
