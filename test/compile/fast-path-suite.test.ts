/**
 * The gate of the JSONata fast path (docs/PERFORMANCE.md, "JSONata fast path, precisely"):
 * JSONata's own test suite (../shared/jsonata-test-suite, TESTSUITE.md). For every case whose
 * expression compiles into the fast path's subset, the fast path returns BAIL or exactly the
 * expected result, and BAIL for every case that expects an error. The counts are asserted, so
 * coverage cannot drop (or grow) without this file saying so.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import jsonata from 'jsonata';
import { expect, it } from 'vitest';
import { JSONATA_LIMITS } from '../../src/compile/compile-expression.ts';
import { BAIL, compileFastPath } from '../../src/compile/fast-path.ts';

const SUITE = join(import.meta.dirname, '../../../shared/jsonata-test-suite');

interface SuiteCase {
  expr?: string;
  'expr-file'?: string;
  data?: unknown;
  dataset?: string | null;
  bindings?: Record<string, unknown>;
  result?: unknown;
  undefinedResult?: boolean;
  code?: string;
  error?: { code?: string };
  unordered?: boolean;
}

interface Loaded {
  name: string;
  expr: string;
  testCase: SuiteCase;
}

function loadSuite(): Loaded[] {
  const cases: Loaded[] = [];
  const groups = join(SUITE, 'groups');
  for (const group of readdirSync(groups).sort()) {
    for (const file of readdirSync(join(groups, group)).sort()) {
      if (!file.endsWith('.json')) continue;
      const parsed = JSON.parse(readFileSync(join(groups, group, file), 'utf8')) as SuiteCase | SuiteCase[];
      const list = Array.isArray(parsed) ? parsed : [parsed];
      list.forEach((testCase, i) => {
        const expr =
          testCase.expr ??
          readFileSync(join(groups, group, testCase['expr-file'] ?? '(missing expr)'), 'utf8');
        cases.push({ name: `${group}/${file}${list.length > 1 ? `#${i}` : ''}`, expr, testCase });
      });
    }
  }
  return cases;
}

const datasets = new Map<string, unknown>();
function inputOf(testCase: SuiteCase): unknown {
  if ('data' in testCase) return testCase.data;
  if (testCase.dataset === null || testCase.dataset === undefined) return undefined;
  let data = datasets.get(testCase.dataset);
  if (data === undefined) {
    data = JSON.parse(readFileSync(join(SUITE, 'datasets', `${testCase.dataset}.json`), 'utf8'));
    datasets.set(testCase.dataset, data);
  }
  return data;
}

/** Deep equality where a key that is absent must stay absent (an `undefined` value is not absence). */
function same(actual: unknown, expected: unknown, unordered = false): boolean {
  if (Array.isArray(actual) || Array.isArray(expected)) {
    if (!Array.isArray(actual) || !Array.isArray(expected) || actual.length !== expected.length) return false;
    if (unordered) {
      const rest = [...expected];
      return actual.every((a) => {
        const i = rest.findIndex((e) => same(a, e));
        return i >= 0 && rest.splice(i, 1).length === 1;
      });
    }
    return actual.every((a, i) => same(a, expected[i]));
  }
  if (isObject(actual) && isObject(expected)) {
    const keys = Object.keys(actual);
    return (
      keys.length === Object.keys(expected).length &&
      keys.every((k) => Object.hasOwn(expected, k) && same(actual[k], expected[k]))
    );
  }
  return actual === expected;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const show = (value: unknown) =>
  value === BAIL ? 'BAIL' : value === undefined ? 'undefined' : JSON.stringify(value);

/** Pinned: change them only with a reason (more of the subset, or a rule made stricter). */
const EXPECTED = { cases: 1686, compiled: 133, answered: 89, erroneousCompiled: 0 };

it('answers every JSONata suite case it compiles exactly as the suite expects, or bails', async () => {
  const cases = loadSuite();
  const failures: string[] = [];
  let compiled = 0;
  let answered = 0;
  let erroneousCompiled = 0;
  for (const { name, expr, testCase } of cases) {
    let expression: jsonata.Expression;
    try {
      expression = jsonata(expr, { ...JSONATA_LIMITS });
    } catch {
      continue; // a syntax error: nothing to compile
    }
    const fast = compileFastPath(expression.ast());
    if (!fast) continue;
    compiled += 1;
    const input = inputOf(testCase);
    const value = fast(input, testCase.bindings);
    if (value !== BAIL) answered += 1;
    const expectsError = testCase.code !== undefined || testCase.error !== undefined;
    if (expectsError) {
      erroneousCompiled += 1;
      if (value !== BAIL)
        failures.push(`${name}: ${expr} expects an error, the fast path answered ${show(value)}`);
      continue;
    }
    if (value === BAIL) continue;
    const expected = testCase.undefinedResult ? undefined : testCase.result;
    if (!same(value, expected, testCase.unordered)) {
      failures.push(`${name}: ${expr} expects ${show(expected)}, the fast path answered ${show(value)}`);
    }
    // The harness reads each case as jsonata does: jsonata itself gives the expected answer.
    const reference = (await expression.evaluate(input, testCase.bindings)) as unknown;
    if (!same(reference, expected, testCase.unordered)) {
      failures.push(
        `${name}: ${expr}: jsonata answers ${show(reference)}, the suite expects ${show(expected)}`,
      );
    }
  }
  console.log(
    `JSONata suite: ${cases.length} cases; the fast path compiles ${compiled}, answers ${answered} itself ` +
      `(all as expected) and bails on ${compiled - answered}; ${erroneousCompiled} compiled cases expect an error.`,
  );
  expect(failures).toEqual([]);
  expect({ cases: cases.length, compiled, answered, erroneousCompiled }).toEqual(EXPECTED);
});

it('catches what the prototype got wrong: group-by on a variable is outside the subset', () => {
  // object-constructor/case026: `$${ ... }` groups; the first prototype took it for `$`.
  for (const expr of ['$${"a": 1}', 'a{"x": 1}', 'a.b{"x": b}', '$.{"a": 1}{"b": 2}']) {
    expect(compileFastPath(jsonata(expr).ast()), expr).toBeUndefined();
  }
});
