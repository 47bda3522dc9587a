/**
 * JSONata's own test suite (test/fixtures/jsonata-test-suite, TESTSUITE.md) as data: every case with
 * its expression, input and expectation, and the suite's notion of an equal answer.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const SUITE = join(import.meta.dirname, '../fixtures/jsonata-test-suite');

export interface SuiteCase {
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

export interface Loaded {
  name: string;
  expr: string;
  testCase: SuiteCase;
}

export function loadSuite(): Loaded[] {
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
export function inputOf(testCase: SuiteCase): unknown {
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
export function same(actual: unknown, expected: unknown, unordered = false): boolean {
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
