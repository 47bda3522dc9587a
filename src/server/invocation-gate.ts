import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import { SculptorError } from '../errors/sculptor-error.ts';
import type { InvocationGate } from '../faces/shared/face.ts';
import type { LoadShedder } from './load-shedder.ts';
import { callerKey, type SharedRateLimiter } from './rate-limiter.ts';

/**
 * The gate every face's invocations pass: shed while the event loop lags, then the per-caller
 * rate limit (shared by the replicas through Redis when there is one). Listings are never gated:
 * they are cheap and help an agent recover.
 */
export function createInvocationGate(
  shedder: LoadShedder,
  limiter: SharedRateLimiter | undefined,
): InvocationGate {
  return async (c) => {
    if (shedder.overloaded()) {
      throw new SculptorError('gateway.overloaded', 'The gateway is overloaded; retry shortly.', {
        retryAfter: 1,
      });
    }
    if (!limiter) return;
    const taken = await limiter.take(callerKey(c.req.header('authorization'), remoteAddress(c)));
    if (!taken.ok) {
      throw new SculptorError(
        'request.rate_limited',
        `Too many invocations; retry after ${taken.retryAfterS} s.`,
        {
          retryAfter: taken.retryAfterS,
        },
      );
    }
  };
}

function remoteAddress(c: Context): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined; // not served by @hono/node-server (in-process requests)
  }
}
