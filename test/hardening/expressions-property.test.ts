/**
 * As a property: expressions built from the built-ins that allocate or scan — `$pad`,
 * `$join`, `$string`, `$replace`, `$split`, `$sort`, `$map`, `$zip`, `$distinct`, ranges, `&`,
 * the encoders and regexes — over sizes from nothing to 200,000,000 and hostile strings,
 * compiled as sculpt expressions are, always end with an answer or a clean JSONata error well
 * inside the shortest tool deadline (1 s) plus 100 ms, and memory stays bounded: in process,
 * and in a worker pool as `SCULPTOR_JSONATA_ISOLATION=worker` runs them.
 */
import fc from 'fast-check';
import { afterAll, expect, it } from 'vitest';
import { compileExpression } from '../../src/compile/compile-expression.ts';
import { createExpressionPool } from '../../src/compile/jsonata/expression-pool.ts';
import { reportFigures } from '../support/report-figures.ts';

const at = () => ({ file: 'property', line: 1, column: 1 });
const SHORTEST_DEADLINE_MS = 1000;

const size = fc.constantFrom(0, 1, 100, 10_000, 100_000, 10_000_000, 200_000_000);
const small = fc.constantFrom(0, 1, 10, 20, 28);
const text = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.nat({ max: 60 }).map((n) => `${'a'.repeat(n)}!`),
  fc.constant('ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab!'),
  fc.constant('€😀 '),
);
const quoted = (s: string) => JSON.stringify(s);
/** `&` doubling `s` n times: 2^n characters from a tiny expression. */
const doubled = (s: string, n: number) =>
  `($f := function($s, $n) { $n = 0 ? $s : $f($s & $s, $n - 1) }; $f(${quoted(s || 'x')}, ${n}))`;

/** An expression yielding a (possibly huge) string, and one yielding a (possibly long) array. */
const stringExpr = fc.oneof(
  fc.tuple(text, size).map(([s, n]) => `$pad(${quoted(s)}, ${n})`),
  fc.tuple(size, text).map(([n, s]) => `$pad("", ${n}, ${quoted(s.slice(0, 3) || 'x')})`),
  fc.tuple(size, text).map(([n, s]) => `$replace($pad("", ${n}, "a"), /a/, ${quoted(s)})`),
  fc.tuple(size, text).map(([n, s]) => `$replace($pad("", ${n}, "a"), "a", ${quoted(s)})`),
  size.map((n) => `$string([1..${n}])`),
  fc.tuple(size, text).map(([n, s]) => `$join($split($pad("", ${n}, "ab"), ""), ${quoted(s)})`),
  fc.tuple(size, size).map(([n, m]) => `($s := $pad("", ${n}, "x"); $s & $pad($s, ${m}))`),
  fc.tuple(text, small).map(([s, n]) => doubled(s, n)),
  fc.tuple(text, small).map(([s, n]) => `$encodeUrlComponent(${doubled(s, n)})`),
  fc.tuple(text, small).map(([s, n]) => `$base64encode(${doubled(s, n)})`),
  fc.tuple(text, small).map(([s, n]) => `$uppercase(${doubled(s, n)})`),
  fc.tuple(text, small).map(([s, n]) => `$substring(${doubled(s, n)}, 1, 3)`),
);
const arrayExpr = fc.oneof(
  size.map((n) => `$split($pad("", ${n}, "x"), "")`),
  size.map((n) => `$sort($split($pad("", ${n}, "xy"), ""))`),
  size.map((n) => `[1..${n}]`),
  size.map((n) => `$map([1..${n}], function($v) { $pad("", $v) })`),
  size.map((n) => `$sort([1..${n}], function($a, $b) { $a < $b })`),
  size.map((n) => `$zip([1..${n}], [1..${n}])`),
  size.map((n) => `$distinct([1..${n}].($ % 7))`),
  size.map((n) => `$distinct([1..${n}].{ "v": $ })`),
  fc.tuple(text, small).map(([s, n]) => `$split(${doubled(s, n)}, "")`),
);
/**
 * A catastrophic-backtracking pattern as a sculpt would write it: `^(\w+\s?){1,50}$`. A regex literal reaches
 * JSONata's RegExp as written, so the string holds one backslash each (written `\\` in this
 * file). Doubled, JSONata got `\\w`: a literal backslash and a `w`, which fails at the first
 * character and never backtracks, so the pattern was not exercised.
 */
const WORDS = '^(\\w+\\s?){1,50}$';
/** WORDS over `n` "a" and one "!", the expression the generator makes (30: 59.5 s on a backtracking engine). */
const scanOf = (re: string, n: number) =>
  `$contains($pad("", ${Math.min(n, 1_000_000)}, "a") & "!", /${re}/)`;
const scanExpr = fc
  .tuple(fc.constantFrom('^(a+)+$', WORDS, '^(a|a)+$', '(x+x+)+y', '^([a-z]+)*$', 'a'), size)
  .map(([re, n]) => scanOf(re, n));
/** Run first in each property, whatever the seed draws: WORDS at 30 characters and at 50,000. */
const WORDS_EXAMPLES: Array<[string]> = [[scanOf(WORDS, 30)], [scanOf(WORDS, 50_000)]];
const expression = fc.oneof(
  stringExpr.map((e) => `$length(${e})`),
  arrayExpr.map((e) => `$count(${e})`),
  scanExpr,
);

interface Run {
  slowest: number;
  slowestSource: string;
  errors: Map<string, number>;
  /** Expressions run that use WORDS. */
  words: number;
}

async function check(evaluate: (source: string) => Promise<unknown>, runs: number): Promise<Run> {
  const run: Run = { slowest: 0, slowestSource: '', errors: new Map(), words: 0 };
  await fc.assert(
    fc.asyncProperty(expression, async (source) => {
      if (source.includes(`/${WORDS}/`)) run.words++;
      const started = performance.now();
      try {
        await evaluate(source);
      } catch (err) {
        const code = (err as { code?: unknown }).code;
        // A clean error is one of JSONata's (or Sculptor's D900x limits): a code, never a crash.
        expect(typeof code, `${source} threw ${String(err)}`).toBe('string');
        run.errors.set(code as string, (run.errors.get(code as string) ?? 0) + 1);
      }
      const elapsed = performance.now() - started;
      if (elapsed > run.slowest) Object.assign(run, { slowest: elapsed, slowestSource: source });
      expect(elapsed, source).toBeLessThan(SHORTEST_DEADLINE_MS + 100);
    }),
    { numRuns: runs, seed: 13, examples: WORDS_EXAMPLES },
  );
  return run;
}

/** The figures docs/SECURITY.md quotes, printed only when asked for (SCULPTOR_TEST_VERBOSE=1). */
const report = (where: string, runs: number, run: Run, grewMb: number) =>
  reportFigures(
    `[expressions] ${where}: ${runs} expressions, slowest ${run.slowest.toFixed(0)} ms (${run.slowestSource}), RSS +${grewMb.toFixed(0)} MiB, errors ${JSON.stringify(Object.fromEntries(run.errors))}`,
  );

it('the words pattern reaches JSONata as written: \\w and \\s are word and space classes', async () => {
  const matches = (text: string) =>
    compileExpression(`$contains(${quoted(text)}, /${WORDS}/)`, at).evaluate({}, {});
  expect(await matches('ab cd ef')).toBe(true);
  expect(await matches('ab cd!')).toBe(false);
});

it('in process: any expression over the allocating built-ins ends, answer or clean error, inside the deadline', async () => {
  const rssBefore = process.memoryUsage().rss;
  const run = await check((source) => compileExpression(source, at).evaluate({}, {}), 200);
  const grewMb = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
  report('in process', 200, run, grewMb);
  expect(run.words).toBeGreaterThanOrEqual(WORDS_EXAMPLES.length);
  expect(grewMb).toBeLessThan(512);
}, 120_000);

const pool = createExpressionPool({ size: 1 });
afterAll(() => pool.close());

it('in a worker: the same, and the worker is never lost', async () => {
  await pool.evaluate('1', {}, {}); // the worker loads before anything is timed
  const rssBefore = process.memoryUsage().rss;
  // Compiled on this thread first, as a sculpt's expressions are at load.
  const run = await check((source) => {
    compileExpression(source, at);
    return pool.evaluate(source, {}, {});
  }, 100);
  const grewMb = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
  report('in a worker', 100, run, grewMb);
  expect(run.words).toBeGreaterThanOrEqual(WORDS_EXAMPLES.length);
  expect(pool.stats().lost).toBe(0);
  expect(pool.stats().killed).toBe(0);
}, 120_000);
