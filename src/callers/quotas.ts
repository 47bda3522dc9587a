import { createHmac } from 'node:crypto';
import type { CacheStore, QuotaWindow, TokenVerdict } from '../cache/cache-store.ts';
import { SculptorError } from '../errors/sculptor-error.ts';
import type { Tenant } from './load-callers.ts';

/**
 * Per-tenant quotas from the callers file: invocations per minute and per day,
 * for all of a tenant's tools or the tools a rule names, counted across every replica through
 * the cache store's Redis in one atomic round trip per rule. While Redis cannot answer, each
 * process counts on its own (so the deployment admits at most replicas × the quota then).
 */
export interface QuotaCheck {
  /**
   * Counts one invocation of `toolName` by `tenant`; rejects with 429 request.quota_exceeded when a
   * quota is used up. Undefined for a tenant with no quotas: nothing to count, nothing to wait for.
   */
  take(tenant: Tenant, toolName: string): Promise<void> | undefined;
}

export function createQuotaCheck(store: CacheStore, secret: string): QuotaCheck {
  // Counters are keyed by an HMAC of tenant and rule under the deployment's secret: no tenant
  // name in Redis in clear, and two deployments sharing a Redis never share a counter.
  const keyOf = (ruleId: string) =>
    createHmac('sha256', secret).update(ruleId).digest('base64url').slice(0, 22);
  const local = new Map<string, { count: number; resetAt: number }>();
  const takeLocally = (key: string, windows: readonly QuotaWindow[]): TokenVerdict => {
    const now = Date.now();
    const counters = windows.map((w) => {
      const id = `${key}:${w.windowMs}`;
      let counter = local.get(id);
      if (!counter || counter.resetAt <= now) {
        counter = { count: 0, resetAt: now + w.windowMs };
        local.set(id, counter);
      }
      return { counter, limit: w.limit };
    });
    const full = counters.find(({ counter, limit }) => counter.count >= limit);
    if (full) return { ok: false, retryAfterMs: full.counter.resetAt - now };
    for (const { counter } of counters) counter.count++;
    return { ok: true };
  };

  const takeRules = async (tenant: Tenant, toolName: string): Promise<void> => {
    for (const rule of tenant.quotas) {
      if (!rule.applies(toolName) || rule.windows.length === 0) continue;
      const key = keyOf(rule.id);
      const verdict = (await store.takeQuota?.(key, rule.windows)) ?? takeLocally(key, rule.windows);
      if (!verdict.ok) {
        const seconds = Math.max(1, Math.ceil(verdict.retryAfterMs / 1000));
        throw new SculptorError(
          'request.quota_exceeded',
          `Your organisation's quota for ${toolName} is used up; try again in ${seconds} s or ask its administrator for more.`,
          { retryAfter: seconds },
        );
      }
    }
  };
  return {
    take: (tenant, toolName) => (tenant.quotas.length === 0 ? undefined : takeRules(tenant, toolName)),
  };
}
