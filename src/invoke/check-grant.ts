import type { Caller } from '../callers/load-callers.ts';
import type { QuotaCheck } from '../callers/quotas.ts';
import type { CompiledTool } from '../compile/compile-tool.ts';
import { SculptorError } from '../errors/sculptor-error.ts';

/**
 * Whether this caller may invoke `tool` now: its token's scopes must grant it — 403 naming the
 * scopes to ask the identity provider for (RFC 6750 insufficient_scope), not a 404: the tenant
 * may know the tool, the token is what falls short — and the tenant's quota must have room.
 * Throws at once for the scopes; the quota's promise only when the tenant has quotas to count.
 */
export function checkGrant(
  caller: Caller,
  tool: CompiledTool,
  quotas: QuotaCheck | undefined,
): Promise<void> | undefined {
  const name = tool.signature.name;
  const missing = caller.missingScopes(name);
  if (missing.length > 0) {
    throw new SculptorError(
      'auth.insufficient_scope',
      `Your token's scopes do not grant ${name}: ask the identity provider for ${missing.join(' or ')}.`,
      { scopes: missing },
    );
  }
  return quotas?.take(caller.tenant, name);
}
