/**
 * The little statistics a comparison needs, written out rather than imported: a two-sided
 * Fisher exact test (proportions from a handful of runs, where a normal approximation is
 * wrong) and means with their spread.
 */

export interface Mean {
  mean: number;
  /** Sample standard deviation (0 for one value). */
  sd: number;
  n: number;
}

export function meanOf(values: readonly number[]): Mean | undefined {
  if (values.length === 0) return undefined;
  const n = values.length;
  const mean = values.reduce((a, b) => a + b, 0) / n;
  const sd = n < 2 ? 0 : Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1));
  return { mean, sd, n };
}

/** The value at quantile q (0–1) of a list, by nearest rank. */
export function quantile(values: readonly number[], q: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

const logFactorials: number[] = [0];
function logFactorial(n: number): number {
  for (let i = logFactorials.length; i <= n; i++) logFactorials[i] = logFactorials[i - 1]! + Math.log(i);
  return logFactorials[n]!;
}

/**
 * Two-sided Fisher exact test of a 2×2 table: a successes of n1 against b successes of n2.
 * The p-value sums the probabilities of every table with the same margins that is no more
 * likely than the one observed.
 */
export function fisherExact(a: number, n1: number, b: number, n2: number): number {
  const successes = a + b;
  const total = n1 + n2;
  const logP = (x: number) =>
    logFactorial(successes) +
    logFactorial(total - successes) +
    logFactorial(n1) +
    logFactorial(n2) -
    logFactorial(x) -
    logFactorial(n1 - x) -
    logFactorial(successes - x) -
    logFactorial(n2 - successes + x) -
    logFactorial(total);
  const observed = logP(a);
  let p = 0;
  for (let x = Math.max(0, successes - n2); x <= Math.min(n1, successes); x++) {
    const lp = logP(x);
    // A relative tolerance, so tables exactly as likely as the observed one count despite rounding.
    if (lp <= observed + 1e-7) p += Math.exp(lp);
  }
  return Math.min(1, p);
}
