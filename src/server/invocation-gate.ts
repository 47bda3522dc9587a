import type { Logger } from 'pino';
import type { CacheStore } from '../cache/cache-store.ts';
import type { Settings } from '../config/settings.ts';
import { SculptorError } from '../errors/sculptor-error.ts';
import type { Admission, CallParty, StreamAdmission } from '../invoke/call-service.ts';
import {
  type CallerConcurrency,
  concurrencyKey,
  createCallerConcurrency,
  tooManyInFlight,
} from './caller-concurrency.ts';
import { createLoadShedder, type LoadShedder } from './load-shedder.ts';
import { callerKey, createSharedRateLimiter, type SharedRateLimiter } from './rate-limiter.ts';

export interface AdmissionControl {
  /** Every invocation's gate, whatever face or transport it came through. */
  admit: Admission;
  /** Long-lived streams' per-caller cap; none when SCULPTOR_MAX_STREAMS_PER_CALLER is 0. */
  admitStream?: StreamAdmission;
  shedder: LoadShedder;
}

/**
 * Admission as the settings ask, for any host: the HTTP gateway and `sculptor mcp` over stdio
 * compose the same gate, so a limit an operator sets holds whichever way the tools are served.
 */
export function createAdmission(
  settings: Settings,
  store: CacheStore,
  logger?: Logger | undefined,
): AdmissionControl {
  // Event-loop protection (RELIABILITY C10): shed invocations while the loop lags.
  const shedder = createLoadShedder({
    thresholdMs: settings.shedLagMs,
    onShedding: (lagMs) =>
      logger?.warn({ event: 'overloaded', lag_ms: lagMs }, 'event loop lagging: shedding invocations'),
  });
  // Per-caller rate limit on invocations (RELIABILITY A7), shared by the replicas through Redis
  // when there is one; off unless SCULPTOR_RATE_LIMIT_PER_S is set.
  const limiter =
    settings.rateLimitPerS > 0
      ? createSharedRateLimiter(store, { ratePerS: settings.rateLimitPerS, burst: settings.rateLimitBurst })
      : undefined;
  const callersConfigured = Boolean(settings.callers);
  const admit = createInvocationGate({
    shedder,
    limiter,
    // Per-caller concurrency cap (SCULPTOR_MAX_INFLIGHT_PER_CALLER, 0 = off): its default fits one
    // busy agent runtime; set below the per-origin bulkhead (32) on a gateway several hosts share,
    // so one caller's slow invocations cannot fill it and starve the others.
    ...(settings.maxInflightPerCaller > 0
      ? { slots: createCallerConcurrency({ maxPerCaller: settings.maxInflightPerCaller }) }
      : {}),
    callersConfigured,
  });
  const admitStream =
    settings.maxStreamsPerCaller > 0
      ? createStreamGate({
          slots: createCallerConcurrency({ maxPerCaller: settings.maxStreamsPerCaller }),
          callersConfigured,
        })
      : undefined;
  return { admit, ...(admitStream ? { admitStream } : {}), shedder };
}

export interface InvocationGateOptions {
  shedder: LoadShedder;
  /** The per-caller rate limit (RELIABILITY A7); none when SCULPTOR_RATE_LIMIT_PER_S is unset. */
  limiter?: SharedRateLimiter | undefined;
  /** The per-caller concurrency cap; none when SCULPTOR_MAX_INFLIGHT_PER_CALLER is 0. */
  slots?: CallerConcurrency;
  /** With a callers file, a caller is its token; without one, its address (see concurrencyKey). */
  callersConfigured: boolean;
}

/**
 * The gate every face's invocations pass, in this order: shed while the event loop lags, the
 * per-caller rate limit (shared by the replicas through Redis when there is one), then a slot
 * of the caller's concurrency cap, which the face gives back when the invocation has answered.
 * Listings are never gated: they are cheap and help an agent recover.
 */
export function createInvocationGate(options: InvocationGateOptions): Admission {
  const { shedder, limiter, slots } = options;
  const hold = (party: CallParty, address: string | undefined): (() => void) => {
    if (!slots) return NOTHING_HELD;
    const key = concurrencyKey(party.authorization, address, options.callersConfigured);
    const release = slots.acquire(key);
    if (!release) throw tooManyInFlight(slots.max);
    return release;
  };
  // Not an async function: only the shared rate limit waits; a call admitted at once costs no
  // promise and no turn of the event loop.
  return (party) => {
    if (shedder.overloaded()) {
      throw new SculptorError('gateway.overloaded', 'The gateway is overloaded; retry shortly.', {
        retryAfter: 1,
      });
    }
    const address = limiter || slots ? party.address?.() : undefined;
    if (!limiter) return hold(party, address);
    return limiter.take(callerKey(party.authorization, address)).then((taken) => {
      if (!taken.ok) {
        throw new SculptorError(
          'request.rate_limited',
          `Too many invocations; retry after ${taken.retryAfterS} s.`,
          { retryAfter: taken.retryAfterS },
        );
      }
      return hold(party, address);
    });
  };
}

const NOTHING_HELD = () => {};

/**
 * The cap on one caller's long-lived streams (RELIABILITY A7): a listen stream costs nothing
 * while idle, but the endpoint's global cap is shared by every tenant, so one caller opening
 * streams until it is reached would lock every other caller out. The caller is keyed as its
 * invocations are.
 */
export function createStreamGate(options: {
  slots: CallerConcurrency;
  callersConfigured: boolean;
}): StreamAdmission {
  const { slots } = options;
  return (party) => {
    const key = concurrencyKey(party.authorization, party.address?.(), options.callersConfigured);
    const release = slots.acquire(key);
    if (!release) {
      throw new SculptorError(
        'request.too_many_streams',
        `This caller already holds ${slots.max} open streams, the most the gateway keeps for one caller; close one (or reuse one stream for every notification), then retry.`,
        { retryAfter: 1 },
      );
    }
    return release;
  };
}
