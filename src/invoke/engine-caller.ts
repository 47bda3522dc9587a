import type { Caller } from '../callers/load-callers.ts';
import type { CallerIdentity, InvocationCaller } from '../engine/attach-credentials.ts';
import type { CallParty } from './call-service.ts';

/**
 * The engine's view of a caller: tenant, `$caller` context, credentials, identity. `presented`
 * answers the per-user credentials a backend's explicit pass-through may read — a request's
 * headers over HTTP, none on stdio; only the headers a pass-through names are ever read.
 */
export function engineCaller(party: CallParty): InvocationCaller {
  return new PartyCaller(party);
}

/** One object per call, `presented` a method reading the party's, not a closure over it. */
class PartyCaller implements InvocationCaller {
  readonly tenant: string;
  readonly context: Caller['context'];
  readonly credentials: Caller['tenant']['credentials'];
  readonly identity: CallerIdentity | undefined;
  readonly #party: CallParty;

  constructor(party: CallParty) {
    const { caller } = party;
    this.tenant = caller.tenant.name;
    this.context = caller.context;
    this.credentials = caller.tenant.credentials;
    this.identity = caller.identity;
    this.#party = party;
  }

  presented(header: string): string | undefined {
    return this.#party.presented?.(header);
  }
}
