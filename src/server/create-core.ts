import { randomBytes } from 'node:crypto';
import type { CacheStore } from '../cache/cache-store.ts';
import { createMemoryStore } from '../cache/memory-store.ts';
import { StepCache } from '../cache/step-cache.ts';
import { createEngine, type Engine, MAX_BACKEND_CALLS } from '../engine/invoke-tool.ts';
import type { StepDebugHook } from '../engine/run-step.ts';
import { type BackendClient, createBackendClient } from '../http/backend-client.ts';
import { withResilience } from '../http/resilient-sender.ts';
import { createTokenSource } from '../oauth/token-source.ts';
import { traceStep, withTraceContext } from '../telemetry/tracing.ts';
import { type InstrumentOptions, instrumentEngine } from './instrument-engine.ts';

/**
 * The core every host runs tools through — the HTTP gateway (all its faces), stdio, the CLI's
 * `invoke`, the sculpt test runner and the Studio — composed in one place, so that a cache,
 * a retry policy or a drain rule added here reaches all of them. What differs between hosts is
 * an option, not a second composition.
 */
export interface CoreOptions {
  /**
   * Keys caller-scoped cache entries and authenticates cache envelopes; the same on every
   * replica sharing a cache. Default: a random one (a one-off run shares nothing).
   */
  secret?: string;
  /** Where step results and backends' OAuth tokens are kept. Default: memory, owned by the core. */
  store?: CacheStore;
  /** The backend client. Default: a new one, owned by the core (closed by `close`). */
  client?: BackendClient;
  /** Retries, breaker and bulkhead per origin (RELIABILITY C1–C8): on for serving, off for one-off runs. */
  resilience?: boolean;
  /** Lets every backend reach loopback and private addresses (recordings, local demos). */
  allowPrivateEgress?: boolean;
  /** Backend calls per invocation, retries included (RELIABILITY C9). */
  maxBackendCalls?: number;
  /** Per-step requests and answers, for a designer (`invoke --debug`, the Studio). */
  debug?: StepDebugHook;
  /** Each invocation's span, metrics and log line (the gateway's telemetry). */
  instrument?: InstrumentOptions;
  /** When aborted, in-flight invocations end as `gateway.draining` (the gateway's drain, J1). */
  drain?: AbortSignal;
}

export interface Core {
  engine: Engine;
  store: CacheStore;
  stepCache: StepCache;
  client: BackendClient;
  /** Closes what the core made itself (the client, the store); a store or client passed in stays open. */
  close(): Promise<void>;
}

export function createCore(options: CoreOptions = {}): Core {
  const secret = options.secret ?? randomBytes(16).toString('hex');
  const store = options.store ?? createMemoryStore();
  const client = options.client ?? createBackendClient();
  const stepCache = new StepCache(store, { secret });
  let engine = createEngine({
    sender: options.resilience ? withResilience(client) : client,
    cache: stepCache,
    cacheSecret: secret,
    // Backends' OAuth tokens, shared with the other replicas through the same store.
    tokens: createTokenSource({ store, secret }),
    allowPrivateEgress: options.allowPrivateEgress ?? false,
    maxBackendCalls: options.maxBackendCalls ?? MAX_BACKEND_CALLS,
    ...(options.debug ? { debug: options.debug } : {}),
    ...(options.drain ? { drain: options.drain } : {}),
    // Step spans and trace propagation: each a no-op until an OpenTelemetry SDK is registered.
    tracer: { traceStep, withTraceContext },
  });
  if (options.instrument) engine = instrumentEngine(engine, options.instrument);
  return {
    engine,
    store,
    stepCache,
    client,
    async close() {
      await Promise.allSettled([
        ...(options.client ? [] : [client.close()]),
        ...(options.store ? [] : [store.close()]),
      ]);
    },
  };
}
