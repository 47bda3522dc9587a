import type { errors as JoseErrors, JWTPayload, JWTVerifyGetKey } from 'jose';
import { SculptorError } from '../errors/sculptor-error.ts';
import { loadJose, providerKeys, providerUnavailable, readProviderJson } from './provider-keys.ts';

/**
 * Callers authenticated by the company's identity provider (RELIABILITY D1):
 * access tokens are JWTs its issuer signs, found through OpenID discovery and verified
 * against its published keys. Only asymmetric algorithms are accepted, so a token can
 * neither be unsigned (`alg: none`) nor signed with a public key used as an HMAC secret.
 */
export interface IdentityProviderConfig {
  /** The issuer identifier, exactly as the provider writes `iss` (discovery is read below it). */
  issuer: string;
  /** This gateway's resource identifier: tokens must name it in `aud`. */
  audience: string;
  algorithms: readonly string[];
  clockSkewSeconds: number;
  /** How often keys may be refetched when a token names an unknown key (rotation). */
  keyRefreshSeconds: number;
  /** Plain-HTTP discovery and keys, for a provider on loopback in development and tests. */
  allowHttp: boolean;
}

/** What a verified token says about its bearer. */
export interface VerifiedToken {
  claims: JWTPayload;
  /** The token as presented: exchanged on the user's behalf, never forwarded. */
  token: string;
}

/** Asymmetric JWS algorithms a provider may sign access tokens with. */
export const ASYMMETRIC_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const;

export const DEFAULT_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'] as const;

/** Discovery and key fetches are bounded: an identity provider's trouble is a fast 503. */
const FETCH_TIMEOUT_MS = 3000;
/** Keys are kept this long before they are fetched again (and sooner for an unknown key id). */
const KEYS_MAX_AGE_MS = 10 * 60_000;
/** After a failed discovery or key fetch, wait this long before asking again (requests meanwhile fail fast). */
const RETRY_MS = 5000;
/** The discovery document and the key set, each. */
const MAX_DOCUMENT_BYTES = 256 * 1024;

export interface IdentityProvider {
  readonly config: IdentityProviderConfig;
  /** Verifies signature, `iss`, `aud`, `exp`/`nbf` (with the skew) and the algorithm. */
  verify(token: string): Promise<VerifiedToken>;
  /** The provider's token endpoint, from discovery (for token exchange). */
  tokenEndpoint(): Promise<string>;
}

interface Discovery {
  jwks: JWTVerifyGetKey;
  tokenEndpoint: string | undefined;
}

export function createIdentityProvider(config: IdentityProviderConfig): IdentityProvider {
  let discovery: Promise<Discovery> | undefined;
  let failedAt = 0;

  const discover = (): Promise<Discovery> => {
    if (!discovery) {
      if (Date.now() - failedAt < RETRY_MS) return Promise.reject(providerUnavailable());
      discovery = readDiscovery(config).catch((err: unknown) => {
        discovery = undefined;
        failedAt = Date.now();
        throw err;
      });
    }
    return discovery;
  };

  return {
    config,
    async verify(token) {
      const { jwks } = await discover();
      const { jwtVerify, errors } = await loadJose();
      try {
        const { payload } = await jwtVerify(token, jwks, {
          issuer: config.issuer,
          audience: config.audience,
          algorithms: [...config.algorithms],
          clockTolerance: config.clockSkewSeconds,
          requiredClaims: ['exp'],
        });
        return { claims: payload, token };
      } catch (err) {
        throw verificationError(err, errors);
      }
    },
    async tokenEndpoint() {
      const { tokenEndpoint } = await discover();
      if (!tokenEndpoint) {
        throw new SculptorError(
          'auth.token_unavailable',
          'The identity provider publishes no token endpoint; set tokenUrl for the exchange.',
        );
      }
      return tokenEndpoint;
    },
  };
}

async function readDiscovery(config: IdentityProviderConfig): Promise<Discovery> {
  const url = `${config.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
  let document: Record<string, unknown>;
  try {
    const read = await readProviderJson(url, { timeoutMs: FETCH_TIMEOUT_MS, maxBytes: MAX_DOCUMENT_BYTES });
    if (typeof read !== 'object' || read === null) throw new Error('discovery is not a JSON object');
    document = read as Record<string, unknown>;
  } catch (err) {
    throw providerUnavailable(err);
  }
  // OpenID Connect Discovery §4.3: the document must name exactly the configured issuer.
  if (document.issuer !== config.issuer) {
    throw providerUnavailable(new Error('discovery names another issuer'));
  }
  const jwksUri = document.jwks_uri;
  if (typeof jwksUri !== 'string' || !allowedUrl(jwksUri, config.allowHttp)) {
    throw providerUnavailable(new Error('discovery has no usable jwks_uri'));
  }
  const tokenEndpoint =
    typeof document.token_endpoint === 'string' && allowedUrl(document.token_endpoint, config.allowHttp)
      ? document.token_endpoint
      : undefined;
  return {
    jwks: providerKeys({
      url: new URL(jwksUri),
      refreshMs: config.keyRefreshSeconds * 1000,
      maxAgeMs: KEYS_MAX_AGE_MS,
      retryMs: RETRY_MS,
      timeoutMs: FETCH_TIMEOUT_MS,
      maxBytes: MAX_DOCUMENT_BYTES,
    }),
    tokenEndpoint,
  };
}

export function allowedUrl(text: string, allowHttp: boolean): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || (allowHttp && url.protocol === 'http:');
  } catch {
    return false;
  }
}

/**
 * jose's verdicts, mapped to RFC 6750 `invalid_token` with a reason the caller can act on. The
 * provider's own trouble (keys that cannot be fetched) arrives already as
 * `auth.provider_unavailable` from `providerKeys`: whatever else fails is the token's.
 */
function verificationError(err: unknown, joseErrors: typeof JoseErrors): SculptorError {
  if (err instanceof SculptorError) return err;
  const reason =
    err instanceof joseErrors.JWTExpired
      ? 'The token has expired: get a new one from the identity provider.'
      : err instanceof joseErrors.JWTClaimValidationFailed
        ? `The token's ${err.claim} claim is not accepted here (${err.reason}): get a token for this gateway from its identity provider.`
        : err instanceof joseErrors.JOSEAlgNotAllowed
          ? 'The token is signed with an algorithm this gateway does not accept.'
          : err instanceof joseErrors.JWKSNoMatchingKey
            ? 'The token is signed with a key the identity provider does not publish: get a new token from it.'
            : 'The token is not a valid signed access token.';
  return new SculptorError('auth.invalid_token', reason, { cause: err });
}
