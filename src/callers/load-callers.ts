import { createHash } from 'node:crypto';
import path from 'node:path';
import type { CallerIdentity } from '../engine/attach-credentials.ts';
import { SculptorError, type SourcePosition } from '../errors/sculptor-error.ts';
import { interpolateEnv } from '../sculpt/interpolate-env.ts';
import {
  type BackendAuth,
  type OAuthClient,
  readOAuthClient,
  resolveCredential,
} from '../sculpt/load-backends.ts';
import { validateAgainstSchema } from '../sculpt/validate-schema.ts';
import { readYamlSource } from '../sculpt/yaml-source.ts';
import {
  allowedUrl,
  createIdentityProvider,
  DEFAULT_ALGORITHMS,
  type IdentityProvider,
} from './identity-provider.ts';

/** Bearer tokens shorter than this are guessable; the loader refuses them. */
export const MIN_TOKEN_LENGTH = 24;

/** One tenant's credentials for a `tenancy: per-tenant` backend. */
export interface TenantCredentials {
  auth: BackendAuth[];
  /** This tenant's own OAuth client, for a per-tenant backend with an `oauth` block. */
  oauthClient?: OAuthClient;
  /** A stable, non-reversible id of these credentials (for caller-scoped cache keys). */
  credentialId: string;
  at: SourcePosition;
}

/** A tenant: whose data its callers reach, and which tools they may use (RELIABILITY D1-D5). */
export interface Tenant {
  name: string;
  at: SourcePosition;
  /** The allowlist as written: names, or prefixes ending in `*`; undefined allows every tool. */
  tools: ReadonlyArray<{ pattern: string; at: SourcePosition }> | undefined;
  allows(toolName: string): boolean;
  /** Bound as `$caller` in request-building expressions. */
  context: Readonly<Record<string, string | number | boolean>>;
  /** Credentials for per-tenant backends, by backend name. */
  credentials: ReadonlyMap<string, TenantCredentials>;
  /** Invocations per minute/day, counted across replicas (`quotas.ts`). */
  quotas: readonly TenantQuota[];
}

/** One quota rule of a tenant: the tools it counts, and its windows. */
export interface TenantQuota {
  /** Stable within the callers file: the rule's position, part of its counters' key. */
  id: string;
  applies(toolName: string): boolean;
  windows: ReadonlyArray<{ windowMs: number; limit: number }>;
}

/** An authenticated principal: one agent or platform acting for a tenant. */
export interface Caller {
  name: string;
  tenant: Tenant;
  /** Bound as `$caller`: the tenant's context, plus the token's claims the identity block maps. */
  context: Readonly<Record<string, string | number | boolean>>;
  /**
   * Scopes narrow the tenant's allowlist for identity-provider callers: the scopes a
   * tool needs that this caller's token lacks (empty: allowed). Static callers lack none.
   */
  missingScopes(toolName: string): readonly string[];
  /** Set when the caller presented an identity provider's token (not a static one): for token exchange. */
  identity?: CallerIdentity;
}

/** How identity-provider tokens map to tenants, callers and tools (the callers file's `identity`). */
export interface IdentityMapping {
  provider: IdentityProvider;
  tenantClaim: string;
  callerClaim: string;
  /** Scope → tool patterns; undefined: scopes do not narrow the tenant's tools. */
  scopes: ReadonlyMap<string, (toolName: string) => boolean> | undefined;
  contextClaims: Readonly<Record<string, string>>;
  at: SourcePosition;
}

/** What a callers file declares, ready for authentication. */
export interface CallerDirectory {
  file: string;
  tenants: Tenant[];
  /** Callers by the SHA-256 of their token: the tokens themselves are not kept in a map. */
  byTokenHash: ReadonlyMap<string, Caller>;
  /** Tenants by name, for callers whose token's claim names their tenant. */
  byName: ReadonlyMap<string, Tenant>;
  identity?: IdentityMapping;
  /** Every secret value the file resolved (tokens, credentials), for the log redactor. */
  secrets: string[];
}

/** Without a callers file every request is this caller: one tenant, every tool, no context. */
export const ANONYMOUS: Caller = staticCaller('anonymous', {
  name: 'default',
  at: { file: '(no callers file)', line: 1, column: 1 },
  tools: undefined,
  allows: () => true,
  context: {},
  credentials: new Map(),
  quotas: [],
});

const NO_SCOPES_MISSING: readonly string[] = [];

/** A caller with a static token: its tenant's tools and context, nothing narrowed. */
export function staticCaller(name: string, tenant: Tenant): Caller {
  return { name, tenant, context: tenant.context, missingScopes: () => NO_SCOPES_MISSING };
}

interface RawTenant {
  tools?: string[];
  context?: Record<string, string | number | boolean>;
  credentials?: Record<string, BackendAuth[] | { oauth: RawOAuthClient }>;
  callers?: Array<{ name: string; token: string }>;
  quotas?: Array<{ tools?: string[]; perMinute?: number; perDay?: number }>;
}

interface RawOAuthClient {
  clientId: string;
  clientSecret?: string;
  privateKey?: string;
}

interface RawIdentity {
  issuer: string;
  audience: string;
  algorithms?: string[];
  clockSkewSeconds?: number;
  keyRefreshSeconds?: number;
  tenantClaim: string;
  callerClaim?: string;
  scopes?: Record<string, string[]>;
  contextClaims?: Record<string, string>;
  allowHttp?: boolean;
}

export function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * Reads a callers file (SCULPTOR_CALLERS). Like the sculpt loader it collects
 * every error, each at file:line:col, and refuses secrets written literally.
 */
export async function loadCallers(
  file: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<{ directory?: CallerDirectory; errors: SculptorError[] }> {
  const abs = path.resolve(file);
  const parsed = await readYamlSource(abs, 'the callers file');
  if (!parsed.source) return { errors: parsed.errors };
  const source = parsed.source;
  const errors = validateAgainstSchema('callers', source);
  if (errors.length > 0) return { errors };

  const tenants: Tenant[] = [];
  const byTokenHash = new Map<string, Caller>();
  const callerNames = new Set<string>();
  const secrets: string[] = [];
  const { tenants: raw, identity: rawIdentity } = source.value as {
    tenants: Record<string, RawTenant>;
    identity?: RawIdentity;
  };
  const identity = rawIdentity ? readIdentity(rawIdentity, env, (p) => source.at(p), errors) : undefined;
  for (const [name, spec] of Object.entries(raw)) {
    const at = (...p: Array<string | number>) => source.at(['tenants', name, ...p]);
    const problem = (
      code: 'load.env' | 'load.literal_secret' | 'load.schema' | 'load.tenancy',
      message: string,
      where: SourcePosition,
    ) => errors.push(new SculptorError(code, message, { at: where }));

    const credentials = new Map<string, TenantCredentials>();
    for (const [backend, entries] of Object.entries(spec.credentials ?? {})) {
      if (!Array.isArray(entries)) {
        const missing: string[] = [];
        const where = source.keyAt(['tenants', name, 'credentials', backend]);
        const client = readOAuthClient(entries.oauth, env, missing, (code, message, ...p) =>
          problem(code, message, at('credentials', backend, 'oauth', ...p)),
        );
        if (missing.length > 0) {
          problem(
            'load.env',
            `The OAuth client for '${backend}' needs environment variable ${missing.join(', ')}.`,
            where,
          );
        }
        if (!client) continue;
        secrets.push(
          client.auth.method === 'client_secret_basic' ? client.auth.secret : client.auth.privateKeyPem,
        );
        credentials.set(backend, {
          auth: [],
          oauthClient: client,
          credentialId: createHash('sha256')
            .update(JSON.stringify([name, client.clientId]))
            .digest('hex'),
          at: where,
        });
        continue;
      }
      const auth: BackendAuth[] = [];
      entries.forEach((entry, i) => {
        const resolved = resolveCredential(entry.value, env);
        const where = at('credentials', backend, i, 'value');
        if (!resolved.ok) {
          problem(
            'load.literal_secret',
            `Credential '${entry.name}' must come from an environment variable, e.g. value: "\${ACME_API_KEY}".`,
            where,
          );
        } else if (resolved.missing.length > 0) {
          problem(
            'load.env',
            `Credential '${entry.name}' needs environment variable ${resolved.missing.join(', ')}.`,
            where,
          );
        }
        auth.push({ in: entry.in, name: entry.name, value: resolved.value });
        secrets.push(resolved.value);
      });
      credentials.set(backend, {
        auth,
        credentialId: createHash('sha256')
          .update(JSON.stringify([name, auth.map((a) => [a.in, a.name, a.value])]))
          .digest('hex'),
        at: source.keyAt(['tenants', name, 'credentials', backend]),
      });
    }

    const tools = spec.tools?.map((pattern, i) => ({ pattern, at: at('tools', i) }));
    const tenant: Tenant = {
      name,
      at: source.keyAt(['tenants', name]),
      tools,
      allows: toolMatcher(spec.tools),
      context: Object.freeze({ ...(spec.context ?? {}) }),
      credentials,
      quotas: (spec.quotas ?? []).map((rule, i) => ({
        id: `${name}:${i}`,
        applies: toolMatcher(rule.tools),
        windows: [
          ...(rule.perMinute ? [{ windowMs: 60_000, limit: rule.perMinute }] : []),
          ...(rule.perDay ? [{ windowMs: 86_400_000, limit: rule.perDay }] : []),
        ],
      })),
    };
    tenants.push(tenant);

    if (!spec.callers?.length && !rawIdentity) {
      errors.push(
        new SculptorError(
          'load.schema',
          `Tenant '${name}' has no callers: list its callers with their tokens, or add an identity block so tokens from your identity provider name it.`,
          { at: source.keyAt(['tenants', name]) },
        ),
      );
    }
    (spec.callers ?? []).forEach((caller, i) => {
      const where = at('callers', i, 'token');
      if (callerNames.has(caller.name)) {
        problem('load.schema', `Caller name '${caller.name}' is used twice.`, at('callers', i, 'name'));
      }
      callerNames.add(caller.name);
      const token = resolveCredential(caller.token, env);
      if (!token.ok) {
        problem(
          'load.literal_secret',
          `The token of '${caller.name}' must come from an environment variable, e.g. token: "\${ACME_AGENT_TOKEN}".`,
          where,
        );
        return;
      }
      if (token.missing.length > 0) {
        problem(
          'load.env',
          `The token of '${caller.name}' needs environment variable ${token.missing.join(', ')}.`,
          where,
        );
        return;
      }
      if (token.value.length < MIN_TOKEN_LENGTH || /\s/.test(token.value)) {
        problem(
          'load.env',
          `The token of '${caller.name}' must be at least ${MIN_TOKEN_LENGTH} characters, without spaces.`,
          where,
        );
        return;
      }
      const hash = tokenHash(token.value);
      const other = byTokenHash.get(hash);
      if (other) {
        problem(
          'load.env',
          `'${caller.name}' has the same token as '${other.name}': give each caller its own.`,
          where,
        );
        return;
      }
      byTokenHash.set(hash, staticCaller(caller.name, tenant));
      secrets.push(token.value);
    });
  }
  if (errors.length > 0) return { errors };
  const byName = new Map(tenants.map((t) => [t.name, t]));
  return {
    directory: { file: abs, tenants, byTokenHash, byName, ...(identity ? { identity } : {}), secrets },
    errors,
  };
}

/** The `identity` block: an identity provider whose tokens name a tenant in a claim. */
function readIdentity(
  raw: RawIdentity,
  env: Readonly<Record<string, string | undefined>>,
  at: (path: Array<string | number>) => SourcePosition,
  errors: SculptorError[],
): IdentityMapping | undefined {
  const read = (key: 'issuer' | 'audience'): string | undefined => {
    const value = interpolateEnv(raw[key], env);
    if (value.missing.length === 0) return value.value;
    errors.push(
      new SculptorError(
        'load.env',
        `identity.${key} needs environment variable ${value.missing.join(', ')}.`,
        {
          at: at(['identity', key]),
        },
      ),
    );
    return undefined;
  };
  const issuer = read('issuer');
  const audience = read('audience');
  const allowHttp = raw.allowHttp === true;
  if (issuer !== undefined && !allowedUrl(issuer, allowHttp)) {
    errors.push(
      new SculptorError(
        'load.insecure_url',
        `identity.issuer '${issuer}' must be an https:// URL (allowHttp: true is for a provider on loopback in development).`,
        { at: at(['identity', 'issuer']) },
      ),
    );
    return undefined;
  }
  if (issuer === undefined || audience === undefined) return undefined;
  return {
    provider: createIdentityProvider({
      issuer,
      audience,
      algorithms: raw.algorithms ?? DEFAULT_ALGORITHMS,
      clockSkewSeconds: raw.clockSkewSeconds ?? 30,
      keyRefreshSeconds: raw.keyRefreshSeconds ?? 30,
      allowHttp,
    }),
    tenantClaim: raw.tenantClaim,
    callerClaim: raw.callerClaim ?? 'sub',
    scopes: raw.scopes
      ? new Map(Object.entries(raw.scopes).map(([scope, tools]) => [scope, toolMatcher(tools)]))
      : undefined,
    contextClaims: raw.contextClaims ?? {},
    at: at(['identity']),
  };
}

/** Exact names, or prefixes ending in `*`; no list allows every tool. */
function toolMatcher(patterns: string[] | undefined): (toolName: string) => boolean {
  if (patterns === undefined) return () => true;
  const exact = new Set(patterns.filter((p) => !p.endsWith('*')));
  const prefixes = patterns.filter((p) => p.endsWith('*')).map((p) => p.slice(0, -1));
  return (toolName) => exact.has(toolName) || prefixes.some((p) => toolName.startsWith(p));
}
