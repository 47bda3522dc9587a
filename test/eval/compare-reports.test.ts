import { describe, expect, it } from 'vitest';
import { compareMetrics } from '../../src/eval/compare-reports.ts';
import type { Metrics } from '../../src/eval/eval-report.ts';
import { fisherExact, meanOf, quantile } from '../../src/eval/statistics.ts';

describe('statistics', () => {
  it('computes two-sided Fisher exact p-values (values checked by hand from the hypergeometric law)', () => {
    // 5/5 against 1/5: tables as or less likely are x = 5 and x = 1, each 5/210.
    expect(fisherExact(5, 5, 1, 5)).toBeCloseTo(10 / 210, 10);
    // 5/5 against 2/5: x = 5 and x = 2, each 10/120.
    expect(fisherExact(5, 5, 2, 5)).toBeCloseTo(20 / 120, 10);
    // 3/3 against 0/3: 2/20.
    expect(fisherExact(3, 3, 0, 3)).toBeCloseTo(0.1, 10);
    expect(fisherExact(4, 8, 4, 8)).toBeCloseTo(1, 10);
    // Symmetric in the sides.
    expect(fisherExact(1, 10, 9, 10)).toBeCloseTo(fisherExact(9, 10, 1, 10), 12);
  });

  it('gives means with their spread, and quantiles by nearest rank', () => {
    expect(meanOf([2, 4, 4, 4, 5, 5, 7, 9])).toMatchObject({ mean: 5, n: 8 });
    expect(meanOf([2, 4, 4, 4, 5, 5, 7, 9])!.sd).toBeCloseTo(2.138, 3);
    expect(meanOf([3])).toEqual({ mean: 3, sd: 0, n: 1 });
    expect(meanOf([])).toBeUndefined();
    expect(quantile([5, 1, 3, 2, 4], 0.5)).toBe(3);
    expect(quantile([5, 1, 3, 2, 4], 0.95)).toBe(5);
  });
});

const rate = (hits: number, of: number) => ({ hits, of, rate: of === 0 ? null : hits / of });
function metrics(choice: [number, number], calls: number[], tokens: number[]): Metrics {
  return {
    tasks: calls.length,
    turns: choice[1],
    toolChoice: rate(...choice),
    argumentValidity: rate(...choice),
    argumentCorrectness: rate(...choice),
    callsPerTask: meanOf(calls)!,
    promptTokens: meanOf(tokens)!,
  };
}

describe('comparing two catalogs', () => {
  const byMetric = (a: Metrics, b: Metrics) =>
    Object.fromEntries(compareMetrics(a, b).map((d) => [d.metric, d]));

  it('flags a share only when Fisher’s test says it is unlikely to be chance', () => {
    const five = byMetric(metrics([5, 5], [1], [100]), metrics([1, 5], [1], [100]));
    expect(five.toolChoice).toMatchObject({ a: 1, b: 0.2, meaningful: true, better: 'a' });
    expect(five.toolChoice!.delta).toBeCloseTo(-0.8);
    expect(five.toolChoice!.basis).toMatch(/Fisher exact p = 0\.048 \(5\/5 against 1\/5\)/);
    const two = byMetric(metrics([5, 5], [1], [100]), metrics([2, 5], [1], [100]));
    expect(two.toolChoice).toMatchObject({ meaningful: false });
    expect(two.toolChoice!.better).toBeUndefined();
  });

  it('flags a mean from 10 % and two standard errors, lower costs being better', () => {
    const tight = byMetric(
      metrics([5, 5], [1, 1, 1, 1], [500, 510, 490, 500]),
      metrics([5, 5], [3, 3, 3, 4], [9000, 9100, 8900, 9000]),
    );
    expect(tight.callsPerTask).toMatchObject({ meaningful: true, better: 'a' });
    expect(tight.promptTokens).toMatchObject({ meaningful: true, better: 'a' });
    // 10 % apart but within the noise: not flagged.
    const noisy = byMetric(metrics([5, 5], [1, 1], [100, 300]), metrics([5, 5], [1, 1], [120, 330]));
    expect(noisy.promptTokens).toMatchObject({ meaningful: false });
    // One value a side: no spread to judge by, flagged from 25 %.
    expect(byMetric(metrics([1, 1], [1], [100]), metrics([1, 1], [1], [140])).promptTokens).toMatchObject({
      meaningful: true,
      better: 'a',
    });
    expect(byMetric(metrics([1, 1], [1], [100]), metrics([1, 1], [1], [120])).promptTokens).toMatchObject({
      meaningful: false,
    });
  });

  it('says when a metric cannot be compared instead of inventing a value', () => {
    const a = metrics([0, 0], [0], [100]);
    const { promptTokens: _tokens, ...withoutUsage } = metrics([0, 0], [0], [100]);
    const d = byMetric(a, withoutUsage);
    expect(d.toolChoice).toMatchObject({ a: null, b: null, delta: null, meaningful: false });
    expect(d.promptTokens).toMatchObject({
      a: 100,
      b: null,
      delta: null,
      meaningful: false,
      basis: 'not reported on both sides',
    });
  });
});
