import type { Context } from 'hono';
import { authenticate } from '../../callers/authenticate.ts';
import type { Caller, CallerDirectory } from '../../callers/load-callers.ts';
import type { QuotaCheck } from '../../callers/quotas.ts';
import type { ToolAudience } from '../../catalog/catalog.ts';
import type { CompiledTool } from '../../compile/compile-tool.ts';
import type { InvocationCaller } from '../../engine/attach-credentials.ts';
import { SculptorError } from '../../errors/sculptor-error.ts';

/**
 * Who a request is from, the same way on every face: `Authorization: Bearer` checked against the
 * callers file in force (RELIABILITY D1), or the anonymous caller of the one tenant without one.
 * A refusal is `auth.*`; each face writes it (with the RFC 6750 challenge) in its own form.
 */
export function requestCaller(c: Context, callers: CallerDirectory | undefined): Promise<Caller> {
  return authenticate(callers, c.req.header('authorization'));
}

const audiences = new WeakMap<Caller, ToolAudience>();

/**
 * What the catalog may show a caller (RELIABILITY D5): it finds the tools of its tenant, and
 * lists (and searches) those its token's scopes also grant. Static callers live as long as
 * their callers file, so their audience is made once.
 */
export function audienceOf(caller: Caller): ToolAudience {
  let audience = audiences.get(caller);
  if (!audience) {
    audience = {
      mayFind: (name) => caller.tenant.allows(name),
      mayList: (name) => caller.tenant.allows(name) && caller.missingScopes(name).length === 0,
      key: caller.tenant.name,
    };
    audiences.set(caller, audience);
  }
  return audience;
}

/**
 * Whether this caller may invoke `tool` now: its token's scopes must grant it — 403 naming the
 * scopes to ask the identity provider for (RFC 6750 insufficient_scope), not a 404: the tenant
 * may know the tool, the token is what falls short — and the tenant's quota must have room.
 */
export async function admitInvocation(
  caller: Caller,
  tool: CompiledTool,
  quotas: QuotaCheck | undefined,
): Promise<void> {
  const name = tool.signature.name;
  const missing = caller.missingScopes(name);
  if (missing.length > 0) {
    throw new SculptorError(
      'auth.insufficient_scope',
      `Your token's scopes do not grant ${name}: ask the identity provider for ${missing.join(' or ')}.`,
      { scopes: missing },
    );
  }
  await quotas?.take(caller.tenant, name);
}

/** The engine's view of the caller: tenant, `$caller` context, credentials, identity. */
export function invocationCaller(c: Context, caller: Caller): InvocationCaller {
  // Only the headers a backend's explicit pass-through names are ever read.
  return engineCaller(caller, (header) => c.req.header(header));
}

/**
 * The same, for a host without request headers (stdio): `presented` answers the per-user
 * credentials a pass-through may read, none there.
 */
export function engineCaller(
  caller: Caller,
  presented: (header: string) => string | undefined = () => undefined,
): InvocationCaller {
  return {
    tenant: caller.tenant.name,
    context: caller.context,
    credentials: caller.tenant.credentials,
    ...(caller.identity ? { identity: caller.identity } : {}),
    presented,
  };
}
