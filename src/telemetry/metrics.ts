/**
 * Prometheus metrics (prom-client), served at /metrics. Labels are bounded:
 * tool names, versions, step ids and backends come from the catalog, outcomes
 * are error codes, statuses are HTTP status codes. No label ever holds a
 * value a caller or an LLM supplied.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** What one invocation reports (the engine's InvocationReport satisfies it). */
export interface InvocationMetrics {
  tool: string;
  version: number;
  outcome: string;
  durationMs: number;
  steps: ReadonlyArray<{
    id: string;
    backend: string;
    cache: string;
    status?: number;
    errorCode?: string;
    durationMs: number;
  }>;
}

/** Counters a cache keeps itself (CacheStore.stats(), StepCache.stats()), read at scrape time. */
export type CounterSource = () => Readonly<Record<string, number>>;

export interface GatewayMetrics {
  registry: Registry;
  contentType: string;
  /** Invocations running now. */
  inFlight: Gauge;
  /** Records one finished invocation and its steps. */
  observe(report: InvocationMetrics): void;
  /** The Prometheus text exposition. */
  render(): Promise<string>;
}

export interface MetricsOptions {
  /** The store's counters (hits, misses, errors, timeouts, …) by name. */
  cacheStore?: CounterSource;
  /** The step cache's counters (integrityViolations, …) by name. */
  stepCache?: CounterSource;
  /** Node process metrics (CPU, memory, event-loop lag, GC). Default true. */
  processMetrics?: boolean;
}

/** Codes for which no request reached the backend, although the step did not come from the cache. */
const NOT_SENT = new Set(['upstream.credentials_missing', 'upstream.forbidden_address', 'projection.failed']);

export function createMetrics(options: MetricsOptions = {}): GatewayMetrics {
  const registry = new Registry();
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry });

  const invocations = new Counter({
    name: 'sculptor_invocations_total',
    help: 'Tool invocations, by tool, version and outcome (ok or the error code).',
    labelNames: ['tool', 'version', 'outcome'] as const,
    registers: [registry],
  });
  const invocationSeconds = new Histogram({
    name: 'sculptor_invocation_duration_seconds',
    help: 'Invocation latency, validation to checked output.',
    labelNames: ['tool', 'version', 'outcome'] as const,
    buckets: SECONDS,
    registers: [registry],
  });
  const stepSeconds = new Histogram({
    name: 'sculptor_step_duration_seconds',
    help: 'Step latency, by tool, step, backend and cache outcome (hit, miss, shared, bypass, off).',
    labelNames: ['tool', 'step', 'backend', 'cache'] as const,
    buckets: SECONDS,
    registers: [registry],
  });
  const stepCache = new Counter({
    name: 'sculptor_step_cache_total',
    help: 'Cache look-ups of cached steps: hit, miss, shared (joined a load in flight), bypass (no cache configured).',
    labelNames: ['tool', 'step', 'outcome'] as const,
    registers: [registry],
  });
  const backendCalls = new Counter({
    name: 'sculptor_backend_calls_total',
    help: 'Requests sent to backends, by backend and HTTP status ("error": no answer, e.g. refused or timed out).',
    labelNames: ['backend', 'status'] as const,
    registers: [registry],
  });
  const inFlight = new Gauge({
    name: 'sculptor_invocations_in_flight',
    help: 'Invocations running now.',
    registers: [registry],
  });
  if (options.cacheStore) {
    const read = options.cacheStore;
    new Counter({
      name: 'sculptor_cache_store_operations_total',
      help: 'Cache store operations by result: hits, misses, errors, timeouts, skipped (breaker open), unavailable, sets, setErrors, setsRejected, breakerOpens.',
      labelNames: ['result'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const [result, value] of Object.entries(read())) this.inc({ result }, value);
      },
    });
  }
  if (options.stepCache) {
    const read = options.stepCache;
    new Counter({
      name: 'sculptor_cache_integrity_violations_total',
      help: 'Cached values that failed their envelope check and were treated as misses (RELIABILITY E2).',
      registers: [registry],
      collect() {
        this.reset();
        this.inc(read().integrityViolations ?? 0);
      },
    });
  }

  return {
    registry,
    contentType: registry.contentType,
    inFlight,
    observe(report) {
      const labels = { tool: report.tool, version: String(report.version), outcome: report.outcome };
      invocations.inc(labels);
      invocationSeconds.observe(labels, report.durationMs / 1000);
      for (const step of report.steps) {
        stepSeconds.observe(
          { tool: report.tool, step: step.id, backend: step.backend, cache: step.cache },
          step.durationMs / 1000,
        );
        if (step.cache !== 'off') stepCache.inc({ tool: report.tool, step: step.id, outcome: step.cache });
        const fromCache = step.cache === 'hit' || step.cache === 'shared';
        if (fromCache) continue;
        if (step.status !== undefined) {
          backendCalls.inc({ backend: step.backend, status: String(step.status) });
        } else if (step.errorCode?.startsWith('upstream.') && !NOT_SENT.has(step.errorCode)) {
          backendCalls.inc({ backend: step.backend, status: 'error' });
        }
      }
    },
    render: () => registry.metrics(),
  };
}
