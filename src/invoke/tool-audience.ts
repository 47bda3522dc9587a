import type { Caller } from '../callers/load-callers.ts';
import type { ToolAudience } from '../catalog/catalog.ts';

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
