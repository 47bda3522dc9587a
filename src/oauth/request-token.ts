import { createPrivateKey } from 'node:crypto';
import type * as OAuth from 'oauth4webapi';
import { SculptorError } from '../errors/sculptor-error.ts';
import type { ClientAuthentication } from '../sculpt/load-backends.ts';

/**
 * One kind of access token the gateway asks for: its own (client credentials,
 * RFC 6749 §4.4), or a user's, exchanged for the backend's audience (RFC 8693).
 */
export interface TokenRequest {
  grant: 'client_credentials' | 'token_exchange';
  tokenUrl: string;
  clientId: string;
  auth: ClientAuthentication;
  scopes: readonly string[];
  /** The backend's identifier (RFC 8707 `resource`), where the provider wants one. */
  resource: string | undefined;
  /** Plain-HTTP token endpoint (a provider on loopback: development and tests). */
  allowHttp: boolean;
  /** For the backend named in errors. */
  backend: string;
  /** token_exchange: the user's validated access token, and who it names (for the cache key). */
  subject?: { token: string; key: string };
}

export interface IssuedToken {
  accessToken: string;
  /** Epoch ms; tokens without `expires_in` are kept for DEFAULT_LIFETIME_MS. */
  expiresAt: number;
}

const DEFAULT_LIFETIME_MS = 5 * 60_000;
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
/** A token endpoint answers within this, or the call fails as unavailable (bounded like a backend call). */
const TOKEN_TIMEOUT_MS = 5000;

/** Asks the token endpoint for a token (oauth4webapi: request building and response validation). */
export async function requestToken(request: TokenRequest, signal?: AbortSignal): Promise<IssuedToken> {
  // Loaded on first use: a gateway without OAuth backends never carries it in memory.
  const oauth = await import('oauth4webapi');
  const as: OAuth.AuthorizationServer = {
    issuer: new URL(request.tokenUrl).origin,
    token_endpoint: request.tokenUrl,
  };
  const client: OAuth.Client = { client_id: request.clientId };
  const options = {
    signal: signal
      ? AbortSignal.any([signal, AbortSignal.timeout(TOKEN_TIMEOUT_MS)])
      : AbortSignal.timeout(TOKEN_TIMEOUT_MS),
    ...(request.allowHttp ? { [oauth.allowInsecureRequests]: true } : {}),
  };
  const params: Record<string, string> = {};
  if (request.scopes.length > 0) params.scope = request.scopes.join(' ');
  if (request.resource) params.resource = request.resource;
  const started = Date.now();
  try {
    let response: OAuth.TokenEndpointResponse;
    if (request.grant === 'client_credentials') {
      const sent = await oauth.clientCredentialsGrantRequest(
        as,
        client,
        clientAuth(oauth, request.auth),
        params,
        options,
      );
      response = await oauth.processClientCredentialsResponse(as, client, sent);
    } else {
      if (!request.subject) throw new Error('token exchange without a subject token');
      params.subject_token = request.subject.token;
      params.subject_token_type = ACCESS_TOKEN_TYPE;
      params.requested_token_type = ACCESS_TOKEN_TYPE;
      const sent = await oauth.genericTokenEndpointRequest(
        as,
        client,
        clientAuth(oauth, request.auth),
        TOKEN_EXCHANGE,
        params,
        options,
      );
      response = await oauth.processGenericTokenEndpointResponse(as, client, sent);
    }
    if (response.token_type.toLowerCase() !== 'bearer') {
      throw new SculptorError(
        'auth.token_refused',
        `The token endpoint of backend '${request.backend}' issued a ${response.token_type} token; the gateway sends Bearer tokens only.`,
      );
    }
    const lifetimeMs =
      typeof response.expires_in === 'number' ? response.expires_in * 1000 : DEFAULT_LIFETIME_MS;
    return { accessToken: response.access_token, expiresAt: started + lifetimeMs };
  } catch (err) {
    throw tokenError(oauth, request, err);
  }
}

function clientAuth(oauth: typeof OAuth, auth: ClientAuthentication): OAuth.ClientAuth {
  if (auth.method === 'client_secret_basic') return oauth.ClientSecretBasic(auth.secret);
  const key = createPrivateKey(auth.privateKeyPem);
  // oauth4webapi signs with WebCrypto: hand it the key in that form.
  return oauth.PrivateKeyJwt(key.toCryptoKey(...privateKeyJwtAlgorithm(key), false, ['sign']));
}

function privateKeyJwtAlgorithm(
  key: ReturnType<typeof createPrivateKey>,
): [{ name: string; hash?: string; namedCurve?: string }] {
  if (key.asymmetricKeyType === 'ec') return [{ name: 'ECDSA', namedCurve: 'P-256' }];
  if (key.asymmetricKeyType === 'ed25519') return [{ name: 'Ed25519' }];
  return [{ name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }];
}

/**
 * A token endpoint's answer, as the caller sees it: its trouble (down, slow, 5xx) may pass
 * (503, retryable); a refusal of the gateway's own client is configuration (502); a refused
 * exchange is about this user (403). What the endpoint said stays in `cause`, for the logs.
 */
function tokenError(oauth: typeof OAuth, request: TokenRequest, err: unknown): SculptorError {
  if (err instanceof SculptorError) return err;
  const who = `backend '${request.backend}'`;
  // A 401 with a challenge (invalid_client, typically) is a refusal like an OAuth error body.
  const refused =
    (err instanceof oauth.ResponseBodyError || err instanceof oauth.WWWAuthenticateChallengeError) &&
    err.status < 500;
  if (refused) {
    const code =
      err instanceof oauth.ResponseBodyError
        ? err.error
        : (err.cause[0]?.parameters.error ?? `HTTP ${err.status}`);
    if (
      request.grant === 'token_exchange' &&
      /^(invalid_grant|access_denied|invalid_target|invalid_scope)$/.test(code)
    ) {
      return new SculptorError(
        'auth.exchange_refused',
        `The identity provider would not let the gateway act for you at ${who} (${code}); ask your administrator for access.`,
        { cause: err },
      );
    }
    return new SculptorError(
      'auth.token_refused',
      `The gateway's OAuth client for ${who} was refused (${code}); the operator must check its client id, secret and scopes.`,
      { cause: err },
    );
  }
  return new SculptorError(
    'auth.token_unavailable',
    `The gateway could not get an access token for ${who} from its token endpoint; try again shortly.`,
    { cause: err },
  );
}
