import { SculptorError } from '../errors/sculptor-error.ts';
import type { BackendRequest, BackendResponse, SendOptions } from './backend-client.ts';

/**
 * Retries, circuit breakers and a concurrency cap around a backend client
 * (RELIABILITY C1–C8). Everything stays inside the invocation deadline: the
 * caller's signal also ends backoff sleeps.
 *
 * The concurrency cap and the retry budget are per backend origin: they protect
 * the server, which every operation shares. The breaker is per operation (origin,
 * method and path template) when the caller names one: one operation
 * failing — a broken endpoint, a handler that times out — says little about the
 * others, and a per-origin breaker let it pause every tool on that origin. A whole
 * origin going down opens each operation's breaker after its own failures.
 */
export interface ResilienceOptions {
  /** Attempts per call, the first included (C1: 3). */
  maxAttempts?: number;
  /** Full-jitter exponential backoff: delay = random × min(cap, base × 2^retry) (C4). */
  backoffBaseMs?: number;
  backoffCapMs?: number;
  /** Retries in flight per origin ≤ max(min, ratio × calls in flight) (C5). */
  retryBudgetRatio?: number;
  retryBudgetMin?: number;
  /** Consecutive failures that open the breaker, and for how long (C7). */
  breakerFailures?: number;
  breakerOpenMs?: number;
  breakerMaxOpenMs?: number;
  /** Calls in flight per origin; more are refused at once (C8). */
  maxConcurrentPerOrigin?: number;
  random?: () => number;
  now?: () => number;
}

export interface Sender {
  send(request: BackendRequest, options: SendOptions): Promise<BackendResponse>;
}

export interface ResilientSendOptions extends SendOptions {
  /** Declared idempotent by the sculpt: may be retried whatever its method (C2). */
  idempotent?: boolean;
  /** When the invocation's deadline falls (epoch ms): a longer Retry-After is not waited for. */
  deadlineAt?: number;
  /**
   * The operation called, as `METHOD /path/{template}`: its breaker is its own. Without it
   * the call shares one breaker with every other unnamed call to its origin.
   */
  operation?: string;
  /** The invocation's budget of backend calls: each retry takes one, and none is made when it is spent (C9). */
  calls?: CallBudget;
}

/** An invocation's allowance of backend calls, retries included (RELIABILITY C9). */
export interface CallBudget {
  /** Takes one call; false when none is left. */
  tryTake(): boolean;
}

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
const RETRY_STATUSES = new Set([429, 502, 503, 504]);

/** Shared by every operation of an origin: the bulkhead and the retry budget; and its breakers. */
interface OriginState {
  inFlight: number;
  retriesInFlight: number;
  /** Per operation, found by the operation's name alone: no key is built per call. */
  breakers: Map<string, BreakerState>;
  /** For calls that name no operation. */
  breaker: BreakerState | undefined;
}

/** One breaker: per operation, or per origin for calls that name none. */
interface BreakerState {
  failures: number;
  openUntil: number;
  openMs: number;
  probing: boolean;
}

export function withResilience(client: Sender, options: ResilienceOptions = {}): Sender {
  const o = {
    maxAttempts: 3,
    backoffBaseMs: 100,
    backoffCapMs: 1_000,
    retryBudgetRatio: 0.2,
    retryBudgetMin: 3,
    breakerFailures: 5,
    breakerOpenMs: 30_000,
    breakerMaxOpenMs: 300_000,
    maxConcurrentPerOrigin: 32,
    random: Math.random,
    now: Date.now,
    ...options,
  };
  // Bounded by the configuration: origins and operations come from the sculpts.
  const origins = new Map<string, OriginState>();
  const originOf = (origin: string): OriginState => {
    let state = origins.get(origin);
    if (!state) {
      state = { inFlight: 0, retriesInFlight: 0, breakers: new Map(), breaker: undefined };
      origins.set(origin, state);
    }
    return state;
  };
  const newBreaker = (): BreakerState => ({
    failures: 0,
    openUntil: 0,
    openMs: o.breakerOpenMs,
    probing: false,
  });
  const breakerOf = (state: OriginState, operation: string | undefined): BreakerState => {
    if (!operation) return (state.breaker ??= newBreaker());
    let breaker = state.breakers.get(operation);
    if (!breaker) {
      breaker = newBreaker();
      state.breakers.set(operation, breaker);
    }
    return breaker;
  };

  /** Breaker and bulkhead: may this call go out now? Throws a fast 503 when not; true for the half-open probe. */
  const admit = (state: OriginState, breaker: BreakerState): boolean => {
    if (breaker.openUntil > 0) {
      const wait = breaker.openUntil - o.now();
      if (wait > 0 || breaker.probing) {
        throw new SculptorError(
          'upstream.unavailable',
          'The backend is failing this operation; calls to it are paused.',
          { retryAfter: Math.max(1, wait / 1000) },
        );
      }
      breaker.probing = true; // half-open: this call is the one probe
      return true;
    }
    if (state.inFlight >= o.maxConcurrentPerOrigin) {
      throw new SculptorError('upstream.unavailable', 'Too many calls to the backend are in flight.', {
        retryAfter: 1,
      });
    }
    return false;
  };

  const record = (breaker: BreakerState, failed: boolean, probe: boolean) => {
    if (probe) breaker.probing = false;
    if (!failed) {
      breaker.failures = 0;
      breaker.openUntil = 0;
      breaker.openMs = o.breakerOpenMs;
      return;
    }
    breaker.failures++;
    if (probe || breaker.failures >= o.breakerFailures) {
      // Each reopening after a failed probe waits twice as long; jittered ±10 %
      // so that replicas do not probe in step.
      if (probe) breaker.openMs = Math.min(o.breakerMaxOpenMs, breaker.openMs * 2);
      breaker.openUntil = o.now() + breaker.openMs * (0.9 + 0.2 * o.random());
    }
  };

  return {
    async send(request, sendOptions: ResilientSendOptions) {
      const origin = urlOrigin(request.url);
      const state = originOf(origin);
      const breaker = breakerOf(state, sendOptions.operation);
      const idempotent =
        sendOptions.idempotent === true || IDEMPOTENT_METHODS.has(request.method.toUpperCase());
      for (let attempt = 1; ; attempt++) {
        const probe = admit(state, breaker);
        const isRetry = attempt > 1;
        state.inFlight++;
        if (isRetry) state.retriesInFlight++;
        // The response, or else the error (undefined only alongside a response).
        let response: BackendResponse | undefined;
        let error: unknown;
        try {
          response = await client.send(request, sendOptions);
        } catch (err) {
          error = err;
        } finally {
          state.inFlight--;
          if (isRetry) state.retriesInFlight--;
        }
        // A call the caller abandoned (it hung up, or a sibling step failed) says
        // nothing about the backend; only the deadline passing does.
        const abandoned = sendOptions.signal.aborted && !isTimeout(sendOptions.signal.reason);
        if (abandoned) {
          if (probe) breaker.probing = false;
          if (!response) throw error;
          return response;
        }
        const failed = isFailure(response, error);
        record(breaker, failed, probe);

        const wait = backoff(attempt, response);
        const timeLeft = (sendOptions.deadlineAt ?? Number.POSITIVE_INFINITY) - o.now();
        const canRetry =
          idempotent &&
          attempt < o.maxAttempts &&
          isRetryable(response, error) &&
          state.retriesInFlight < Math.max(o.retryBudgetMin, o.retryBudgetRatio * state.inFlight) &&
          breaker.openUntil === 0 &&
          wait < timeLeft &&
          !sendOptions.signal.aborted &&
          (sendOptions.calls?.tryTake() ?? true);
        if (!canRetry) {
          if (!response) throw error;
          return response;
        }
        await sleep(wait, sendOptions.signal);
      }
    },
  };

  function backoff(attempt: number, response: BackendResponse | undefined): number {
    const jittered = o.random() * Math.min(o.backoffCapMs, o.backoffBaseMs * 2 ** (attempt - 1));
    // Retry-After (seconds) is honoured when given; the deadline still bounds the wait.
    const retryAfter = Number(response?.headers['retry-after']);
    return Number.isFinite(retryAfter) && retryAfter > 0 ? Math.max(jittered, retryAfter * 1000) : jittered;
  }
}

/**
 * The origin a bulkhead and the breakers are keyed on: the URL up to its path. A request's URL
 * is built on its backend's base URL as parsed when the backends loaded (`openapi/build-request.ts`),
 * so its origin is already in the URL's normalized form, and the client parses the URL again
 * before it sends: no second full parse per call here.
 */
function urlOrigin(url: string): string {
  const authority = url.indexOf('//') + 2;
  let end = authority;
  while (end < url.length && url[end] !== '/' && url[end] !== '?' && url[end] !== '#') end++;
  return url.slice(0, end);
}

function isTimeout(reason: unknown): boolean {
  return reason instanceof Error && reason.name === 'TimeoutError';
}

/** Server-side trouble counts against the breaker; 4xx answers are the backend working. */
function isFailure(response: BackendResponse | undefined, error: unknown): boolean {
  if (response) return response.status >= 500;
  const code = error instanceof SculptorError ? error.code : undefined;
  return code === 'upstream.unavailable' || code === 'upstream.timeout';
}

/** Connection failures and 429/502/503/504 may succeed on another try (C3). */
function isRetryable(response: BackendResponse | undefined, error: unknown): boolean {
  if (response) return RETRY_STATUSES.has(response.status);
  return error instanceof SculptorError && error.code === 'upstream.unavailable';
}

/** Waits, unless the deadline comes first: then the call has timed out. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', aborted);
    };
    const aborted = () => {
      done();
      reject(new SculptorError('upstream.timeout', 'The backend did not answer in time.'));
    };
    const timer = setTimeout(() => {
      done();
      resolve();
    }, ms);
    if (signal.aborted) aborted();
    else signal.addEventListener('abort', aborted, { once: true });
  });
}
