import { readFileSync } from 'node:fs';
import { expect } from 'vitest';

/** How long one /livez call may take before it counts as unanswered: a frozen gateway fails fast. */
const PROBE_TIMEOUT_MS = 1_000;

/**
 * Calls `${url}/livez` every 20 ms while `work` runs, again and again, until there are at least
 * `samples` answers and `work` has run once: every answer is taken while an evaluation is under
 * way (an evaluation holding the event loop would hold the answer). A refused evaluation can
 * take a few milliseconds, less than one probe: hence the repeats. Bounded by `maxMs`.
 * Returns every result of `work` and the answers' times, slowest first (an unanswered probe
 * counts as its timeout).
 */
export async function probeLivez<T>(
  url: string,
  work: () => Promise<T>,
  { samples = 5, maxMs = 10_000 }: { samples?: number; maxMs?: number } = {},
): Promise<{ results: T[]; times: number[] }> {
  let done = false;
  const times: number[] = [];
  const probing = (async () => {
    while (!done) {
      const started = performance.now();
      try {
        const res = await fetch(`${url}/livez`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
        await res.arrayBuffer();
        times.push(res.status === 200 ? performance.now() - started : Number.POSITIVE_INFINITY);
      } catch {
        times.push(Number.POSITIVE_INFINITY);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const results: T[] = [];
  const until = performance.now() + maxMs;
  try {
    do {
      results.push(await work());
      // A macrotask between runs, so a `work` that settles at once cannot starve the probes.
      await new Promise((r) => setImmediate(r));
    } while (times.length < samples && performance.now() < until);
    return { results, times };
  } finally {
    done = true;
    await probing;
    times.sort((a, b) => b - a);
  }
}

/** /livez answered every probe, at least `minimum` of them, each in < 100 ms. */
export function expectLivezFast(times: number[], minimum = 5): void {
  expect(times.length).toBeGreaterThanOrEqual(minimum);
  expect(times[0], `slowest /livez of ${times.length}`).toBeLessThan(100);
}

/** Resident set size of a process in bytes, from /proc (Linux): a child gateway's memory. */
export function rssOf(pid: number): number {
  const kib = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (kib === undefined) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kib) * 1024;
}

/**
 * A test whose /livez probes may meet the OS scheduler on a shared 2-core machine (at load 6, a
 * process can wait 100+ ms for its turn whatever it runs) runs again, twice at most: an
 * evaluation that holds the event loop past 100 ms holds it every time, and fails every run.
 */
export const SCHEDULER_RETRIES = { retry: 2 };
