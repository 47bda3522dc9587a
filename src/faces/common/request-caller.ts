import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';
import { authenticate } from '../../callers/authenticate.ts';
import type { Caller, CallerDirectory } from '../../callers/load-callers.ts';
import type { CallParty } from '../../invoke/call-service.ts';

/**
 * Who a request is from, the same way on every face: `Authorization: Bearer` checked against the
 * callers file in force (RELIABILITY D1), or the anonymous caller of the one tenant without one.
 * A refusal is `auth.*`; each face writes it (with the RFC 6750 challenge) in its own form.
 * A promise only for an identity provider's token: a face awaits it only then (an await of a
 * caller already known costs a turn of the event loop on every call).
 */
export function requestCaller(c: Context, callers: CallerDirectory | undefined): Caller | Promise<Caller> {
  return authenticate(callers, c.req.header('authorization'));
}

/**
 * The request's caller as the call service takes it: what admission keys it by (its
 * `Authorization` value, its address, read only if needed) and the headers a backend's explicit
 * pass-through may read.
 */
export function requestParty(c: Context, caller: Caller): CallParty {
  return new RequestParty(c, caller);
}

/** One object per request, its reads methods rather than closures over the request's context. */
class RequestParty implements CallParty {
  readonly caller: Caller;
  readonly authorization: string | undefined;
  readonly #c: Context;

  constructor(c: Context, caller: Caller) {
    this.caller = caller;
    this.authorization = c.req.header('authorization');
    this.#c = c;
  }

  address(): string | undefined {
    return remoteAddress(this.#c);
  }

  presented(header: string): string | undefined {
    return this.#c.req.header(header);
  }
}

/** The peer's address as the socket knows it; none for a request not served by @hono/node-server (in-process). */
function remoteAddress(c: Context): string | undefined {
  // What getConnInfo reads, without the two objects it builds around it for every call.
  return (c.env as Partial<HttpBindings> | undefined)?.incoming?.socket?.remoteAddress;
}
