import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/http/parse-json.ts';
import type { SculptorError } from '../../src/errors/sculptor-error.ts';
import { expectCode } from './expect-code.ts';

const LIMITS = { maxDepth: 64, maxArrayLength: 10_000 };
const parse = (text: string, limits = LIMITS) => parseJson(text, limits);
const rejects = (text: string, limits = LIMITS) =>
  expectCode((async () => parse(text, limits))(), 'upstream.invalid_response');

describe('parseJson', () => {
  it('parses ordinary JSON', () => {
    expect(parse('{"a":[1,2,{"b":null}],"c":"x"}')).toEqual({ a: [1, 2, { b: null }], c: 'x' });
    expect(parse('42')).toBe(42);
    expect(parse('"s"')).toBe('s');
  });

  it('refuses invalid and truncated JSON', async () => {
    for (const text of ['{', '{"a":', '[1,2', 'nope', '{"a":1}x', '', ' ']) await rejects(text);
  });

  it('counts depth of arrays and objects alike, up to the cap', async () => {
    expect(parse(`${'['.repeat(64)}${']'.repeat(64)}`)).toBeDefined();
    await rejects(`${'['.repeat(65)}${']'.repeat(65)}`);
    expect(parse(`${'{"a":'.repeat(64)}1${'}'.repeat(64)}`)).toBeDefined();
    await rejects(`${'{"a":'.repeat(65)}1${'}'.repeat(65)}`);
    await rejects(`${'[{"a":'.repeat(33)}1${'}]'.repeat(33)}`); // 66 levels, mixed
  });

  it('refuses 200 000 levels without a stack overflow, before anything recurses into them', async () => {
    const deep = '['.repeat(200_000) + ']'.repeat(200_000);
    expect(() => JSON.stringify(JSON.parse(deep))).toThrow(RangeError);
    await rejects(deep);
    await rejects('['.repeat(200_000)); // unbalanced
  });

  it('limits each array, not the document', async () => {
    const list = (n: number) => `[${Array.from({ length: n }, (_, i) => i).join(',')}]`;
    expect(parse(list(10_000))).toHaveLength(10_000);
    await rejects(list(10_001));
    // Two arrays of 6 000 are fine: the count is per array.
    expect(parse(`[${list(6000)},${list(6000)}]`)).toHaveLength(2);
    // Commas in nested objects and in strings are not elements of the outer array.
    const rows = `[${Array.from({ length: 100 }, () => '{"a":1,"b":"x,y,z,[]{}","c":[1,2,3]}').join(',')}]`;
    expect(parse(rows, { maxDepth: 64, maxArrayLength: 100 })).toHaveLength(100);
    expect(parse('[]', { maxDepth: 64, maxArrayLength: 0 })).toEqual([]);
  });

  it('is not fooled by brackets and escaped quotes inside strings', () => {
    const deepInString = JSON.stringify({ s: `\\"${'['.repeat(1000)}\\\\`, t: '"]]]' });
    expect(parse(deepInString, { maxDepth: 2, maxArrayLength: 10 })).toEqual(JSON.parse(deepInString));
    expect(() => parse('"unterminated [[[[', { maxDepth: 1, maxArrayLength: 1 })).toThrow(/not valid JSON/);
  });

  it('keeps integers beyond 2^53 exact, as decimal strings', () => {
    expect(parse('{"id":9007199254740993}')).toEqual({ id: '9007199254740993' });
    expect(parse('[-9007199254740993, 9007199254740992, 9007199254740991]')).toEqual([
      '-9007199254740993',
      '9007199254740992',
      9007199254740991,
    ]);
    expect(parse('123456789012345678901234567890')).toBe('123456789012345678901234567890');
  });

  it('leaves non-integers and strings alone', () => {
    expect(parse('[1.2345678901234567, 1e400, 12345678901234567e1, 0.1]')).toEqual([
      1.2345678901234567,
      Number.POSITIVE_INFINITY,
      123456789012345660, // the exponent form is a float literal: rounded, as JSON.parse always does
      0.1,
    ]);
    expect(parse('{"s":"12345678901234567890","n":7}')).toEqual({ s: '12345678901234567890', n: 7 });
  });

  it('keeps __proto__ keys as plain data', () => {
    const value = parse('{"__proto__":{"polluted":true},"a":1}') as Record<string, unknown>;
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});

describe('the limits walk', () => {
  it('keeps nothing of an answer once its walk is over, and walks whole after a refused walk', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const limits = { maxDepth: 8, maxArrayLength: 1_000 };
    const text = JSON.stringify({ periods: Array.from({ length: 500 }, (_, i) => ({ n: i, tags: [i] })) });
    // The walk last held each period's own array: the slot a stale stack would keep. Nothing
    // else holds the answer once this function returns.
    const tags = (() => {
      const parsed = parseJson(text, limits) as { periods: Array<{ tags: number[] }> };
      return new WeakRef(parsed.periods[250]!.tags);
    })();
    // A walk refused half-way (too deep) leaves its stacks emptied too, and the next walk is whole.
    await expectCode(
      Promise.resolve().then(() => parseJson('[[[[[[[[[[1]]]]]]]]]]', limits)),
      'upstream.invalid_response',
    );
    expect(parseJson('{"a":[{"b":1}]}', limits)).toEqual({ a: [{ b: 1 }] });
    for (let i = 0; i < 5 && tags.deref() !== undefined; i++) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      gc();
    }
    expect(tags.deref()).toBeUndefined();
  });
});

describe('small and large texts alike', () => {
  const limits = { maxDepth: 64, maxArrayLength: 10_000 };
  const pad = (json: string) => `{"pad":"${'x'.repeat(1024 * 1024)}","v":${json}}`;
  const code = (fn: () => unknown) => {
    try {
      fn();
      return 'ok';
    } catch (err) {
      return (err as SculptorError).code;
    }
  };
  // `wrapper` is the nesting the wrapping adds: the padded text sits inside an object.
  it.each([
    ['small', (j: string) => j, 0],
    ['large', pad, 1],
  ])('%s text: depth, array length, big integers, malformed', (_label, wrap, wrapper) => {
    const nest = (n: number) => wrap('['.repeat(n - wrapper) + ']'.repeat(n - wrapper));
    expect(code(() => parseJson(nest(64), limits))).toBe('ok');
    expect(code(() => parseJson(nest(65), limits))).toBe('upstream.invalid_response');
    expect(code(() => parseJson(wrap(`[${'1,'.repeat(10_000)}1]`), limits))).toBe(
      'upstream.invalid_response',
    );
    expect(code(() => parseJson(wrap(`[${'1,'.repeat(9_999)}1]`), limits))).toBe('ok');
    const big = parseJson(wrap('{"id":9007199254740993,"n":1.5,"e":1e20,"s":12}'), limits) as Record<
      string,
      unknown
    >;
    const v = (wrap === pad ? big.v : big) as Record<string, unknown>;
    expect(v).toEqual({ id: '9007199254740993', n: 1.5, e: 1e20, s: 12 });
    expect(code(() => parseJson(wrap('{"a":'), limits))).toBe('upstream.invalid_response');
  });
});
