import type { Caller } from '../callers/load-callers.ts';
import type { InvocationCaller } from '../engine/attach-credentials.ts';

/**
 * The engine's view of a caller: tenant, `$caller` context, credentials, identity. `presented`
 * answers the per-user credentials a backend's explicit pass-through may read — a request's
 * headers over HTTP, none on stdio; only the headers a pass-through names are ever read.
 */
export function engineCaller(
  caller: Caller,
  presented: (header: string) => string | undefined = () => undefined,
): InvocationCaller {
  return {
    tenant: caller.tenant.name,
    context: caller.context,
    credentials: caller.tenant.credentials,
    identity: caller.identity,
    presented,
  };
}
