/**
 * `$encodeUrlComponent` and `$encodeUrl` encode long texts a slice at a time: the
 * same answer as one call over the whole text, surrogate pairs never split at a slice's end,
 * a lone surrogate still jsonata's D3140, and an encoding past the string limit refused before
 * the rest of the text is encoded.
 */
import { describe, expect, it } from 'vitest';
import { compileExpression } from '../../src/compile/compile-expression.ts';

const at = () => ({ file: 'x.sculpt.yaml', line: 1, column: 1 });
const evaluate = (source: string, input: unknown) => compileExpression(source, at).evaluate(input, {});
const codeOf = async (source: string, input: unknown) => {
  try {
    await evaluate(source, input);
    return undefined;
  } catch (err) {
    return (err as { code?: string }).code;
  }
};

/** 300,000 UTF-16 units: several 65,536-unit slices, with a pair across each slice boundary. */
const long = `abc${'😀é /?'.repeat(60_000)}`;

describe('encoding long texts in slices', () => {
  it.each([
    ['$encodeUrlComponent', encodeURIComponent],
    ['$encodeUrl', encodeURI],
  ])('%s answers what one call over the whole text does', async (fn, whole) => {
    expect(long.length).toBeGreaterThan(4 * 65_536);
    // The first slice (65,536 units) would end on the high half of a 😀.
    expect(long.charCodeAt(65_535)).toBeGreaterThanOrEqual(0xd800);
    expect(long.charCodeAt(65_535)).toBeLessThanOrEqual(0xdbff);
    expect(await evaluate(`${fn}(s)`, { s: long })).toBe(whole(long));
  });

  it('a lone surrogate anywhere is still D3140, as in jsonata', async () => {
    const lone = `${'a'.repeat(100_000)}\ud800${'b'.repeat(100_000)}`;
    expect(await codeOf('$encodeUrlComponent(s)', { s: lone })).toBe('D3140');
    expect(await codeOf('$encodeUrl(s)', { s: `${lone}\udc00` })).toBe('D3140');
  });

  it('an encoding past the string limit is refused as it grows, naming the limit', async () => {
    const started = performance.now();
    await expect(evaluate('$encodeUrlComponent(s)', { s: '€'.repeat(1_000_000) })).rejects.toMatchObject({
      code: 'D9001',
      message: expect.stringMatching(/\$encodeUrlComponent would make a string of more than \d+ characters/),
    });
    // 9 M characters were never made: the refusal came at ≈ 5.2 M, a fraction of the text in.
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
