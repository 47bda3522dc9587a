/**
 * The gate of the JSONata fast path (docs/PERFORMANCE.md, "JSONata fast path, precisely"):
 * JSONata's own test suite (test/fixtures/jsonata-test-suite, TESTSUITE.md). For every case whose
 * expression compiles into the fast path's subset, the fast path returns BAIL or exactly the
 * expected result, and BAIL for every case that expects an error. The counts are asserted, so
 * coverage cannot drop (or grow) without this file saying so.
 */
import jsonata from 'jsonata';
import { expect, it } from 'vitest';
import { JSONATA_LIMITS } from '../../src/compile/compile-expression.ts';
import { BAIL, compileFastPath } from '../../src/compile/fast-path.ts';
import { inputOf, loadSuite, same } from './jsonata-suite.ts';
import { reportFigures } from '../support/report-figures.ts';

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
  reportFigures(
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
