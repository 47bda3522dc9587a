import { describe, expect, it } from 'vitest';
import { compileExpression, JSONATA_LIMITS } from '../../src/compile/compile-expression.ts';
import { hasNestedQuantifier, MAX_REGEX_INPUT } from '../../src/compile/safe-regex.ts';
import { SculptorError } from '../../src/errors/sculptor-error.ts';

const at = (offset: number) => ({ file: 'x.sculpt.yaml', line: 1, column: offset + 1 });
const compile = (source: string) => compileExpression(source, at);
const codeOf = (fn: () => unknown) => {
  try {
    fn();
    return undefined;
  } catch (err) {
    return (err as SculptorError).code;
  }
};
const evaluationCode = async (source: string, input: unknown = {}) => {
  try {
    await compile(source).evaluate(input, {});
    return undefined;
  } catch (err) {
    return (err as { code?: string }).code;
  }
};

describe('JSONata guardrails (RELIABILITY G2)', () => {
  it('stops an infinite recursion by stack depth or time, never hanging the process', async () => {
    const started = performance.now();
    expect(await evaluationCode('($f := function($x) { $f($x + 1) }; $f(0))')).toMatch(/^D101[12]$/);
    expect(performance.now() - started).toBeLessThan(JSONATA_LIMITS.timeout + 1_000);
  });

  it('stops a runaway loop by time', async () => {
    const started = performance.now();
    const code = await evaluationCode('($loop := function($n) { $n > 0 ? $loop($n) : 0 }; $loop(1))');
    expect(code).toMatch(/^D101[12]$/);
    expect(performance.now() - started).toBeLessThan(JSONATA_LIMITS.timeout + 1_000);
  });

  it('stops a huge sequence', async () => {
    expect(await evaluationCode('[1..100000]')).toMatch(/^D(2015|1012)$/);
  });
});

describe('regular expressions (RELIABILITY G3)', () => {
  it.each(['^(a+)+$', '(a*)*', '(\\w+\\s?)*$', '(?:x+){2,}', '((ab)+c)*', '(a+|b)+'])(
    'refuses /%s/ at load',
    (pattern) => {
      expect(hasNestedQuantifier(pattern)).toBe(true);
      expect(codeOf(() => compile(`$match($.s, /${pattern}/)`))).toBe('compile.unsafe_regex');
    },
  );

  // Conservative on purpose: `^[A-Z]+(_[A-Z]+)*$` is refused too although each repetition
  // starts with '_'; sculpt regexes are rare and the error says what to change.
  it.each(['^a+$', '(ab)+', '[(a+)]+', '\\(a+\\)+', '(a){2,5}', '(\\d{3})-(\\d{4})', '^[A-Z_]+$'])(
    'accepts /%s/',
    (pattern) => {
      expect(hasNestedQuantifier(pattern)).toBe(false);
    },
  );

  it('evaluates safe regexes as JSONata does', async () => {
    expect(await compile('$match("New York, NY", /([A-Z]+)$/).groups[0]').evaluate({}, {})).toBe('NY');
    expect(await compile('$replace("a-b-c", /-/, "+")').evaluate({}, {})).toBe('a+b+c');
  });

  it(`refuses to scan more than ${MAX_REGEX_INPUT} characters`, async () => {
    const long = 'a'.repeat(MAX_REGEX_INPUT + 1);
    expect(await evaluationCode('$contains($.s, /b/)', { s: long })).toBe('D3137');
    expect(await compile('$contains($.s, /b/)').evaluate({ s: 'abc' }, {})).toBe(true);
  });

  it('refuses $eval at load', () => {
    expect(codeOf(() => compile('$eval("1+1")'))).toBe('compile.forbidden_function');
    expect(new SculptorError('compile.unsafe_regex', 'x').status).toBe(500);
  });
});
