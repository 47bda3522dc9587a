/**
 * `$encodeUrlComponent` and `$encodeUrl` encode long texts a slice at a time: the
 * same answer as one call over the whole text, surrogate pairs never split at a slice's end,
 * a lone surrogate still jsonata's D3140, and an encoding past the string limit refused before
 * the rest of the text is encoded. The range operator, rewritten into a bounded call, answers
 * as jsonata's and charges the items it makes.
 */
import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import { compileExpression, operatorOf, walkAst } from '../../src/compile/compile-expression.ts';
import {
  compileJsonata,
  evaluateJsonata,
  JSONATA_LIMITS,
} from '../../src/compile/jsonata/jsonata-options.ts';

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

describe('the range operator', () => {
  const outcome = async (run: () => Promise<unknown>) => {
    try {
      // As JSON, as the engine answers it: jsonata marks its sequences with properties of its own.
      const value = await run();
      return { value: value === undefined ? undefined : JSON.parse(JSON.stringify(value)) };
    } catch (err) {
      return { code: (err as { code?: string }).code };
    }
  };
  const plain = (source: string, input: unknown) =>
    outcome(() => jsonata(source, { sequence: JSONATA_LIMITS.sequence } as never).evaluate(input));
  const bounded = (source: string, input: unknown) =>
    outcome(() => evaluateJsonata(compileJsonata(source), input, {}));

  it.each([
    '[1..5]',
    '[3..3]',
    '[5..1]',
    '[1..n]',
    '[missing..3]',
    '[-2..2].($ * 10)',
    '$count([1..3].[1..4])',
    '[1..3][$ > 1]',
    '$sum([0..9999])',
    '[1.5..3]',
    '[1..n + 0.5]',
    '["a"..2]',
    '[1..10001]',
    '[1..20000000]',
  ])('%s answers as jsonata does', async (source) => {
    expect(await bounded(source, { n: 4 })).toEqual(await plain(source, { n: 4 }));
  });

  it('charges the items it makes: ranges made by the thousand end at the work limit, not in the heap', async () => {
    // Without a time limit, so that only the work limit can end it however slow the machine: on a
    // loaded one the clock ran out first (D1012) with the usual limits.
    const untimed = { ...JSONATA_LIMITS, timeout: undefined };
    const source = '$count([1..10000].[1..10000])';
    expect(await outcome(() => evaluateJsonata(compileJsonata(source, untimed), {}, {}, untimed))).toEqual({
      code: 'D9003',
    });
    // A thousand small ones are nothing.
    expect(await bounded('$count([1..1000].[1..10])', {})).toEqual({ value: 1000 });
  });

  it('stays a range to whoever reads the compiled AST', () => {
    const { ast } = compileExpression('$sort($steps.a.items[[0..9]])', at);
    const operators: string[] = [];
    walkAst(ast, (node) => {
      const op = operatorOf(node);
      if (op) operators.push(op);
    });
    expect(operators).toEqual(['..']);
  });
});
