/**
 * Figures a test measured (latencies, counts, times, memory): printed only
 * when SCULPTOR_TEST_VERBOSE=1, so `npm test` shows the test runner's output
 * and nothing else. Tests assert on their figures; printing them is for a
 * person tuning or investigating, not for the pass/fail verdict.
 *
 * `{ ci: true }` also prints under CI (the CI variable set): figures an issue
 * tracks from run to run (the scale drills, the designer corpus), kept in CI
 * logs without a flag.
 */
export function reportFigures(text: string, options: { ci?: boolean } = {}): void {
  const verbose = process.env.SCULPTOR_TEST_VERBOSE === '1';
  const ci = options.ci === true && Boolean(process.env.CI) && process.env.CI !== 'false';
  if (verbose || ci) console.info(text);
}
