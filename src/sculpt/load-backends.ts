import { createHash } from 'node:crypto';
import path from 'node:path';
import { SculptorError, type SourcePosition } from '../errors/sculptor-error.ts';
import { interpolateEnv, literalPart } from './interpolate-env.ts';
import { validateAgainstSchema } from './validate-schema.ts';
import type { YamlSource } from './yaml-source.ts';

export interface BackendAuth {
  /** `wsSecurity`: a WS-Security UsernameToken in the SOAP header; `name` is the user name, `value` the password. */
  in: 'header' | 'query' | 'cookie' | 'wsSecurity';
  name: string;
  value: string;
  /** wsSecurity: send a PasswordDigest (nonce, created) rather than the password. */
  digest?: boolean;
}

/** A per-user credential: copied from a request header the caller sends (explicit pass-through). */
export interface PassThroughAuth {
  in: 'header' | 'query' | 'cookie';
  name: string;
  /** The inbound header, lower-cased. */
  header: string;
}

/** How the gateway authenticates itself at a token endpoint. */
export type ClientAuthentication =
  { method: 'client_secret_basic'; secret: string } | { method: 'private_key_jwt'; privateKeyPem: string };

/** The gateway's client at a token endpoint. */
export interface OAuthClient {
  clientId: string;
  auth: ClientAuthentication;
}

/** OAuth 2.0 access tokens for a backend: the gateway's own, or the user's, exchanged. */
export interface BackendOAuth {
  grant: 'client_credentials' | 'token_exchange';
  /** Absent: from the OpenAPI document (client credentials) or the identity provider (exchange). */
  tokenUrl: string | undefined;
  /** Absent for a per-tenant backend: each tenant's own client, from the callers file. */
  client: OAuthClient | undefined;
  scopes: string[];
  resource: string | undefined;
  at: SourcePosition;
}

/**
 * Whose data a backend's credentials reach (RELIABILITY D1-D3). `shared`: the same for every
 * caller; `single`: one tenant's, so at most one tenant may reach it; `per-tenant`: each
 * tenant's own credentials, from the callers file.
 */
export type Tenancy = 'shared' | 'single' | 'per-tenant';

export interface BackendDescription {
  kind: 'openapi' | 'wsdl';
  /** An absolute path, or (a WSDL only) an http(s) URL read at load. */
  location: string;
  at: SourcePosition;
  /** WSDL: the service and port whose operations are used (default: the first SOAP port). */
  service?: string;
  port?: string;
}

/** One backend as declared in a backends file, with environment references resolved. */
export interface BackendSpec {
  name: string;
  /** The backends file that declares it. */
  file: string;
  /** What describes its operations: an OpenAPI document or a WSDL description, and where the file names it. */
  description: BackendDescription;
  baseUrl: string;
  /** Where the backends file sets baseUrl. */
  baseUrlAt: SourcePosition;
  /** Static headers, names lower-cased. */
  headers: Record<string, string>;
  /** Credentials from the deployment's environment (none for a per-tenant backend). */
  auth: BackendAuth[];
  /** Credentials the caller brings per request, by explicit mapping (RELIABILITY D6). */
  passThrough: PassThroughAuth[];
  /** Access tokens the gateway fetches for this backend, sent as `Authorization: Bearer`. */
  oauth: BackendOAuth | undefined;
  tenancy: Tenancy;
  /** Where the file declares the tenancy, or the credentials that imply it. */
  tenancyAt: SourcePosition;
  /** Parameters naming an owner: bound from `$caller` only (RELIABILITY D2). */
  ownerParams: string[];
  /** Environment variables the credentials need but that are not set. */
  credentialsMissing: string[];
  /** A stable, non-reversible id of the credentials in use (for caller-scoped cache keys). */
  credentialId: string;
  allowPrivate: boolean;
}

interface RawBackend {
  openapi?: string;
  wsdl?: string;
  service?: string;
  port?: string;
  wsSecurity?: { username: string; password: string; passwordType?: 'text' | 'digest' };
  baseUrl: string;
  headers?: Record<string, string>;
  auth?: Array<{ in: PassThroughAuth['in']; name: string; value?: string; passThrough?: string }>;
  tenancy?: Tenancy;
  ownerParams?: string[];
  allowPrivate?: boolean;
  oauth?: RawOAuth;
}

interface RawOAuth {
  grant: BackendOAuth['grant'];
  tokenUrl?: string;
  clientId?: string;
  clientSecret?: string;
  privateKey?: string;
  scopes?: string[];
  resource?: string;
}

/**
 * Inbound headers a pass-through may not read: the caller's own A2T credential (confused
 * deputy, RELIABILITY D6), cookies, and headers that describe the connection, not the user.
 */
const NOT_PASSABLE =
  /^(authorization|proxy-authorization|cookie|host|connection|keep-alive|te|trailer|transfer-encoding|upgrade|content-length|content-type|traceparent|tracestate|forwarded|x-forwarded-.*)$/i;

/** Header names whose values are credentials: they may only come from the environment. */
const SENSITIVE_HEADER = /(authorization|cookie|api[-_]?key|token|secret|password|credential)/i;

/** Shapes of well-known secrets, refused wherever they are written literally. */
const SECRET_SHAPES = [
  /\b(sk|pk|rk)_(live|test)_[A-Za-z0-9]{8,}/,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/,
  /\bAKIA[0-9A-Z]{16}\b/,
  /\bBearer\s+[A-Za-z0-9._~+/-]{16,}/i,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
];

export function looksLikeSecret(text: string): boolean {
  return SECRET_SHAPES.some((shape) => shape.test(text));
}

/** An Arazzo description a backends file serves (its `arazzo` section). */
export interface ArazzoSpec {
  /** What sculpts call it: `workflow: <name>#<workflowId>`. */
  name: string;
  /** The backends file that declares it. */
  file: string;
  /** Absolute path of the description, and where the file names it. */
  documentFile: string;
  documentAt: SourcePosition;
  /** Backend by source description name, where the file says; others are matched by document. */
  sources: Record<string, string>;
  sourcesAt: SourcePosition;
  /** Workflows served as tools; undefined: every one no sculpt wraps. */
  workflows: string[] | undefined;
  workflowsAt: SourcePosition;
}

/** The `arazzo` section of a backends file (already schema-checked). */
export function loadArazzoSpecs(source: YamlSource): ArazzoSpec[] {
  const raw = (
    source.value as {
      arazzo?: Record<string, { document: string; sources?: Record<string, string>; workflows?: string[] }>;
    }
  ).arazzo;
  return Object.entries(raw ?? {}).map(([name, spec]) => ({
    name,
    file: source.file,
    documentFile: path.resolve(path.dirname(source.file), spec.document),
    documentAt: source.at(['arazzo', name, 'document']),
    sources: spec.sources ?? {},
    sourcesAt: source.at(['arazzo', name, 'sources']),
    workflows: spec.workflows,
    workflowsAt: source.at(['arazzo', name, 'workflows']),
  }));
}

export function loadBackends(
  source: YamlSource,
  env: Readonly<Record<string, string | undefined>>,
): { backends: BackendSpec[]; arazzo: ArazzoSpec[]; errors: SculptorError[] } {
  const errors = validateAgainstSchema('backends', source);
  if (errors.length > 0) return { backends: [], arazzo: [], errors };

  const backends: BackendSpec[] = [];
  const raw = (source.value as { backends: Record<string, RawBackend> }).backends;
  for (const [name, spec] of Object.entries(raw)) {
    const at = (...p: Array<string | number>) => source.at(['backends', name, ...p]);
    const problem = (
      code: 'load.env' | 'load.literal_secret' | 'load.tenancy' | 'load.schema',
      message: string,
      ...p: Array<string | number>
    ) => errors.push(new SculptorError(code, message, { at: at(...p) }));

    const baseUrl = interpolateEnv(spec.baseUrl, env);
    if (baseUrl.missing.length > 0) {
      problem(
        'load.env',
        `baseUrl needs environment variable ${baseUrl.missing.join(', ')} (or a default).`,
        'baseUrl',
      );
    } else if (!isHttpUrl(baseUrl.value)) {
      problem('load.env', `baseUrl '${baseUrl.value}' is not an http(s) URL.`, 'baseUrl');
    } else if (new URL(baseUrl.value).username || new URL(baseUrl.value).password) {
      problem(
        'load.literal_secret',
        'baseUrl must not carry credentials; use auth with an environment variable.',
        'baseUrl',
      );
    }

    const headers: Record<string, string> = {};
    for (const [header, value] of Object.entries(spec.headers ?? {})) {
      const resolved = interpolateEnv(value, env);
      if (SENSITIVE_HEADER.test(header) || looksLikeSecret(literalPart(value))) {
        problem(
          'load.literal_secret',
          `Header '${header}' carries a credential: declare it under auth with an environment variable.`,
          'headers',
          header,
        );
      } else if (resolved.missing.length > 0) {
        problem(
          'load.env',
          `Header '${header}' needs environment variable ${resolved.missing.join(', ')}.`,
          'headers',
          header,
        );
      }
      headers[header.toLowerCase()] = resolved.value;
    }

    const auth: BackendAuth[] = [];
    const passThrough: PassThroughAuth[] = [];
    const credentialsMissing: string[] = [];
    (spec.auth ?? []).forEach((entry, i) => {
      if ((entry.value === undefined) === (entry.passThrough === undefined)) {
        errors.push(
          new SculptorError(
            'load.schema',
            `Credential '${entry.name}' needs exactly one of value (from the environment) or passThrough (from the caller).`,
            { at: at('auth', i) },
          ),
        );
        return;
      }
      if (entry.passThrough !== undefined) {
        if (NOT_PASSABLE.test(entry.passThrough)) {
          problem(
            'load.literal_secret',
            `passThrough may not read the '${entry.passThrough}' header: name a header meant for this backend's credential, e.g. X-${name}-Token.`,
            'auth',
            i,
            'passThrough',
          );
        }
        passThrough.push({ in: entry.in, name: entry.name, header: entry.passThrough.toLowerCase() });
        return;
      }
      const resolved = resolveCredential(entry.value ?? '', env);
      if (!resolved.ok) {
        problem(
          'load.literal_secret',
          `Credential '${entry.name}' must come from an environment variable, e.g. value: "\${API_TOKEN}".`,
          'auth',
          i,
          'value',
        );
      }
      credentialsMissing.push(...resolved.missing);
      auth.push({ in: entry.in, name: entry.name, value: resolved.value });
    });

    const description = readDescription(spec, source.file, env, at, problem);
    if (spec.wsSecurity) {
      if (description?.kind !== 'wsdl') {
        problem(
          'load.schema',
          `Backend '${name}': wsSecurity is a SOAP header, for a backend described by wsdl.`,
          'wsSecurity',
        );
      }
      const password = resolveCredential(spec.wsSecurity.password, env);
      if (!password.ok) {
        problem(
          'load.literal_secret',
          `wsSecurity.password must come from an environment variable, e.g. password: "\${${name.toUpperCase().replace(/-/g, '_')}_PASSWORD}".`,
          'wsSecurity',
          'password',
        );
      }
      credentialsMissing.push(...password.missing);
      auth.push({
        in: 'wsSecurity',
        name: plainValue(spec.wsSecurity.username, env, credentialsMissing),
        value: password.value,
        digest: spec.wsSecurity.passwordType === 'digest',
      });
    }

    const oauth = spec.oauth
      ? readOAuth(
          spec.oauth,
          spec.tenancy === 'per-tenant',
          env,
          credentialsMissing,
          at('oauth'),
          (code, message, ...p) => problem(code, message, 'oauth', ...p),
        )
      : undefined;
    if (oauth && auth.some((a) => a.in === 'header' && a.name.toLowerCase() === 'authorization')) {
      problem(
        'load.schema',
        `Backend '${name}' sends OAuth tokens as Authorization: drop the Authorization entry from auth.`,
        'auth',
      );
    }

    // The gateway's own token reaches one tenant's data like a static key; an exchanged token is the user's.
    const ownCredentials = auth.length > 0 || oauth?.grant === 'client_credentials';
    const tenancy: Tenancy = spec.tenancy ?? (ownCredentials ? 'single' : 'shared');
    if (tenancy === 'per-tenant' && auth.length > 0) {
      problem(
        'load.tenancy',
        `Backend '${name}' is per-tenant: its credentials come from each tenant in the callers file, not from auth values here.`,
        'auth',
      );
    }

    if (!description) continue;
    backends.push({
      name,
      file: source.file,
      description,
      baseUrl: baseUrl.value.replace(/\/+$/, ''),
      baseUrlAt: at('baseUrl'),
      headers,
      auth,
      passThrough,
      oauth,
      tenancy,
      tenancyAt: spec.tenancy !== undefined ? at('tenancy') : spec.auth ? at('auth') : at(),
      ownerParams: spec.ownerParams ?? [],
      credentialsMissing,
      credentialId: createHash('sha256')
        .update(
          JSON.stringify([
            auth.map((a) => [a.in, a.name, a.value, ...(a.digest ? ['digest'] : [])]),
            oauth
              ? [
                  oauth.grant,
                  oauth.tokenUrl ?? null,
                  oauth.client?.clientId ?? null,
                  oauth.scopes,
                  oauth.resource ?? null,
                ]
              : null,
          ]),
        )
        .digest('hex'),
      allowPrivate: spec.allowPrivate === true,
    });
  }
  return { backends, arazzo: loadArazzoSpecs(source), errors };
}

/** `openapi` or `wsdl` (exactly one), with a WSDL's service and port. */
function readDescription(
  spec: RawBackend,
  file: string,
  env: Readonly<Record<string, string | undefined>>,
  at: (...p: Array<string | number>) => SourcePosition,
  problem: (code: 'load.schema' | 'load.env', message: string, ...p: Array<string | number>) => void,
): BackendDescription | undefined {
  if ((spec.openapi === undefined) === (spec.wsdl === undefined)) {
    problem(
      'load.schema',
      'A backend is described by exactly one of openapi (an OpenAPI document) or wsdl (a SOAP service).',
    );
    // With both, the OpenAPI document is still read, so its sculpts are checked against it.
    if (spec.openapi === undefined) return undefined;
  }
  if (spec.openapi !== undefined) {
    for (const key of ['service', 'port'] as const) {
      if (spec[key] !== undefined)
        problem('load.schema', `${key} picks a WSDL port: it has no meaning beside openapi.`, key);
    }
    return { kind: 'openapi', location: path.resolve(path.dirname(file), spec.openapi), at: at('openapi') };
  }
  const wsdl = interpolateEnv(spec.wsdl!, env);
  if (wsdl.missing.length > 0) {
    problem('load.env', `wsdl needs environment variable ${wsdl.missing.join(', ')} (or a default).`, 'wsdl');
    return undefined;
  }
  const remote = /^https?:\/\//i.test(wsdl.value);
  return {
    kind: 'wsdl',
    location: remote ? wsdl.value : path.resolve(path.dirname(file), wsdl.value),
    at: at('wsdl'),
    ...(spec.service !== undefined ? { service: spec.service } : {}),
    ...(spec.port !== undefined ? { port: spec.port } : {}),
  };
}

type OAuthProblem = (
  code: 'load.env' | 'load.literal_secret' | 'load.schema' | 'load.tenancy',
  message: string,
  ...p: string[]
) => void;

/** A backend's `oauth` block: URLs and ids may come from the environment; the secret or key must. */
function readOAuth(
  raw: RawOAuth,
  perTenant: boolean,
  env: Readonly<Record<string, string | undefined>>,
  credentialsMissing: string[],
  at: SourcePosition,
  problem: OAuthProblem,
): BackendOAuth | undefined {
  const given = raw.clientId !== undefined || raw.clientSecret !== undefined || raw.privateKey !== undefined;
  if (perTenant && given) {
    problem(
      'load.tenancy',
      "A per-tenant backend takes each tenant's OAuth client from the callers file: drop clientId and its secret here.",
    );
    return undefined;
  }
  const client = perTenant ? undefined : readOAuthClient(raw, env, credentialsMissing, problem);
  if (!perTenant && !client) return undefined;
  const plain = (key: 'tokenUrl' | 'resource'): string | undefined =>
    raw[key] === undefined ? undefined : plainValue(raw[key], env, credentialsMissing);
  return {
    grant: raw.grant,
    tokenUrl: plain('tokenUrl'),
    client,
    scopes: raw.scopes ?? [],
    resource: plain('resource'),
    at,
  };
}

/**
 * An OAuth client: its id, and exactly one of a secret (client_secret_basic) or a
 * private key (private_key_jwt), both by reference to the environment. Also read for
 * a tenant's own client in the callers file.
 */
export function readOAuthClient(
  raw: { clientId?: string; clientSecret?: string; privateKey?: string },
  env: Readonly<Record<string, string | undefined>>,
  credentialsMissing: string[],
  problem: OAuthProblem,
): OAuthClient | undefined {
  if (raw.clientId === undefined || (raw.clientSecret === undefined) === (raw.privateKey === undefined)) {
    problem(
      'load.schema',
      'oauth needs a clientId and exactly one of clientSecret (client_secret_basic) or privateKey (private_key_jwt).',
    );
    return undefined;
  }
  const key = raw.clientSecret !== undefined ? 'clientSecret' : 'privateKey';
  const secret = resolveCredential(raw[key] ?? '', env);
  if (!secret.ok) {
    problem(
      'load.literal_secret',
      `oauth.${key} must come from an environment variable, e.g. ${key}: "\${CRM_${key === 'clientSecret' ? 'CLIENT_SECRET' : 'PRIVATE_KEY'}}".`,
      key,
    );
  }
  credentialsMissing.push(...secret.missing);
  return {
    clientId: plainValue(raw.clientId, env, credentialsMissing),
    auth:
      key === 'clientSecret'
        ? { method: 'client_secret_basic', secret: secret.value }
        : { method: 'private_key_jwt', privateKeyPem: secret.value },
  };
}

function plainValue(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
  credentialsMissing: string[],
): string {
  const value = interpolateEnv(text, env);
  credentialsMissing.push(...value.missing);
  return value.value;
}

/**
 * A credential written in a file: it must be a reference to the environment (RELIABILITY D7),
 * with no default (a default would be a literal secret) and no secret-shaped literal text.
 */
export function resolveCredential(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
): { value: string; missing: string[]; ok: boolean } {
  const resolved = interpolateEnv(text, env);
  const literal = literalPart(text);
  const hasDefault = /\$\{[^}]*:-/.test(text);
  const ok = resolved.referencesEnv && !hasDefault && !looksLikeSecret(literal) && literal.length <= 20;
  return { value: resolved.value, missing: resolved.missing, ok };
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
