import { SculptorError } from '../errors/sculptor-error.ts';
import { callerKey } from './rate-limiter.ts';

/**
 * Per-caller concurrency cap: invocations one caller may have in flight at once.
 * The per-origin bulkhead of `http/resilient-sender.ts` protects a backend from the gateway;
 * it cannot tell callers apart, so one client holding many slow invocations filled it and
 * every other caller got `503`. This cap comes first, per caller: past it the caller gets
 * `429 request.too_many_in_flight` at once, before any backend is called, while the others
 * keep their share. It counts, it never queues: a queued invocation would still hold a socket
 * and eat into its deadline.
 */
export interface CallerConcurrency {
  /** The cap per caller. */
  readonly max: number;
  /** Takes a slot for `caller`: the function that gives it back, or undefined when the caller is at its cap. */
  acquire(caller: string): (() => void) | undefined;
  /** Invocations `caller` has in flight. */
  inFlight(caller: string): number;
  /** Callers with at least one invocation in flight (the map never keeps an idle caller). */
  size(): number;
}

export function createCallerConcurrency({ maxPerCaller }: { maxPerCaller: number }): CallerConcurrency {
  const counts = new Map<string, number>();
  return {
    max: maxPerCaller,
    acquire(caller) {
      const held = counts.get(caller) ?? 0;
      if (held >= maxPerCaller) return undefined;
      counts.set(caller, held + 1);
      let released = false;
      return () => {
        if (released) return; // a second call must not free another invocation's slot
        released = true;
        const left = (counts.get(caller) ?? 1) - 1;
        if (left > 0) counts.set(caller, left);
        else counts.delete(caller);
      };
    },
    inFlight: (caller) => counts.get(caller) ?? 0,
    size: () => counts.size,
  };
}

/**
 * Who a slot belongs to. With a callers file, the hash of the `Authorization` header, as the
 * rate limit keys it: a made-up token is answered 401 by the face at once, so it holds a slot
 * for no time. Without one, `Authorization` is never checked, so a client could invent a value
 * per request and get a fresh cap each time: the address alone is the caller then.
 */
export function concurrencyKey(
  authorization: string | undefined,
  remoteAddress: string | undefined,
  callersConfigured: boolean,
): string {
  return callerKey(callersConfigured ? authorization : undefined, remoteAddress);
}

/** The refusal: what happened and what the caller should do about it. */
export function tooManyInFlight(maxPerCaller: number): SculptorError {
  return new SculptorError(
    'request.too_many_in_flight',
    `This caller already has ${maxPerCaller} invocations in flight, the most the gateway runs at once for one caller; wait for one of them to answer, then retry. ` +
      'If one client runs more calls at once by design, the gateway operator can raise SCULPTOR_MAX_INFLIGHT_PER_CALLER (0: no cap), ' +
      'or give each of its agents a token of its own with SCULPTOR_CALLERS (the cap is then per token, not per address).',
    { retryAfter: 1 },
  );
}
