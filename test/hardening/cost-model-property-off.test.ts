/**
 * The cost model as a property, in the gateway's thread (`SCULPTOR_JSONATA_ISOLATION=off`; the
 * default, evaluator processes, is `cost-model-property-process.test.ts`) (docs/SECURITY.md, "Expressions"): for every row of the table —
 * every built-in and operator a sculpt may use — expressions built from templates over
 * adversarial inputs (large: 2 M-character strings, 1 M characters of strings in an array;
 * unicode: half a million astral characters; multi-character pads; wide: 10,000 objects; nested:
 * 120 rows of 4,000 numbers differing in the last, a 500-deep object) end within the shortest tool deadline, with an answer or a clean error, and
 * within the evaluation's memory: in the gateway's thread (`SCULPTOR_JSONATA_ISOLATION=off`,
 * no case raises its peak RSS by an evaluator's heap) and in evaluator processes (the default:
 * no evaluator dies of its heap). A row without templates fails the test, so a row added to the
 * table is exercised from the start.
 */
import { expect, it } from 'vitest';
import { compileExpression } from '../../src/compile/compile-expression.ts';
import { compileJsonata, evaluateJsonata } from '../../src/compile/jsonata/jsonata-options.ts';
import { JSONATA_LIMITS, POOL_DEFAULTS } from '../../src/config/jsonata-settings.ts';
import { reportFigures } from '../support/report-figures.ts';
import { cases, SCHEDULING_MS, SHORTEST_DEADLINE_MS, timed, unmatchedRows } from './cost-model-cases.ts';

const ALL = cases();

/**
 * Rows whose worst case the gateway's thread cannot stop at the deadline, only the boundary can:
 * jsonata evaluates a group-by's values all at once (`Promise.all` over 10,000 groups), and each
 * of them checks the time limit only as it starts. In evaluator processes these end by the
 * deadline like every other row (`cost-model-property-process.test.ts`); here they must still end,
 * within `OFF_MODE_OVERRUN_MS`. docs/SECURITY.md lists this under "Known gaps".
 */
const STOPPED_ONLY_BY_THE_BOUNDARY = new Set(['{ } (group, object)']);
const OFF_MODE_OVERRUN_MS = 5_000;
const at = () => ({ file: 'cost-model-property', line: 1, column: 1 });

it('every row of the cost model has templates, and every template compiles as a sculpt expression', () => {
  expect(unmatchedRows()).toEqual({ untested: [], unknown: [] });
  for (const c of ALL) expect(() => compileExpression(c.source, at), c.source).not.toThrow();
});

it('every case ends by the deadline, and none raises the peak RSS by an evaluator’s heap', async () => {
  const peakBefore = process.resourceUsage().maxRSS * 1024;
  const late: string[] = [];
  const grew: string[] = [];
  let slowest = { ms: 0, source: '' };
  for (const c of ALL) {
    const peak = process.resourceUsage().maxRSS;
    const deadlineAt = Date.now() + SHORTEST_DEADLINE_MS;
    const outcome = await timed(() =>
      evaluateJsonata(compileJsonata(c.source), {}, { inputs: c.inputs }, JSONATA_LIMITS, deadlineAt),
    );
    if (outcome.ms > slowest.ms) slowest = { ms: outcome.ms, source: c.source };
    const allowed = STOPPED_ONLY_BY_THE_BOUNDARY.has(c.row)
      ? OFF_MODE_OVERRUN_MS
      : SHORTEST_DEADLINE_MS + SCHEDULING_MS;
    if (outcome.ms > allowed) late.push(`${c.row}: ${c.source} took ${outcome.ms.toFixed(0)} ms`);
    const grown = (process.resourceUsage().maxRSS - peak) / 1024;
    if (grown >= POOL_DEFAULTS.heapMb)
      grew.push(`${c.row}: ${c.source} raised the peak RSS by ${grown.toFixed(0)} MiB`);
  }
  const grown = (process.resourceUsage().maxRSS * 1024 - peakBefore) / 2 ** 20;
  reportFigures(
    `[cost-model, off] ${ALL.length} cases; slowest ${slowest.ms.toFixed(0)} ms (${slowest.source}); peak RSS +${grown.toFixed(0)} MiB; ${grew.join('; ')}`,
  );
  expect(late).toEqual([]);
  // Per case: across cases the peak also holds garbage V8 has not yet collected.
  expect(grew).toEqual([]);
}, 120_000);
