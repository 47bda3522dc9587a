import { expect } from 'vitest';

/**
 * Calls `${url}/livez` every 20 ms while `work` runs: the answers' times, slowest first.
 * (An evaluation holding the event loop would hold every one of them.)
 */
export async function probeLivez<T>(url: string, work: Promise<T>): Promise<{ result: T; times: number[] }> {
  let done = false;
  const times: number[] = [];
  const probing = (async () => {
    while (!done) {
      const started = performance.now();
      const res = await fetch(`${url}/livez`);
      await res.arrayBuffer();
      expect(res.status).toBe(200);
      times.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  try {
    return { result: await work, times };
  } finally {
    done = true;
    await probing;
    times.sort((a, b) => b - a);
  }
}

/**
 * /livez answers in < 100 ms throughout. One answer may be late by the OS scheduler's doing
 * on a shared 2-core machine (the suite runs files in parallel), never by much.
 */
export function expectLivezFast(times: number[], minimum = 10): void {
  expect(times.length).toBeGreaterThanOrEqual(minimum);
  expect(times[1] ?? 0).toBeLessThan(100);
  expect(times[0] ?? 0).toBeLessThan(300);
}
