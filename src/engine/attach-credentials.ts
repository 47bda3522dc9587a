import type { CompiledBackend } from '../compile/compile-backends.ts';
import { SculptorError } from '../errors/sculptor-error.ts';
import type { BackendRequest } from '../http/backend-client.ts';
import type { TokenRequest } from '../oauth/request-token.ts';
import type { BackendAuth, OAuthClient } from '../sculpt/load-backends.ts';
import { withUsernameToken } from '../soap/ws-security.ts';

/**
 * Who an invocation is for, as the engine needs it. The face builds it from the
 * authenticated caller and the request; the engine knows nothing of HTTP.
 */
export interface InvocationCaller {
  /** The tenant the caller acts for: caller-scoped cache entries are kept per tenant. */
  tenant: string;
  /** Bound as `$caller` in params, body and when expressions (RELIABILITY D2). */
  context: Readonly<Record<string, unknown>>;
  /** This tenant's credentials for `per-tenant` backends, by backend name (D1). */
  credentials: ReadonlyMap<string, { auth: BackendAuth[]; credentialId: string; oauthClient?: OAuthClient }>;
  /** A per-user credential the request carried for a pass-through, by lower-cased header name (D6). */
  presented(header: string): string | undefined;
  /**
   * The user behind an identity-provider token, for on-behalf-of token exchange: the
   * token is exchanged at the provider, never sent to a backend.
   */
  identity?: CallerIdentity;
}

/** The user behind a validated identity-provider token. */
export interface CallerIdentity {
  issuer: string;
  subject: string;
  token: string;
  /** The provider's token endpoint (discovery), where a backend's exchange names none. */
  tokenEndpoint(): Promise<string>;
}

/** The caller of a gateway without a callers file, of the CLI and of sculpt tests. */
export const DEFAULT_CALLER: InvocationCaller = {
  tenant: 'default',
  context: {},
  credentials: new Map(),
  presented: () => undefined,
};

/** Per-user credentials are bounded like any value bound into a header (RELIABILITY I2b). */
export const MAX_PASSTHROUGH_LENGTH = 1024;

export interface StepCredentials {
  auth: BackendAuth[];
  /** Identifies tenant and credentials for caller-scoped cache keys; HMAC'd there, never stored. */
  credentialId: string;
  /** The access token to fetch and send as `Authorization: Bearer` (an `oauth` backend). */
  token?: () => Promise<TokenRequest>;
}

/**
 * The credentials one backend call carries, chosen server-side (RELIABILITY D1):
 * the backend's own (shared or single tenancy), the caller's tenant's
 * (per-tenant), plus the per-user values an explicit pass-through names. Never
 * from the LLM's inputs, never the caller's own Authorization.
 */
export function credentialsFor(backend: CompiledBackend, caller: InvocationCaller): StepCredentials {
  let auth = backend.auth;
  let id = backend.credentialId;
  let oauth = backend.oauth;
  if (backend.tenancy === 'per-tenant') {
    const own = caller.credentials.get(backend.name);
    if (!own || (oauth && !own.oauthClient)) {
      throw new SculptorError(
        'upstream.credentials_missing',
        `The gateway has no credentials of this tenant for backend '${backend.name}'.`,
        {
          hint: `give the tenant '${caller.tenant}' credentials for backend '${backend.name}' in the callers file (SCULPTOR_CALLERS)`,
        },
      );
    }
    auth = own.auth;
    id = own.credentialId;
    // The tenant's own OAuth client fetches its tokens.
    if (oauth && own.oauthClient) oauth = { ...oauth, client: own.oauthClient };
  } else if (backend.credentialsMissing.length > 0) {
    throw new SculptorError(
      'upstream.credentials_missing',
      `The gateway has no credentials configured for backend '${backend.name}'.`,
      { hint: missingCredentialsHint(backend) },
    );
  }
  const token = oauth ? tokenFor(backend, oauth, caller) : undefined;
  // An exchanged token is the user's: caller-scoped cache entries are kept per user.
  if (token?.user) id = `${id}\u0000${token.user}`;
  if (backend.passThrough.length === 0) {
    // Every step call takes this path: no object spread into the result.
    const credentials: StepCredentials = { auth, credentialId: `${caller.tenant}\u0000${id}` };
    if (token) credentials.token = token.request;
    return credentials;
  }

  const values: string[] = [];
  const passed = backend.passThrough.map((p) => {
    const value = caller.presented(p.header);
    if (value === undefined || value === '') {
      throw new SculptorError(
        'auth.passthrough_missing',
        `Backend '${backend.name}' needs the user's own credential: send it in the ${p.header} header.`,
      );
    }
    if (value.length > MAX_PASSTHROUGH_LENGTH || /[\u0000-\u001f\u007f]/.test(value)) {
      throw new SculptorError(
        'request.malformed',
        `The ${p.header} header must be at most ${MAX_PASSTHROUGH_LENGTH} printable characters.`,
      );
    }
    values.push(value);
    return { in: p.in, name: p.name, value };
  });
  return {
    auth: [...auth, ...passed],
    credentialId: JSON.stringify([caller.tenant, id, ...values]),
    ...(token ? { token: token.request } : {}),
  };
}

/** What a designer or operator does about a backend's unset credential variables. */
export function missingCredentialsHint(
  backend: Pick<CompiledBackend, 'name' | 'credentialsMissing'>,
): string {
  const vars = backend.credentialsMissing;
  return `set ${vars.join(', ')} in the gateway's environment: backend '${backend.name}' reads ${vars.length === 1 ? 'it' : 'them'} for its credentials (\`sculptor test\` sends placeholders instead)`;
}

/**
 * Every unset credential variable of these tools' backends, once per backend and variable (warned
 * about at start): two folders that each declare a backend `stripe` reading different variables
 * are two backends, and each variable is named.
 */
export function unsetCredentialVariables(
  tools: ReadonlyArray<{ steps: ReadonlyArray<{ backend: CompiledBackend }> }>,
): Array<{ backend: CompiledBackend; variable: string }> {
  const found = new Map<string, { backend: CompiledBackend; variable: string }>();
  for (const tool of tools) {
    for (const { backend } of tool.steps) {
      for (const variable of backend.credentialsMissing) {
        found.set(`${backend.file}\0${backend.name}\0${variable}`, { backend, variable });
      }
    }
  }
  return [...found.values()].sort(
    (a, b) =>
      a.backend.name.localeCompare(b.backend.name) ||
      a.backend.file.localeCompare(b.backend.file) ||
      a.variable.localeCompare(b.variable),
  );
}

/**
 * What to ask the token endpoint for: the gateway's own token (client credentials), or
 * the calling user's token exchanged for this backend (RFC 8693) — which needs a caller
 * that came with an identity-provider token; a static token names no user.
 */
function tokenFor(
  backend: CompiledBackend,
  oauth: NonNullable<CompiledBackend['oauth']>,
  caller: InvocationCaller,
): { request: () => Promise<TokenRequest>; user?: string } {
  const client = oauth.client;
  if (!client) {
    throw new SculptorError(
      'upstream.credentials_missing',
      `The gateway has no OAuth client of this tenant for backend '${backend.name}'.`,
    );
  }
  const base = {
    grant: oauth.grant,
    clientId: client.clientId,
    auth: client.auth,
    scopes: oauth.scopes,
    resource: oauth.resource,
    allowHttp: backend.allowPrivate,
    backend: backend.name,
  };
  if (oauth.grant === 'client_credentials') {
    const request: TokenRequest = { ...base, tokenUrl: oauth.tokenUrl ?? '' };
    return { request: () => Promise.resolve(request) };
  }
  const identity = caller.identity;
  if (!identity) {
    throw new SculptorError(
      'auth.identity_required',
      `Backend '${backend.name}' acts for the signed-in user: call with an access token from the identity provider, not a static token.`,
    );
  }
  const user = JSON.stringify([identity.issuer, identity.subject]);
  return {
    user,
    request: async () => ({
      ...base,
      tokenUrl: oauth.tokenUrl ?? (await identity.tokenEndpoint()),
      subject: { token: identity.token, key: user },
    }),
  };
}

/**
 * Credentials are attached last, to a request the sculpt has fully built. The
 * client sends to the built URL's origin only and follows no redirects, so they
 * reach the configured backend origin and nothing else (RELIABILITY D6).
 */
export function withCredentials(request: BackendRequest, auth: readonly BackendAuth[]): BackendRequest {
  if (auth.length === 0) return request;
  const headers = { ...request.headers };
  const url = new URL(request.url);
  const cookies: string[] = [];
  let body = request.body;
  for (const a of auth) {
    if (a.in === 'header') headers[a.name] = a.value;
    else if (a.in === 'query') url.searchParams.set(a.name, a.value);
    else if (a.in === 'cookie') cookies.push(`${a.name}=${encodeURIComponent(a.value)}`);
    // A WS-Security token lives in the SOAP envelope's header; a digest is made afresh for each send.
    else body = withUsernameToken(body, { username: a.name, password: a.value, digest: a.digest === true });
  }
  if (cookies.length > 0) headers.cookie = [headers.cookie, ...cookies].filter(Boolean).join('; ');
  return { ...request, url: url.toString(), headers, ...(body !== undefined ? { body } : {}) };
}
