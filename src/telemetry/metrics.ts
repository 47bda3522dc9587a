/**
 * Prometheus metrics (prom-client), served at /metrics. Labels are bounded:
 * tool names, versions, step ids and backends come from the catalog, outcomes
 * are error codes, statuses are HTTP status codes. No label ever holds a
 * value a caller or an LLM supplied.
 */
import {
  collectDefaultMetrics,
  Counter,
  type CounterConfiguration,
  Gauge,
  Histogram,
  type HistogramConfiguration,
  Registry,
} from 'prom-client';

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
  /** Set when this invocation's budget breach suspended its tool. */
  suspended?: { tool: string; version: number };
}

/** Counters a cache keeps itself (CacheStore.stats(), StepCache.stats()), read at scrape time. */
export type CounterSource = () => Readonly<Record<string, number>>;

export interface GatewayMetrics {
  registry: Registry;
  contentType: string;
  /** Invocations running now. */
  inFlight: { inc(): void; dec(): void };
  /** Records one finished invocation and its steps; `face` when a face's invocation (by face). */
  observe(report: InvocationMetrics, face?: string): void;
  /**
   * Records a catalog load: the one at start, a reload whose catalog replaced
   * the old one ('ok'), or a reload refused (the old catalog kept). `generation`
   * is the catalog served afterwards: 1 at start, one more per 'ok'.
   */
  catalogLoaded(outcome: 'start' | 'ok' | 'refused', generation: number): void;
  /** The Prometheus text exposition. */
  render(): Promise<string>;
}

export interface MetricsOptions {
  /** The store's counters (hits, misses, errors, timeouts, …) by name. */
  cacheStore?: CounterSource;
  /** The step cache's counters (integrityViolations, expired, …) by name. */
  stepCache?: CounterSource;
  /** Node process metrics (CPU, memory, event-loop lag, GC). Default true. */
  processMetrics?: boolean;
}

/** Codes for which no request reached the backend, although the step did not come from the cache. */
const NOT_SENT = new Set(['upstream.credentials_missing', 'upstream.forbidden_address', 'projection.failed']);

export function createMetrics(options: MetricsOptions = {}): GatewayMetrics {
  const registry = new Registry();
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry });

  const invocations = runningCounter({
    name: 'sculptor_invocations_total',
    help: 'Tool invocations, by tool, version and outcome (ok or the error code).',
    labelNames: ['tool', 'version', 'outcome'] as const,
    registers: [registry],
  });
  const invocationSeconds = runningHistogram({
    name: 'sculptor_invocation_duration_seconds',
    help: 'Invocation latency, validation to checked output.',
    labelNames: ['tool', 'version', 'outcome'] as const,
    buckets: SECONDS,
    registers: [registry],
  });
  const stepSeconds = runningHistogram({
    name: 'sculptor_step_duration_seconds',
    help: 'Step latency, by tool, step, backend and cache outcome (hit, miss, shared, bypass, off).',
    labelNames: ['tool', 'step', 'backend', 'cache'] as const,
    buckets: SECONDS,
    registers: [registry],
  });
  const stepCache = runningCounter({
    name: 'sculptor_step_cache_total',
    help: 'Cache look-ups of cached steps: hit, miss, shared (joined a load in flight), bypass (no cache configured).',
    labelNames: ['tool', 'step', 'outcome'] as const,
    registers: [registry],
  });
  const backendCalls = runningCounter({
    name: 'sculptor_backend_calls_total',
    help: 'Requests sent to backends, by backend and HTTP status ("error": no answer, e.g. refused or timed out).',
    labelNames: ['backend', 'status'] as const,
    registers: [registry],
  });
  const byFace = runningCounter({
    name: 'sculptor_face_invocations_total',
    help: 'Tool invocations by the face they came through (a2t, mcp) and outcome (ok or the error code).',
    labelNames: ['face', 'outcome'] as const,
    registers: [registry],
  });
  const suspensions = new Counter({
    name: 'sculptor_tool_suspensions_total',
    help: 'Tools suspended because their expressions kept exceeding the evaluation budget (SCULPTOR_TOOL_SUSPEND_*), by tool and version.',
    labelNames: ['tool', 'version'] as const,
    registers: [registry],
  });
  // Counted in a plain number and read when Prometheus scrapes: prom-client's inc/dec build and
  // hash a label object on every call, twice per invocation.
  let running = 0;
  new Gauge({
    name: 'sculptor_invocations_in_flight',
    help: 'Invocations running now.',
    registers: [registry],
    collect() {
      this.set(running);
    },
  });
  const inFlight = {
    inc: () => void running++,
    dec: () => void running--,
  };
  const catalogGeneration = new Gauge({
    name: 'sculptor_catalog_generation',
    help: 'The catalog served: 1 as loaded at start, one more per reload that replaced it.',
    registers: [registry],
  });
  const reloads = new Counter({
    name: 'sculptor_reloads_total',
    help: 'Reloads of the sculpts and callers file (SIGHUP, or a change with SCULPTOR_RELOAD_ON_CHANGE), by outcome: ok (the new catalog is served) or refused (errors; the old one kept).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  for (const outcome of ['ok', 'refused']) reloads.inc({ outcome }, 0);
  const lastReloadSuccessful = new Gauge({
    name: 'sculptor_last_reload_successful',
    help: 'Whether the last load of the catalog (at start, or the last reload) succeeded: 1, or 0 when it was refused.',
    registers: [registry],
  });
  const lastReloadSeconds = new Gauge({
    name: 'sculptor_last_reload_timestamp_seconds',
    help: 'When the catalog was last loaded or a reload refused (Unix time, seconds).',
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
    const refusals = { expired: 'expired', previous_format: 'previousFormat', secret: 'secretsWithheld' };
    new Counter({
      name: 'sculptor_cache_refused_total',
      help: 'Step-cache entries refused that were not forged: expired (read past the expiry their envelope carries, whatever the store TTL said; deleted), previous_format (written by the previous envelope version), secret (an answer holding a credential, served but never stored).',
      labelNames: ['reason'] as const,
      registers: [registry],
      collect() {
        this.reset();
        const counts = read();
        for (const [reason, counter] of Object.entries(refusals)) this.inc({ reason }, counts[counter] ?? 0);
      },
    });
  }

  return {
    registry,
    contentType: registry.contentType,
    inFlight,
    observe(report, face) {
      const { tool, outcome } = report;
      // String(n) of a small integer is mostly V8's cached string: no new string to hash.
      const version = String(report.version);
      if (face !== undefined) byFace.add(face, outcome);
      if (report.suspended) suspensions.inc({ tool, version });
      invocations.add(tool, version, outcome);
      invocationSeconds.observe(report.durationMs / 1000, tool, version, outcome);
      for (const step of report.steps) {
        const { id, backend, cache } = step;
        stepSeconds.observe(step.durationMs / 1000, tool, id, backend, cache);
        if (cache !== 'off') stepCache.add(tool, id, cache);
        const fromCache = cache === 'hit' || cache === 'shared';
        if (fromCache) continue;
        if (step.status !== undefined) {
          backendCalls.add(backend, String(step.status));
        } else if (step.errorCode?.startsWith('upstream.') && !NOT_SENT.has(step.errorCode)) {
          backendCalls.add(backend, 'error');
        }
      }
    },
    catalogLoaded(outcome, generation) {
      if (outcome !== 'start') reloads.inc({ outcome });
      catalogGeneration.set(generation);
      lastReloadSuccessful.set(outcome === 'refused' ? 0 : 1);
      lastReloadSeconds.set(Date.now() / 1000);
    },
    render: () => registry.metrics(),
  };
}

/*
 * Invocation metrics are counted here, in plain fields per label set, and
 * handed to prom-client when Prometheus scrapes (its `collect` hook): its own
 * observe/inc validate and hash the label object on every call, which the
 * bench profile put at ≈ 10 µs per invocation under load. The exposition is
 * the same (test/telemetry/running-metrics.test.ts compares it with prom-client fed
 * the same observations).
 */

type Labels = Record<string, string>;

/**
 * A metric's series by their label values (in `labelNames` order, at most four; the missing ones
 * are ''), one nested Map per position. The values are the catalog's own strings (tool names,
 * step ids, backends) and constants (outcomes, cache outcomes, statuses), which V8 has hashed
 * before: a key joined per call was a new string to build, flatten and hash on every invocation.
 */
class SeriesIndex<T> {
  readonly all: T[] = [];
  readonly #root: Level = new Map();
  readonly #labelNames: readonly string[];
  readonly #create: (labels: Labels) => T;

  constructor(labelNames: readonly string[] | undefined, create: (labels: Labels) => T) {
    if (!labelNames || labelNames.length === 0 || labelNames.length > 4)
      throw new TypeError('A running metric has one to four labels.');
    this.#labelNames = labelNames;
    this.#create = create;
  }

  /** The series of these label values, made the first time they are seen. */
  at(v0: string, v1 = '', v2 = '', v3 = ''): T {
    const leaves = below(below(below(this.#root, v0), v1), v2);
    let series = leaves.get(v3) as T | undefined;
    if (!series) {
      const values = [v0, v1, v2, v3];
      const labels: Labels = {};
      this.#labelNames.forEach((name, i) => (labels[name] = values[i]!));
      series = this.#create(labels);
      leaves.set(v3, series);
      this.all.push(series);
    }
    return series;
  }
}

type Level = Map<string, unknown>;

/** The level under `value`, made the first time it is seen. */
function below(level: Level, value: string): Level {
  let next = level.get(value) as Level | undefined;
  if (!next) {
    next = new Map();
    level.set(value, next);
  }
  return next;
}

interface RunningCounter {
  /** Adds 1 to the series of these label values, given in `labelNames` order. */
  add(v0: string, v1?: string, v2?: string, v3?: string): void;
}

export function runningCounter(config: CounterConfiguration<string>): RunningCounter {
  const series = new SeriesIndex(config.labelNames, (labels) => ({ labels, value: 0 }));
  new Counter({
    ...config,
    collect() {
      this.reset();
      for (const s of series.all) this.inc(s.labels, s.value);
    },
  });
  return {
    add(v0, v1, v2, v3) {
      series.at(v0, v1, v2, v3).value += 1;
    },
  };
}

interface RunningHistogram {
  /** Observes `value` in the series of these label values, given in `labelNames` order. */
  observe(value: number, v0: string, v1?: string, v2?: string, v3?: string): void;
}

/** prom-client's per-series state (lib/histogram.js, createBaseValues): bucket counts by upper bound, not cumulative. */
interface HistogramEntry {
  labels: Labels;
  bucketValues: Record<string, number>;
  sum: number;
  count: number;
}

export function runningHistogram(
  config: HistogramConfiguration<string> & { buckets: number[] },
): RunningHistogram {
  const bounds = config.buckets;
  const names = [...(config.labelNames ?? [])].sort();
  const series = new SeriesIndex(config.labelNames, (labels) => ({
    labels,
    // prom-client's own key for a label set (lib/util.js, hashObject over the sorted names).
    hash: names.map((n) => (labels[n] === undefined ? '' : `${n}:${labels[n]},`)).join(''),
    counts: bounds.map(() => 0),
    sum: 0,
    count: 0,
  }));
  new Histogram({
    ...config,
    collect() {
      this.reset();
      const hashMap = (this as unknown as { hashMap: Record<string, HistogramEntry> }).hashMap;
      for (const s of series.all) {
        const bucketValues: Record<string, number> = {};
        bounds.forEach((bound, i) => (bucketValues[bound] = s.counts[i]!));
        hashMap[s.hash] = { labels: s.labels, bucketValues, sum: s.sum, count: s.count };
      }
    },
  });
  return {
    observe(value, v0, v1, v2, v3) {
      if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
      const s = series.at(v0, v1, v2, v3);
      // The first bucket the value fits; above the last, only the count and sum (+Inf).
      for (let i = 0; i < bounds.length; i++) {
        if (value <= bounds[i]!) {
          s.counts[i]! += 1;
          break;
        }
      }
      s.sum += value;
      s.count += 1;
    },
  };
}
