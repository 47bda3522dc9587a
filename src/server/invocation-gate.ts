import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import { SculptorError } from '../errors/sculptor-error.ts';
import type { InvocationGate } from '../faces/shared/face.ts';
import { type CallerConcurrency, concurrencyKey, tooManyInFlight } from './caller-concurrency.ts';
import type { LoadShedder } from './load-shedder.ts';
import { callerKey, type SharedRateLimiter } from './rate-limiter.ts';

export interface InvocationGateOptions {
  shedder: LoadShedder;
  /** The per-caller rate limit (RELIABILITY A7); none when SCULPTOR_RATE_LIMIT_PER_S is unset. */
  limiter?: SharedRateLimiter | undefined;
  /** The per-caller concurrency cap (issue #13); none when SCULPTOR_MAX_INFLIGHT_PER_CALLER is 0. */
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
export function createInvocationGate(options: InvocationGateOptions): InvocationGate {
  const { shedder, limiter, slots } = options;
  return async (c) => {
    if (shedder.overloaded()) {
      throw new SculptorError('gateway.overloaded', 'The gateway is overloaded; retry shortly.', {
        retryAfter: 1,
      });
    }
    const address = limiter || slots ? remoteAddress(c) : undefined;
    if (limiter) {
      const taken = await limiter.take(callerKey(c.req.header('authorization'), address));
      if (!taken.ok) {
        throw new SculptorError(
          'request.rate_limited',
          `Too many invocations; retry after ${taken.retryAfterS} s.`,
          { retryAfter: taken.retryAfterS },
        );
      }
    }
    if (!slots) return NOTHING_HELD;
    const key = concurrencyKey(c.req.header('authorization'), address, options.callersConfigured);
    const release = slots.acquire(key);
    if (!release) throw tooManyInFlight(slots.max);
    return release;
  };
}

const NOTHING_HELD = () => {};

function remoteAddress(c: Context): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined; // not served by @hono/node-server (in-process requests)
  }
}
