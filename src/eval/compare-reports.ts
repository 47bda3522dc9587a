import type { CatalogReport, Metrics, Rate } from './eval-report.ts';
import { fisherExact, type Mean } from './statistics.ts';

/**
 * Two catalogs side by side, every metric of each scenario and overall, with the differences
 * that matter flagged:
 * - shares (tool choice, argument validity and correctness): a two-sided Fisher exact test on
 *   the counts, flagged at p < 0.05 — with 5 runs a side, 5/5 against 1/5 is (p ≈ 0.048), 5/5
 *   against 2/5 is not;
 * - means (calls per task, tokens, latency): flagged when they differ by at least 10 % and by
 *   more than twice the standard error of the difference (with one value a side, where there is
 *   no spread to judge by, by at least 25 %). A rule of thumb, said as such in the report.
 */
export const RATE_METRICS = ['toolChoice', 'argumentValidity', 'argumentCorrectness'] as const;
export const MEAN_METRICS = ['callsPerTask', 'promptTokens', 'completionTokens', 'latencyMs'] as const;
export type MetricName = (typeof RATE_METRICS)[number] | (typeof MEAN_METRICS)[number];

export const SIGNIFICANCE = 0.05;

export interface Difference {
  metric: MetricName;
  a: number | null;
  b: number | null;
  /** b − a (rates as shares, 0–1). */
  delta: number | null;
  meaningful: boolean;
  /** Which side is better when the difference is meaningful (higher shares, lower costs). */
  better?: 'a' | 'b';
  /** Why it is flagged or not: the test and its value. */
  basis: string;
}

export interface ScenarioComparison {
  file: string;
  scenario: string;
  differences: Difference[];
}

export interface Comparison {
  a: string;
  b: string;
  overall: Difference[];
  scenarios: ScenarioComparison[];
}

export function compareReports(a: CatalogReport, b: CatalogReport): Comparison {
  const key = (s: { file: string; scenario: string }) => JSON.stringify([s.file, s.scenario]);
  const other = new Map(b.scenarios.map((s) => [key(s), s]));
  return {
    a: a.label,
    b: b.label,
    overall: compareMetrics(a.overall, b.overall),
    scenarios: a.scenarios.flatMap((s) => {
      const t = other.get(key(s));
      return t
        ? [{ file: s.file, scenario: s.scenario, differences: compareMetrics(s.metrics, t.metrics) }]
        : [];
    }),
  };
}

export function compareMetrics(a: Metrics, b: Metrics): Difference[] {
  return [
    ...RATE_METRICS.map((m) => compareRates(m, a[m], b[m])),
    ...MEAN_METRICS.map((m) => compareMeans(m, a[m], b[m])),
  ];
}

function compareRates(metric: MetricName, a: Rate, b: Rate): Difference {
  if (a.rate === null || b.rate === null) {
    return { metric, a: a.rate, b: b.rate, delta: null, meaningful: false, basis: 'nothing to compare' };
  }
  const p = fisherExact(a.hits, a.of, b.hits, b.of);
  const meaningful = p < SIGNIFICANCE && a.rate !== b.rate;
  return {
    metric,
    a: a.rate,
    b: b.rate,
    delta: b.rate - a.rate,
    meaningful,
    ...(meaningful ? { better: b.rate > a.rate ? ('b' as const) : ('a' as const) } : {}),
    basis: `Fisher exact p ${p < 0.001 ? '< 0.001' : `= ${p.toFixed(3)}`} (${a.hits}/${a.of} against ${b.hits}/${b.of})`,
  };
}

function compareMeans(metric: MetricName, a: Mean | undefined, b: Mean | undefined): Difference {
  if (!a || !b) {
    return {
      metric,
      a: a?.mean ?? null,
      b: b?.mean ?? null,
      delta: null,
      meaningful: false,
      basis: 'not reported on both sides',
    };
  }
  const delta = b.mean - a.mean;
  const scale = Math.max(Math.abs(a.mean), Math.abs(b.mean));
  const relative = scale === 0 ? 0 : Math.abs(delta) / scale;
  let meaningful: boolean;
  let basis: string;
  if (a.n < 2 || b.n < 2) {
    meaningful = relative >= 0.25;
    basis = `${(relative * 100).toFixed(0)} % apart, one value a side (flagged from 25 %)`;
  } else {
    const se = Math.sqrt(a.sd ** 2 / a.n + b.sd ** 2 / b.n);
    meaningful = relative >= 0.1 && Math.abs(delta) > 2 * se;
    basis = `${(relative * 100).toFixed(0)} % apart, ${se === 0 ? 'no spread' : Math.abs(delta) / se > 100 ? 'over 100 standard errors' : `${(Math.abs(delta) / se).toFixed(1)} standard errors`} (flagged from 10 % and 2)`;
  }
  return {
    metric,
    a: a.mean,
    b: b.mean,
    delta,
    meaningful,
    ...(meaningful ? { better: delta < 0 ? ('b' as const) : ('a' as const) } : {}),
    basis,
  };
}
