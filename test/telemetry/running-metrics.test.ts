/**
 * The gateway counts invocation metrics itself and hands them to prom-client
 * at scrape time (runningCounter, runningHistogram): the exposition must be
 * exactly what prom-client's own Counter and Histogram give for the same calls.
 */
import fc from 'fast-check';
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { runningCounter, runningHistogram } from '../../src/telemetry/metrics.ts';

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const labelNames = ['tool', 'step', 'cache'] as const;

/** One observation: a label set drawn from a few values, and a duration (seconds). */
const observation = fc.record({
  tool: fc.constantFrom('a', 'b_tool', 'with "quote"'),
  step: fc.constantFrom('s1', 's2'),
  cache: fc.constantFrom('hit', 'miss', 'off'),
  seconds: fc.oneof(
    fc.constantFrom(0, 0.005, 0.01, 1, 30, 30.0001, 1e6),
    fc.double({ min: 0, max: 100, noNaN: true }),
  ),
});

function both() {
  const ours = new Registry();
  const reference = new Registry();
  const config = (registry: Registry) => ({
    name: 'x_seconds',
    help: 'Help text.',
    labelNames,
    buckets: BUCKETS,
    registers: [registry],
  });
  const counted = (registry: Registry) => ({
    name: 'x_total',
    help: 'Counted.',
    labelNames,
    registers: [registry],
  });
  return {
    ours,
    reference,
    histogram: runningHistogram(config(ours)),
    counter: runningCounter(counted(ours)),
    refHistogram: new Histogram(config(reference)),
    refCounter: new Counter(counted(reference)),
  };
}

describe('running metrics', () => {
  it('expose exactly what prom-client exposes for the same observations, scrape after scrape', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(observation, { maxLength: 40 }), { maxLength: 4 }),
        async (batches) => {
          const m = both();
          for (const batch of batches) {
            for (const o of batch) {
              const labels = { tool: o.tool, step: o.step, cache: o.cache };
              m.histogram.observe(o.seconds, o.tool, o.step, o.cache);
              m.counter.add(o.tool, o.step, o.cache);
              m.refHistogram.observe(labels, o.seconds);
              m.refCounter.inc(labels);
            }
            expect(await m.ours.metrics()).toBe(await m.reference.metrics());
            expect(await m.ours.getMetricsAsJSON()).toEqual(await m.reference.getMetricsAsJSON());
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
