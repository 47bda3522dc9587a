/**
 * The load generator: autocannon's programmatic API in a child process of
 * its own, so it never shares an event loop with a server it measures.
 * It takes `run` messages and answers each with a LoadResult.
 *
 * autocannon's own latency histogram keeps whole milliseconds (its HDR
 * histogram's lowest discernible value is 1 ms), too coarse for a sub-ms
 * comparison, so every response time (µs resolution, from its `response`
 * event) is kept and the percentiles are computed from all of them.
 */
import { createRequire } from 'node:module';
import { failStart } from './child.ts';
import { percentile } from './stats.ts';

export interface LoadSpec {
  url: string;
  method?: 'GET' | 'POST';
  /** Requests each connection sends in turn, cycling (paths below `url`). Default: `url` itself. */
  paths?: string[];
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  durationSec: number;
}

export interface LoadResult {
  requests: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

interface AutocannonResult {
  duration: number;
  non2xx: number;
  errors: number;
  timeouts: number;
}
interface AutocannonInstance {
  on(event: 'response', listener: (client: unknown, status: number, bytes: number, ms: number) => void): void;
  on(event: 'done', listener: (result: AutocannonResult) => void): void;
  on(event: 'error', listener: (err: Error) => void): void;
}
type Autocannon = (options: Record<string, unknown>) => AutocannonInstance;

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export function runLoad(spec: LoadSpec): Promise<LoadResult> {
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  let ok = 0;
  return new Promise((resolve, reject) => {
    const instance = autocannon({
      url: spec.url,
      method: spec.method ?? 'GET',
      headers: spec.headers ?? {},
      ...(spec.body !== undefined ? { body: spec.body } : {}),
      ...(spec.paths ? { requests: spec.paths.map((path) => ({ path })) } : {}),
      connections: spec.connections,
      pipelining: 1,
      duration: spec.durationSec,
      timeout: 10,
    });
    instance.on('response', (_client, status, _bytes, ms) => {
      if (status < 200 || status >= 300) return;
      ok++;
      if (count === latencies.length) {
        const bigger = new Float64Array(latencies.length * 2);
        bigger.set(latencies);
        latencies = bigger;
      }
      latencies[count++] = ms;
    });
    instance.on('error', reject);
    instance.on('done', (result) => {
      const sorted = latencies.subarray(0, count).sort();
      resolve({
        requests: ok,
        rps: ok / result.duration,
        p50Ms: percentile(sorted, 0.5),
        p99Ms: percentile(sorted, 0.99),
        non2xx: result.non2xx,
        errors: result.errors,
        timeouts: result.timeouts,
      });
    });
  });
}

if (import.meta.main) {
  process.on('message', (message: unknown) => {
    const m = message as { type?: string; id?: number; spec?: LoadSpec };
    if (m.type === 'stop') process.exit(0);
    if (m.type !== 'run' || !m.spec) return;
    runLoad(m.spec).then(
      (result) => process.send?.({ type: 'result', id: m.id, result }),
      (err: unknown) => process.send?.({ type: 'result', id: m.id, error: String(err) }),
    );
  });
  process.on('disconnect', () => process.exit(0));
  try {
    process.send?.({ type: 'ready' });
  } catch (err) {
    failStart(err);
  }
}
