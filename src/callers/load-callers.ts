import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { SculptorError, type SourcePosition } from '../errors/sculptor-error.ts';
import { type BackendAuth, resolveCredential } from '../sculpt/load-backends.ts';
import { validateAgainstSchema } from '../sculpt/validate-schema.ts';
import { parseYamlSource } from '../sculpt/yaml-source.ts';

/** Bearer tokens shorter than this are guessable; the loader refuses them. */
export const MIN_TOKEN_LENGTH = 24;

/** One tenant's credentials for a `tenancy: per-tenant` backend. */
export interface TenantCredentials {
  auth: BackendAuth[];
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
}

/** An authenticated principal: one agent or platform acting for a tenant. */
export interface Caller {
  name: string;
  tenant: Tenant;
}

/** What a callers file declares, ready for authentication. */
export interface CallerDirectory {
  file: string;
  tenants: Tenant[];
  /** Callers by the SHA-256 of their token: the tokens themselves are not kept in a map. */
  byTokenHash: ReadonlyMap<string, Caller>;
  /** Every secret value the file resolved (tokens, credentials), for the log redactor. */
  secrets: string[];
}

/** Without a callers file every request is this caller: one tenant, every tool, no context. */
export const ANONYMOUS: Caller = {
  name: 'anonymous',
  tenant: {
    name: 'default',
    at: { file: '(no callers file)', line: 1, column: 1 },
    tools: undefined,
    allows: () => true,
    context: {},
    credentials: new Map(),
  },
};

interface RawTenant {
  tools?: string[];
  context?: Record<string, string | number | boolean>;
  credentials?: Record<string, BackendAuth[]>;
  callers: Array<{ name: string; token: string }>;
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
  let text: string;
  try {
    text = await readFile(abs, 'utf8');
  } catch (err) {
    const at = { file: abs, line: 1, column: 1 };
    return {
      errors: [
        new SculptorError('load.io', `Cannot read the callers file: ${(err as Error).message}`, { at }),
      ],
    };
  }
  const parsed = parseYamlSource(abs, text);
  if (!parsed.source) return { errors: parsed.errors };
  const source = parsed.source;
  const errors = validateAgainstSchema('callers', source);
  if (errors.length > 0) return { errors };

  const tenants: Tenant[] = [];
  const byTokenHash = new Map<string, Caller>();
  const callerNames = new Set<string>();
  const secrets: string[] = [];
  const raw = (source.value as { tenants: Record<string, RawTenant> }).tenants;
  for (const [name, spec] of Object.entries(raw)) {
    const at = (...p: Array<string | number>) => source.at(['tenants', name, ...p]);
    const problem = (
      code: 'load.env' | 'load.literal_secret' | 'load.schema',
      message: string,
      where: SourcePosition,
    ) => errors.push(new SculptorError(code, message, { at: where }));

    const credentials = new Map<string, TenantCredentials>();
    for (const [backend, entries] of Object.entries(spec.credentials ?? {})) {
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
    };
    tenants.push(tenant);

    spec.callers.forEach((caller, i) => {
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
      byTokenHash.set(hash, { name: caller.name, tenant });
      secrets.push(token.value);
    });
  }
  if (errors.length > 0) return { errors };
  return { directory: { file: abs, tenants, byTokenHash, secrets }, errors };
}

/** Exact names, or prefixes ending in `*`; no list allows every tool. */
function toolMatcher(patterns: string[] | undefined): (toolName: string) => boolean {
  if (patterns === undefined) return () => true;
  const exact = new Set(patterns.filter((p) => !p.endsWith('*')));
  const prefixes = patterns.filter((p) => p.endsWith('*')).map((p) => p.slice(0, -1));
  return (toolName) => exact.has(toolName) || prefixes.some((p) => toolName.startsWith(p));
}
