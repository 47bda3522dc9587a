import { SculptorError } from '../errors/sculptor-error.ts';
import {
  ANONYMOUS,
  type Caller,
  type CallerDirectory,
  type IdentityMapping,
  tokenHash,
} from './load-callers.ts';

/** RFC 6750 bearer credentials; tokens longer than this are refused unhashed. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const MAX_TOKEN_LENGTH = 8192;
/** A compact JWS: three base64url parts. Static tokens never take this shape by accident of a lookup. */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
const MAX_CONTEXT_CLAIM_LENGTH = 1024;

/**
 * Who is calling (RELIABILITY D1). With a callers file, every request must carry
 * `Authorization: Bearer <token>`: a listed caller's static token, or — with an
 * `identity` block — an access token of the company's identity provider, whose
 * claims name the tenant. Without a callers file, every request is the anonymous
 * caller of the single default tenant.
 *
 * Static tokens are compared by their SHA-256 in a map: what a lookup's timing could
 * reveal is a hash prefix, which says nothing about a token.
 *
 * Only an identity provider's token is verified asynchronously: the anonymous caller and a
 * static token's are known at once (and a refusal is thrown at once), so a face's call does not
 * wait a turn of the event loop for an answer it already has.
 */
export function authenticate(
  directory: CallerDirectory | undefined,
  authorization: string | undefined,
): Caller | Promise<Caller> {
  if (!directory) return ANONYMOUS;
  const token =
    authorization && authorization.length <= MAX_TOKEN_LENGTH ? BEARER.exec(authorization)?.[1] : undefined;
  const known = token === undefined ? undefined : directory.byTokenHash.get(tokenHash(token));
  if (known) return known;
  if (token !== undefined && directory.identity && JWT_SHAPE.test(token)) {
    return identityCaller(directory, directory.identity, token);
  }
  throw new SculptorError(
    'auth.unauthenticated',
    authorization ? 'The bearer token is not valid.' : 'Send Authorization: Bearer <token>.',
  );
}

/** A caller from a verified identity-provider token: its tenant from a claim, its tools narrowed by scopes. */
async function identityCaller(
  directory: CallerDirectory,
  identity: IdentityMapping,
  token: string,
): Promise<Caller> {
  const { claims } = await identity.provider.verify(token);
  const tenantName = claims[identity.tenantClaim];
  const tenant = typeof tenantName === 'string' ? directory.byName.get(tenantName) : undefined;
  if (!tenant) {
    throw new SculptorError(
      'auth.forbidden',
      `The token's ${identity.tenantClaim} claim names no tenant of this gateway: ask its operator to add yours.`,
    );
  }
  const subject = typeof claims.sub === 'string' ? claims.sub : undefined;
  const name = claims[identity.callerClaim];
  if (subject === undefined || typeof name !== 'string') {
    throw new SculptorError(
      'auth.invalid_token',
      `The token has no ${subject === undefined ? 'sub' : identity.callerClaim} claim naming its bearer.`,
    );
  }
  const granted = scopesOf(claims.scope ?? claims.scp);
  const context: Record<string, string | number | boolean> = { ...tenant.context };
  for (const [as, claim] of Object.entries(identity.contextClaims)) {
    const value = claims[claim];
    if (typeof value === 'number' || typeof value === 'boolean') context[as] = value;
    else if (typeof value === 'string' && value.length <= MAX_CONTEXT_CLAIM_LENGTH) context[as] = value;
  }
  const scopes = identity.scopes;
  return {
    name,
    tenant,
    context: Object.freeze(context),
    missingScopes: (toolName) => {
      if (!scopes) return [];
      const needed: string[] = [];
      for (const [scope, grants] of scopes) {
        if (!grants(toolName)) continue;
        if (granted.has(scope)) return [];
        needed.push(scope);
      }
      // A tool no scope grants cannot be reached with any token: name nothing to ask for.
      return needed.length > 0 ? needed : ['(none grants this tool)'];
    },
    identity: {
      issuer: identity.provider.config.issuer,
      subject,
      token,
      tokenEndpoint: () => identity.provider.tokenEndpoint(),
    },
  };
}

/** `scope` is space-separated (RFC 9068); some providers send `scp` as an array. */
function scopesOf(value: unknown): ReadonlySet<string> {
  if (typeof value === 'string') return new Set(value.split(' ').filter(Boolean));
  if (Array.isArray(value)) return new Set(value.filter((v): v is string => typeof v === 'string'));
  return new Set();
}

/**
 * The `WWW-Authenticate` value for an authentication or authorization refusal
 * (RFC 6750 §3), or undefined for every other error. `resourceMetadata` is the
 * RFC 9728 metadata URL, where the gateway serves one.
 */
export function bearerChallenge(error: SculptorError, resourceMetadata?: string): string | undefined {
  const params = ['realm="sculptor"'];
  if (resourceMetadata) params.push(`resource_metadata="${resourceMetadata}"`);
  switch (error.code) {
    case 'auth.unauthenticated':
      break;
    case 'auth.invalid_token':
      params.push('error="invalid_token"', `error_description="${quoted(error.message)}"`);
      break;
    case 'auth.forbidden':
    case 'auth.insufficient_scope':
      params.push('error="insufficient_scope"', `error_description="${quoted(error.message)}"`);
      if (error.scopes?.length) params.push(`scope="${quoted(error.scopes.join(' '))}"`);
      break;
    default:
      return undefined;
  }
  return `Bearer ${params.join(', ')}`;
}

/** RFC 6750 limits error_description and scope to printable ASCII without `"` or `\`. */
function quoted(text: string): string {
  return text.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, '');
}
