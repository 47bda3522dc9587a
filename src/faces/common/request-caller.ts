import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import { authenticate } from '../../callers/authenticate.ts';
import type { Caller, CallerDirectory } from '../../callers/load-callers.ts';
import type { CallParty } from '../../invoke/call-service.ts';

/**
 * Who a request is from, the same way on every face: `Authorization: Bearer` checked against the
 * callers file in force (RELIABILITY D1), or the anonymous caller of the one tenant without one.
 * A refusal is `auth.*`; each face writes it (with the RFC 6750 challenge) in its own form.
 */
export function requestCaller(c: Context, callers: CallerDirectory | undefined): Promise<Caller> {
  return authenticate(callers, c.req.header('authorization'));
}

/**
 * The request's caller as the call service takes it: what admission keys it by (its
 * `Authorization` value, its address, read only if needed) and the headers a backend's explicit
 * pass-through may read.
 */
export function requestParty(c: Context, caller: Caller): CallParty {
  return {
    caller,
    authorization: c.req.header('authorization'),
    address: () => remoteAddress(c),
    presented: (header) => c.req.header(header),
  };
}

function remoteAddress(c: Context): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined; // not served by @hono/node-server (in-process requests)
  }
}
