import type { CompiledBackend } from '../compile/compile-backends.ts';
import { SculptorError } from '../errors/sculptor-error.ts';
import type { BackendRequest } from '../http/backend-client.ts';
import type { BackendAuth } from '../sculpt/load-backends.ts';

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
  credentials: ReadonlyMap<string, { auth: BackendAuth[]; credentialId: string }>;
  /** A per-user credential the request carried for a pass-through, by lower-cased header name (D6). */
  presented(header: string): string | undefined;
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
  if (backend.tenancy === 'per-tenant') {
    const own = caller.credentials.get(backend.name);
    if (!own) {
      throw new SculptorError(
        'upstream.credentials_missing',
        `The gateway has no credentials of this tenant for backend '${backend.name}'.`,
      );
    }
    auth = own.auth;
    id = own.credentialId;
  } else if (backend.credentialsMissing.length > 0) {
    throw new SculptorError(
      'upstream.credentials_missing',
      `The gateway has no credentials configured for backend '${backend.name}'.`,
    );
  }
  if (backend.passThrough.length === 0) return { auth, credentialId: `${caller.tenant}\u0000${id}` };

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
  for (const a of auth) {
    if (a.in === 'header') headers[a.name] = a.value;
    else if (a.in === 'query') url.searchParams.set(a.name, a.value);
    else cookies.push(`${a.name}=${encodeURIComponent(a.value)}`);
  }
  if (cookies.length > 0) headers.cookie = [headers.cookie, ...cookies].filter(Boolean).join('; ');
  return { ...request, url: url.toString(), headers };
}
