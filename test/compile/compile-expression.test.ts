import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { compileExpression, JSONATA_LIMITS } from '../../src/compile/compile-expression.ts';
import { closeSharedExpressionPool } from '../../src/compile/jsonata/expression-pool.ts';
import { MAX_REGEX_STEPS } from '../../src/compile/jsonata/safe-regex.ts';
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

// Evaluations run in the default evaluator processes: started once here, so the timings below
// are the evaluations', not a process's start on a loaded machine.
beforeAll(async () => {
  await compile('$sum([1])').evaluate({}, {});
});
afterAll(() => closeSharedExpressionPool());

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
  // RE2: the nested and overlapping quantifiers that backtrack for minutes in
  // a backtracking engine are accepted and run in linear time…
  it.each(['^(a+)+$', '(a*)*$', '^(\\w+\\s?){1,50}$', '^(a|a)+$', '(?:x+){2,}$', '((ab)+c)*$', '^(a+|b)+$'])(
    'runs /%s/ in linear time on a hostile input',
    async (pattern) => {
      // Exponential for a backtracking engine from a few dozen characters on.
      const hostile = `${'a'.repeat(200)}!`;
      const started = performance.now();
      await compile(`$contains($.s, /${pattern}/)`).evaluate({ s: hostile }, {});
      expect(performance.now() - started).toBeLessThan(2000);
    },
  );

  // …and what RE2 cannot run in linear time is refused at load, saying what to write instead.
  it.each(['(a)\\1', 'a(?=b)', 'a(?!b)', '(?<=a)b', '(?<!a)b'])('refuses /%s/ at load', (pattern) => {
    expect(codeOf(() => compile(`$match($.s, /${pattern}/)`))).toBe('compile.unsafe_regex');
  });

  // JavaScript syntax RE2 spells differently is refused too, the message naming the construct and
  // what to write instead; a backreference or lookaround still says why (not linear-time).
  it.each([
    ['\\u0041', /`\\u0041`.*RE2 writes `\\x\{0041\}`, or the character itself/],
    ['[\\u0041-\\u005a]', /`\\u0041`.*`\\x\{0041\}`/],
    ['\\cJ', /`\\cJ`.*RE2 writes `\\x\{0A\}`/],
    ['[^]', /`\[\^\]` \(any character\).*RE2 writes `\[\\s\\S\]`/],
    ['[\\b]', /`\[\\b\]` \(a backspace\).*RE2 writes `\\x\{08\}`/],
    ['\\e', /`\\e`, which is not an escape in RE2/],
    ['a{1001}', /more than RE2's 1000 times/],
    ['(a)\\1', /cannot run in linear time/],
    ['a(?=b)', /cannot run in linear time/],
  ])('refuses /%s/ at load, saying what to write instead', (pattern, message) => {
    let error: SculptorError | undefined;
    try {
      compile(`$match($.s, /${pattern}/)`);
    } catch (err) {
      error = err as SculptorError;
    }
    expect(error?.code).toBe('compile.unsafe_regex');
    expect(error?.message).toMatch(message);
  });

  it('reads an escaped backslash as RE2 does: /\\\\u0041/ is a backslash and "u0041", and loads', async () => {
    expect(await compile('$contains($.s, /\\\\u0041/)').evaluate({ s: 'a\\u0041' }, {})).toBe(true);
  });

  it('evaluates safe regexes as JSONata does', async () => {
    expect(await compile('$match("New York, NY", /([A-Z]+)$/).groups[0]').evaluate({}, {})).toBe('NY');
    expect(await compile('$replace("a-b-c", /-/, "+")').evaluate({}, {})).toBe('a+b+c');
  });

  it(`refuses a search of more than ${MAX_REGEX_STEPS} steps (characters × pattern size) before it runs`, async () => {
    // 50,000 characters took 1.6 s in one re2js search with this 353-instruction pattern.
    const started = performance.now();
    expect(
      await evaluationCode('$contains($.s, /^(\\w+\\s?){1,50}$/)', { s: `${'a'.repeat(50_000)}!` }),
    ).toBe('D9004');
    expect(performance.now() - started).toBeLessThan(100);
    // The same text is searched with a small pattern; the same pattern on a short text.
    expect(await compile('$contains($.s, /b/)').evaluate({ s: 'a'.repeat(50_000) }, {})).toBe(false);
    expect(await compile('$contains($.s, /^(\\w+\\s?){1,50}$/)').evaluate({ s: 'ab cd' }, {})).toBe(true);
  });

  it('refuses $eval at load', () => {
    expect(codeOf(() => compile('$eval("1+1")'))).toBe('compile.forbidden_function');
    expect(new SculptorError('compile.unsafe_regex', 'x').status).toBe(500);
  });
});

describe('evaluator processes', () => {
  it('start when an expression outside the fast path is compiled, or when a fast-path one bails', async () => {
    // A fresh copy of the modules: a pool of its own, not yet started.
    vi.resetModules();
    const fresh = await import('../../src/compile/compile-expression.ts');
    const { sharedExpressionPool, closeSharedExpressionPool: closeFresh } =
      await import('../../src/compile/jsonata/expression-pool.ts');
    try {
      const projection = fresh.compileExpression('{ "t": properties.periods[0].temperature }', at);
      expect(projection.fastPath).toBe(true);
      expect(sharedExpressionPool().stats().workers).toBe(0);
      // An array where the fast path expects an object: jsonata answers, in an evaluator.
      expect(await projection.evaluate({ properties: [{ periods: [{ temperature: 3 }] }] }, {})).toEqual({
        t: 3,
      });
      expect(sharedExpressionPool().stats().workers).toBeGreaterThan(0);
      await closeFresh();
      expect(fresh.compileExpression('$sum([1, 2])', at).fastPath).toBe(false);
      expect(sharedExpressionPool().stats().workers).toBeGreaterThan(0);
    } finally {
      await closeFresh();
      vi.resetModules();
    }
  });
});
