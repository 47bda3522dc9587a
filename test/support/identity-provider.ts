import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createLocalJWKSet, exportJWK, generateKeyPair, type JWK, jwtVerify } from 'jose';
import Provider, { errors as oidcErrors } from 'oidc-provider';

/**
 * A real OAuth 2.0 / OpenID authorization server on 127.0.0.1: `oidc-provider`
 * (an OpenID-certified implementation), not a hand-written token endpoint.
 *
 * - Agents get access tokens for the gateway with the client-credentials grant and
 *   `resource` = the gateway's identifier (RFC 8707): JWT access tokens (RFC 9068)
 *   whose `sub` is the client (one "user" per client here) and whose `org` claim
 *   names the tenant (a client metadata field).
 * - The gateway gets tokens for backends the same way (its own client), and exchanges
 *   a caller's token for a backend-audience token (RFC 8693): oidc-provider has no
 *   built-in token exchange, so the grant is registered here through its extension
 *   point, issuing the provider's own token class for the user (`sub` kept, `act` the
 *   exchanging client).
 * - Every token-endpoint call is counted by grant type; keys can be rotated (restart on
 *   the same port with a new signing key first and the old one still published).
 */
export interface IdentityProviderHarness {
  issuer: string;
  tokenUrl: string;
  /** Token-endpoint calls that issued a token, by grant type. */
  issued: Record<string, number>;
  /** Every request the provider received, by path (`/jwks`, `/.well-known/openid-configuration`…). */
  requests: Record<string, number>;
  /** While set, the keys endpoint answers 503: the provider's keys unreachable, discovery still up. */
  keysDown: boolean;
  /** Where the provider publishes its keys (a path, from discovery). */
  keysPath: string;
  /** Client-credentials access token for `resource`. */
  token(clientId: string, resource: string, scope?: string): Promise<string>;
  /** The keys the provider signs with, private parts included (to forge tokens in tests). */
  signingKey(): { privateKey: PrivateKey; kid: string; publicJwk: JWK };
  /** Restarts on the same port, signing with a new key and still publishing the old one. */
  rotateKeys(): Promise<void>;
  close(): Promise<void>;
}

export interface HarnessClient {
  client_id: string;
  /** client_secret_basic; or, with `jwks`, private_key_jwt (the secret is then unused). */
  client_secret: string;
  jwks?: { keys: JWK[] };
  org?: string;
  grant_types?: string[];
  scope?: string;
}

type PrivateKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
/** oidc-provider's default `jwks_uri` path. */
const KEYS_PATH = '/jwks';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

interface Key {
  privateKey: PrivateKey;
  jwk: JWK;
  kid: string;
}

async function newKey(kid: string): Promise<Key> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };
  return { privateKey, jwk, kid };
}

export async function startIdentityProvider(options: {
  clients: HarnessClient[];
  /** Resource servers (audiences) tokens may be issued for, with their scopes. */
  resources: Record<string, { scope: string }>;
  accessTokenTtlSeconds?: number;
}): Promise<IdentityProviderHarness> {
  const issued: Record<string, number> = {};
  const requests: Record<string, number> = {};
  let keys: Key[] = [await newKey('key-1')];
  let handler: http.RequestListener = (_req, res) => res.writeHead(503).end();
  const sockets = new Set<Socket>();
  let keysDown = false;
  // Counted here, at the provider, whatever the gateway believes it asked for.
  const serve: http.RequestListener = (req, res) => {
    const path = new URL(req.url ?? '/', 'http://idp').pathname;
    requests[path] = (requests[path] ?? 0) + 1;
    if (keysDown && path === KEYS_PATH) return void res.writeHead(503).end();
    handler(req, res);
  };
  let server = http.createServer(serve);
  server.on('connection', (s) => sockets.add(s).size && s.on('close', () => sockets.delete(s)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://127.0.0.1:${port}`;

  const build = () => {
    const provider = new Provider(issuer, {
      clients: options.clients.map((c) => ({
        client_id: c.client_id,
        client_secret: c.client_secret,
        grant_types: c.grant_types ?? ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        token_endpoint_auth_method: c.jwks ? 'private_key_jwt' : 'client_secret_basic',
        ...(c.jwks ? { jwks: c.jwks, token_endpoint_auth_signing_alg: 'RS256' } : {}),
        ...(c.scope ? { scope: c.scope } : {}),
        ...(c.org ? { org: c.org } : {}),
      })),
      extraClientMetadata: { properties: ['org'] },
      ttl: { ClientCredentials: () => options.accessTokenTtlSeconds ?? 300 },
      scopes: [...new Set(Object.values(options.resources).flatMap((r) => r.scope.split(' ')))],
      jwks: { keys: keys.map((k) => k.jwk) },
      features: {
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => undefined,
          useGrantedResource: () => false,
          getResourceServerInfo: (_ctx, resource) => {
            const server = options.resources[resource];
            if (!server) throw new oidcErrors.InvalidTarget();
            return {
              scope: server.scope,
              audience: resource,
              accessTokenFormat: 'jwt',
              accessTokenTTL: options.accessTokenTtlSeconds ?? 300,
              jwt: { sign: { alg: 'RS256' } },
            };
          },
        },
      },
      // The result replaces the token's `extra`: keep what the exchange grant put there.
      extraTokenClaims: (_ctx, token) => {
        const { client, extra } = token as { client?: { org?: string }; extra?: Record<string, unknown> };
        return { ...extra, ...(client?.org ? { org: client.org } : {}) };
      },
      formats: {
        customizers: {
          // An exchanged token speaks for the user: `sub` is theirs, `act` the gateway (RFC 8693 §4.1).
          jwt: (_ctx, token, jwt) => {
            const extra = (token as { extra?: { exchanged_sub?: string } }).extra;
            if (extra?.exchanged_sub) {
              jwt.payload.sub = extra.exchanged_sub;
              delete jwt.payload.exchanged_sub;
            }
          },
        },
      },
    });
    provider.registerGrantType(
      TOKEN_EXCHANGE,
      async (ctx) => {
        const { params, client } = ctx.oidc;
        if (params?.subject_token_type !== ACCESS_TOKEN_TYPE) {
          throw new oidcErrors.InvalidRequest('subject_token_type must be an access token');
        }
        const resource = String(params.resource ?? params.audience ?? '');
        const server = options.resources[resource];
        if (!server) throw new oidcErrors.InvalidTarget();
        let subject: string;
        try {
          // The subject token must be one of this provider's own, still valid.
          const jwks = createLocalJWKSet({ keys: keys.map(({ jwk }) => publicPart(jwk)) });
          const { payload } = await jwtVerify(String(params.subject_token), jwks, { issuer });
          subject = String(payload.sub);
        } catch {
          throw new oidcErrors.InvalidGrant('subject_token is not valid');
        }
        const token = new provider.ClientCredentials({
          client: client!,
          scope: typeof params.scope === 'string' ? params.scope : undefined,
          extra: { exchanged_sub: subject, act: { sub: client!.clientId } },
        });
        token.resourceServer = new provider.ResourceServer(resource, {
          scope: server.scope,
          audience: resource,
          accessTokenFormat: 'jwt',
          accessTokenTTL: options.accessTokenTtlSeconds ?? 300,
          jwt: { sign: { alg: 'RS256' } },
        });
        const value = await token.save();
        ctx.body = {
          access_token: value,
          issued_token_type: ACCESS_TOKEN_TYPE,
          token_type: 'Bearer',
          expires_in: token.expiration,
        };
      },
      ['subject_token', 'subject_token_type', 'resource', 'audience', 'scope', 'requested_token_type'],
    );
    provider.on('grant.success', (ctx) => {
      const grant = String(ctx.oidc.params?.grant_type);
      issued[grant] = (issued[grant] ?? 0) + 1;
    });
    return provider;
  };
  handler = build().callback();

  const tokenUrl = `${issuer}/token`;
  const close = async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };

  return {
    issuer,
    tokenUrl,
    issued,
    requests,
    keysPath: KEYS_PATH,
    get keysDown() {
      return keysDown;
    },
    set keysDown(down: boolean) {
      keysDown = down;
    },
    async token(clientId, resource, scope) {
      const client = options.clients.find((c) => c.client_id === clientId)!;
      const post = () =>
        fetch(tokenUrl, {
          method: 'POST',
          headers: {
            authorization: `Basic ${Buffer.from(`${clientId}:${client.client_secret}`).toString('base64')}`,
            'content-type': 'application/x-www-form-urlencoded',
          },
          body: new URLSearchParams({
            grant_type: 'client_credentials',
            resource,
            ...(scope ? { scope } : {}),
          }),
        });
      // After a restart (rotateKeys) a kept-alive connection may be found closed: ask once more.
      const res = await post().catch(post);
      const body = (await res.json()) as { access_token?: string };
      if (!res.ok || !body.access_token) throw new Error(`token: ${res.status} ${JSON.stringify(body)}`);
      return body.access_token;
    },
    signingKey() {
      const [key] = keys;
      return { privateKey: key!.privateKey, kid: key!.kid, publicJwk: publicPart(key!.jwk) };
    },
    async rotateKeys() {
      keys = [await newKey(`key-${keys.length + 1}`), ...keys];
      await close();
      server = http.createServer(serve);
      server.on('connection', (s) => sockets.add(s).size && s.on('close', () => sockets.delete(s)));
      handler = build().callback();
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    },
    close,
  };
}

function publicPart(jwk: JWK): JWK {
  const { kty, n, e, kid, alg, use } = jwk;
  return { kty, n, e, kid, alg, use } as JWK;
}
