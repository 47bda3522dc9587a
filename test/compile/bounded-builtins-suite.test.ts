/**
 * The bounded built-ins (every one that takes or makes strings or arrays), `&`
 * rewritten into a bounded call, and RE2 regexes answer JSONata's own suite exactly as the
 * suite expects, within the limits — every case, through the expression sculpts are compiled
 * with. A case the guardrails refuse (time, stack, sequence) is accepted when jsonata, with the
 * same guardrails and none of the bounds, refuses it too: the guardrails are not under test.
 */
import jsonata from 'jsonata';
import { expect, it } from 'vitest';
import { compileJsonata, JSONATA_LIMITS } from '../../src/compile/jsonata/jsonata-options.ts';
import { inputOf, loadSuite, same } from './jsonata-suite.ts';
import { reportFigures } from '../support/report-figures.ts';

const GUARDRAILS = new Set(['D1011', 'D1012', 'D2014', 'D2015']);
const { timeout, stack, sequence } = JSONATA_LIMITS;

async function codeOf(evaluate: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await evaluate();
    return undefined;
  } catch (err) {
    return (err as { code?: string }).code ?? 'error';
  }
}

it('answers every suite case as the suite expects', async () => {
  const cases = loadSuite();
  const wrong: string[] = [];
  let guarded = 0;
  let retried = 0;
  for (const { name, expr, testCase } of cases) {
    let value: unknown;
    let code: string | undefined;
    const expectedCode = testCase.code ?? testCase.error?.code;
    let ok = false;
    // The time guardrail (D1012, 250 ms) is the machine's as much as the expression's: a deep
    // recursion that takes 50–130 ms alone can pass 250 ms while the full suite loads both
    // cores. A timeout is evaluated again, twice at most, before it counts.
    for (let attempt = 1; attempt <= 3 && !ok; attempt++) {
      if (attempt > 1) retried++;
      value = undefined;
      code = await codeOf(async () => {
        value = await compileJsonata(expr).evaluate(inputOf(testCase), testCase.bindings);
      });
      ok = expectedCode
        ? code === expectedCode
        : code === undefined &&
          (testCase.undefinedResult ? value === undefined : same(value, testCase.result, testCase.unordered));
      if (code !== 'D1012' || expectedCode === 'D1012') break;
    }
    if (ok) continue;
    if (code !== undefined && GUARDRAILS.has(code)) {
      const plain = jsonata(expr, { timeout, stack, sequence });
      const plainCode = await codeOf(() => plain.evaluate(inputOf(testCase), testCase.bindings));
      if (plainCode !== undefined && GUARDRAILS.has(plainCode)) {
        guarded++;
        continue;
      }
    }
    wrong.push(`${name}: ${expr} → ${code ?? JSON.stringify(value)}`);
  }
  reportFigures(
    `[bounded built-ins] ${cases.length} suite cases, ${guarded} refused by the guardrails as without the bounds, ${wrong.length} answered otherwise, ${retried} timeout(s) evaluated again`,
  );
  expect(wrong).toEqual([]);
  expect(cases.length).toBeGreaterThan(1_600);
}, 60_000);
