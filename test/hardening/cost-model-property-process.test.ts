/**
 * The cost model as a property, in evaluator processes (`SCULPTOR_JSONATA_ISOLATION=process`, the
 * default; the gateway's own thread is `cost-model-property-off.test.ts`) (docs/SECURITY.md, "Expressions"): for every row of the table —
 * every built-in and operator a sculpt may use — expressions built from templates over
 * adversarial inputs (large: 2 M-character strings, 1 M characters of strings in an array;
 * unicode: half a million astral characters; multi-character pads; wide: 10,000 objects; nested:
 * 120 rows of 4,000 numbers differing in the last, a 500-deep object) end within the shortest tool deadline, with an answer or a clean error, and
 * within the evaluation's memory: in the gateway's thread (`SCULPTOR_JSONATA_ISOLATION=off`,
 * its peak RSS grows by less than an evaluator's heap) and in evaluator processes (the default:
 * no evaluator dies of its heap). A row without templates fails the test, so a row added to the
 * table is exercised from the start.
 */
import { afterAll, expect, it } from 'vitest';
import { createExpressionPool } from '../../src/compile/jsonata/expression-pool.ts';
import { reportFigures } from '../support/report-figures.ts';
import { cases, SCHEDULING_MS, SHORTEST_DEADLINE_MS, timed } from './cost-model-cases.ts';

const ALL = cases();
const pool = createExpressionPool({ size: 2 }, 'process');
afterAll(() => pool.close());

it('every case ends by the deadline, and no evaluator dies of its heap', async () => {
  await pool.evaluate('1', {}, {});
  const late: string[] = [];
  const died: string[] = [];
  let slowest = { ms: 0, source: '' };
  for (const c of ALL) {
    const outcome = await timed(() =>
      pool.evaluate(c.source, {}, { inputs: c.inputs }, AbortSignal.timeout(SHORTEST_DEADLINE_MS)),
    );
    if (outcome.ms > slowest.ms) slowest = { ms: outcome.ms, source: c.source };
    if (outcome.ms > SHORTEST_DEADLINE_MS + SCHEDULING_MS)
      late.push(`${c.row}: ${c.source} took ${outcome.ms.toFixed(0)} ms`);
    if (outcome.code === 'W1003' || outcome.code === 'W1004')
      died.push(`${c.row}: ${c.source} (${outcome.code})`);
  }
  reportFigures(
    `[cost-model, process] ${ALL.length} cases; slowest ${slowest.ms.toFixed(0)} ms (${slowest.source}); ${JSON.stringify(pool.stats())}`,
  );
  expect(late).toEqual([]);
  expect(died).toEqual([]);
  expect(pool.stats().lost).toBe(0);
}, 150_000);
