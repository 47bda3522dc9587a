import type { CompiledBackend } from '../compile/compile-backends.ts';
import type { CompiledTool } from '../compile/compile-tool.ts';
import { SculptorError } from '../errors/sculptor-error.ts';
import { ANONYMOUS, type CallerDirectory, type Tenant } from './load-callers.ts';

/**
 * The checks between who calls and what the tools reach, run at load so a
 * misconfiguration stops the gateway instead of leaking data (RELIABILITY D3):
 * - a backend with one credential for one tenant's data (`tenancy: single`)
 *   may be reachable by one tenant only;
 * - every tenant that can reach a `per-tenant` backend has credentials for it;
 * - a tenant's credentials name a per-tenant backend, and its exact tool names
 *   name tools that exist (a typo would silently deny, or later allow).
 */
export function checkTenancy(directory: CallerDirectory | undefined, tools: CompiledTool[]): SculptorError[] {
  const errors: SculptorError[] = [];
  const tenants = directory?.tenants ?? [ANONYMOUS.tenant];
  const names = new Set(tools.map((t) => t.signature.name));

  // Which tenants reach which backend, through which tools.
  const reach = new Map<CompiledBackend, Map<Tenant, Set<string>>>();
  for (const tenant of tenants) {
    for (const tool of tools) {
      if (!tenant.allows(tool.signature.name)) continue;
      for (const step of tool.steps) {
        let byTenant = reach.get(step.backend);
        if (!byTenant) reach.set(step.backend, (byTenant = new Map()));
        let via = byTenant.get(tenant);
        if (!via) byTenant.set(tenant, (via = new Set()));
        via.add(tool.signature.name);
      }
    }
  }

  for (const [backend, byTenant] of reach) {
    if (backend.tenancy === 'single' && byTenant.size > 1) {
      const who = [...byTenant].map(([t, via]) => `${t.name} (${[...via].sort().join(', ')})`).join('; ');
      errors.push(
        new SculptorError(
          'load.tenancy',
          `Backend '${backend.name}' has one credential for one tenant's data (tenancy: single), but ${byTenant.size} tenants can call its tools: ${who}. Declare tenancy: per-tenant and give each tenant its credentials, declare tenancy: shared if every caller may see the same data, or narrow the tenants' tools.`,
          { at: backend.tenancyAt },
        ),
      );
    }
    if (backend.tenancy === 'per-tenant') {
      for (const [tenant, via] of byTenant) {
        if (tenant.credentials.has(backend.name)) continue;
        errors.push(
          new SculptorError(
            'load.tenancy',
            directory
              ? `Tenant '${tenant.name}' can call ${[...via].sort().join(', ')}, whose backend '${backend.name}' is per-tenant, but has no credentials for it.`
              : `Backend '${backend.name}' is per-tenant: its credentials come from a callers file (SCULPTOR_CALLERS), and none is configured.`,
            { at: directory ? tenant.at : backend.tenancyAt },
          ),
        );
      }
    }
  }

  const perTenant = new Set(
    tools.flatMap((t) =>
      t.steps.filter((s) => s.backend.tenancy === 'per-tenant').map((s) => s.backend.name),
    ),
  );
  for (const tenant of directory?.tenants ?? []) {
    for (const [backend, credentials] of tenant.credentials) {
      if (!perTenant.has(backend)) {
        errors.push(
          new SculptorError(
            'load.tenancy',
            `Tenant '${tenant.name}' has credentials for '${backend}', which is not a per-tenant backend of any tool.`,
            { at: credentials.at },
          ),
        );
      }
    }
    for (const { pattern, at } of tenant.tools ?? []) {
      if (!pattern.endsWith('*') && !names.has(pattern)) {
        errors.push(
          new SculptorError(
            'load.tenancy',
            `Tenant '${tenant.name}' lists tool '${pattern}', which does not exist.`,
            { at },
          ),
        );
      }
    }
  }
  return errors;
}
