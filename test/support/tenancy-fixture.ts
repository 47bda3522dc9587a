/**
 * The two-tenant fixture (RELIABILITY D1–D6): acme may use every tool, globex not public_stats;
 * each tenant's credential reaches the lab backend (test/engine/lab-backend.ts).
 */
import type { LabBackend } from '../engine/lab-backend.ts';

export const TENANCY_SCULPTS = 'test/hardening/fixtures/tenancy';
export const TENANCY_CALLERS = 'test/hardening/fixtures/tenancy-callers.yaml';
export const ACME = 'acme-token-0123456789abcdefghij';
export const GLOBEX = 'globex-token-0123456789abcdefghij';

/** The environment the fixture's backends and callers file read. */
export function tenancyEnv(lab: LabBackend): Record<string, string> {
  return {
    LAB_URL: lab.url,
    ACME_LAB_KEY: 'acme-lab-key',
    GLOBEX_LAB_KEY: 'globex-lab-key',
    ACME_TOKEN: ACME,
    GLOBEX_TOKEN: GLOBEX,
  };
}
