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
  /** Names the target: its last measured rate sizes the next run (see runTimed). */
  key?: string;
  url: string;
  method?: 'GET' | 'POST';
  /** Requests each connection sends in turn, cycling (paths below `url`). Default: `url` itself. */
  paths?: string[];
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  durationSec: number;
  /** Requests to send in all; set by runTimed. */
  amount?: number;
  /** Each `[<id>]` in the body becomes a fresh id per request (a session-keeping MCP server routes answers by JSON-RPC id). */
  idReplacement?: boolean;
  /** Requests of the first, sizing run (default 25 per connection; fewer for a server that answers a few a second). */
  calibrate?: number;
}

export interface LoadResult {
  requests: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  /** How many of each status outside 2xx, to say what the failures were. */
  failedStatuses?: Record<string, number>;
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
  const failedStatuses: Record<string, number> = {};
  return new Promise((resolve, reject) => {
    const instance = autocannon({
      url: spec.url,
      method: spec.method ?? 'GET',
      headers: spec.headers ?? {},
      ...(spec.body !== undefined ? { body: spec.body } : {}),
      ...(spec.paths ? { requests: spec.paths.map((path) => ({ path })) } : {}),
      connections: spec.connections,
      pipelining: 1,
      ...(spec.amount !== undefined ? { amount: spec.amount } : { duration: spec.durationSec }),
      ...(spec.idReplacement ? { idReplacement: true } : {}),
      // autocannon reports only at its next sample tick after the last response: keep that wait short.
      sampleInt: 100,
      timeout: 10,
    });
    const started = performance.now();
    let lastResponse = started;
    instance.on('response', (_client, status, _bytes, ms) => {
      lastResponse = performance.now();
      if (status < 200 || status >= 300) {
        failedStatuses[status] = (failedStatuses[status] ?? 0) + 1;
        return;
      }
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
        // From the start to the last response: autocannon's own duration runs to its next sample tick.
        rps: ok / Math.max(1e-3, (lastResponse - started) / 1000),
        p50Ms: percentile(sorted, 0.5),
        p99Ms: percentile(sorted, 0.99),
        non2xx: result.non2xx,
        failedStatuses,
        errors: result.errors,
        timeouts: result.timeouts,
      });
    });
  });
}

const rates = new Map<string, number>();

/**
 * A run of about `durationSec` that ends when its last responses are in.
 * autocannon's own timer destroys the connections with requests in flight,
 * and Sculptor counts callers hanging up mid-call as backend failures (its
 * circuit breaker then pauses the backend for 30 s), so runs are sized by
 * request count instead: the target's last measured rate × the duration
 * (a short calibration run the first time).
 */
export async function runTimed(spec: LoadSpec): Promise<LoadResult> {
  const key = spec.key ?? `${spec.method ?? 'GET'} ${spec.url} ${spec.connections}`;
  if (!rates.has(key)) {
    const calibration = await runLoad({ ...spec, amount: spec.calibrate ?? spec.connections * 25 });
    rates.set(key, calibration.rps);
  }
  const amount = Math.max(spec.connections, Math.round(rates.get(key)! * spec.durationSec));
  const result = await runLoad({ ...spec, amount });
  if (result.rps > 0) rates.set(key, result.rps);
  return result;
}

if (import.meta.main) {
  process.on('message', (message: unknown) => {
    const m = message as { type?: string; id?: number; spec?: LoadSpec };
    if (m.type === 'stop') process.exit(0);
    if (m.type !== 'run' || !m.spec) return;
    runTimed(m.spec).then(
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
