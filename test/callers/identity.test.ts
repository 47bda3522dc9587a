/**
 * Callers authenticated by a real identity provider (RELIABILITY D1): oidc-provider on
 * loopback issues JWT access tokens; the gateway discovers its keys and maps claims to tenants.
 */
import { base64url, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolIdFor } from '../../src/compile/tool-signature.ts';
import { type LabBackend, labUser, startLabBackend } from '../engine/lab-backend.ts';
import { type IdentityProviderHarness, startIdentityProvider } from '../support/identity-provider.ts';
import { reportFigures } from '../support/report-figures.ts';
import { invoke, startTestGateway } from '../support/start-test-gateway.ts';

const SCULPTS = 'test/hardening/fixtures/tenancy';
const CALLERS = 'test/callers/fixtures/identity-callers.yaml';
const AUDIENCE = 'https://sculptor.test/';
const ACME_STATIC = 'acme-token-0123456789abcdefghij';

let lab: LabBackend;
let idp: IdentityProviderHarness;
let gateway: Awaited<ReturnType<typeof startTestGateway>>;

beforeAll(async () => {
  lab = await startLabBackend();
  idp = await startIdentityProvider({
    clients: [
      {
        client_id: 'alice',
        client_secret: 'alice-secret-0123456789',
        org: 'acme',
        scope: 'tools.read stats.read',
      },
      { client_id: 'carol', client_secret: 'carol-secret-0123456789', org: 'acme', scope: 'stats.read' },
      {
        client_id: 'gus',
        client_secret: 'gus-secret-0123456789',
        org: 'globex',
        scope: 'tools.read stats.read',
      },
      { client_id: 'ivan', client_secret: 'ivan-secret-0123456789', org: 'initech', scope: 'tools.read' },
    ],
    resources: {
      [AUDIENCE]: { scope: 'tools.read stats.read' },
      'https://other.test/': { scope: 'tools.read' },
    },
  });
  gateway = await startTestGateway(
    SCULPTS,
    {
      LAB_URL: lab.url,
      IDP_ISSUER: idp.issuer,
      ACME_LAB_KEY: 'acme-lab-key',
      GLOBEX_LAB_KEY: 'globex-lab-key',
      ACME_TOKEN: ACME_STATIC,
    },
    { callers: CALLERS },
  );
});
afterAll(async () => {
  await gateway?.close();
  await idp?.close();
  await lab?.close();
});

const call = async (tool: string, token: string | undefined) => {
  const res = await invoke(
    gateway.url,
    `/tools/${toolIdFor(tool)}:invoke`,
    { name: tool, input_parameters: [] },
    token === undefined ? {} : { authorization: `Bearer ${token}` },
  );
  const outputs = res.body.output_parameters as Array<{ name: string; value: unknown }> | undefined;
  return { ...res, outputs: outputs && Object.fromEntries(outputs.map((o) => [o.name, o.value])) };
};

/** A token signed with the provider's own current key, with claims chosen by the test. */
async function forge(claims: Record<string, unknown>, header: Record<string, unknown> = {}): Promise<string> {
  const { privateKey, kid } = idp.signingKey();
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ org: 'acme', scope: 'tools.read', ...claims })
    .setProtectedHeader({ alg: 'RS256', kid, typ: 'at+jwt', ...header })
    .setIssuer((claims.iss as string) ?? idp.issuer)
    .setAudience((claims.aud as string) ?? AUDIENCE)
    .setSubject('alice')
    .setIssuedAt(now - 60)
    .setExpirationTime((claims.exp as number) ?? now + 300)
    .sign(privateKey);
}

const invalid = async (token: string) => {
  const res = await call('tenant_whoami', token);
  expect(res.status).toBe(401);
  expect(res.body.code).toBe('auth.invalid_token');
  expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="sculptor", error="invalid_token"/);
  return res;
};

describe('inbound: access tokens of the identity provider', () => {
  it('a valid token maps its org claim to the tenant: tenant credentials reach the backend', async () => {
    const token = await idp.token('alice', AUDIENCE, 'tools.read stats.read');
    const res = await call('tenant_whoami', token);
    expect(res.status).toBe(200);
    expect(res.outputs).toEqual({ user: labUser('acme-lab-key') });
    const globex = await call('tenant_whoami', await idp.token('gus', AUDIENCE, 'tools.read'));
    expect(globex.outputs).toEqual({ user: labUser('globex-lab-key') });
    // The caller's token never reaches a backend.
    expect(lab.requests.flatMap((r) => r.headerValues).some((v) => v.includes(token))).toBe(false);
  });

  it("the tenant's allowlist still answers like a missing tool (D5)", async () => {
    const res = await call('public_stats', await idp.token('gus', AUDIENCE, 'tools.read stats.read'));
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('tool.not_found');
  });

  it('scopes narrow the tools: 403 insufficient_scope naming the scope, and the listing omits the tool', async () => {
    const token = await idp.token('carol', AUDIENCE, 'stats.read');
    const res = await call('tenant_whoami', token);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('auth.insufficient_scope');
    expect(res.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    expect(res.headers.get('www-authenticate')).toContain('scope="tools.read"');
    expect((await call('public_stats', token)).status).toBe(200);
    const listing = await fetch(`${gateway.url}/tools`, { headers: { authorization: `Bearer ${token}` } });
    const names = ((await listing.json()) as { items: Array<{ name: string }> }).items.map((t) => t.name);
    expect(names).toEqual(['public_stats']);
  });

  it('a token whose org names no tenant: 403 auth.forbidden', async () => {
    const res = await call('tenant_whoami', await idp.token('ivan', AUDIENCE, 'tools.read'));
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('auth.forbidden');
  });

  it('refuses expired, wrong-audience, wrong-issuer, tampered, unsigned and HS/RS-confused tokens', async () => {
    await invalid(await forge({ exp: Math.floor(Date.now() / 1000) - 60 }));
    await invalid(await idp.token('alice', 'https://other.test/', 'tools.read'));
    await invalid(await forge({ aud: 'https://other.test/' }));
    await invalid(await forge({ iss: 'https://evil.test' }));

    // Tampered: globex's claims under acme's signature.
    const [h, , s] = (await forge({})).split('.');
    const payload = base64url.encode(
      JSON.stringify({ iss: idp.issuer, aud: AUDIENCE, sub: 'alice', org: 'globex', exp: 9e9 }),
    );
    await invalid(`${h}.${payload}.${s}`);

    // alg: none.
    const none = base64url.encode(JSON.stringify({ alg: 'none', typ: 'JWT' }));
    const claims = base64url.encode(
      JSON.stringify({ iss: idp.issuer, aud: AUDIENCE, sub: 'alice', org: 'acme', exp: 9e9 }),
    );
    await invalid(`${none}.${claims}.`);

    // HS256 with the provider's public key as the HMAC secret (algorithm confusion).
    const publicKeyText = new TextEncoder().encode(JSON.stringify(idp.signingKey().publicJwk));
    const hs = await new SignJWT({ org: 'acme', scope: 'tools.read' })
      .setProtectedHeader({ alg: 'HS256', kid: idp.signingKey().kid })
      .setIssuer(idp.issuer)
      .setAudience(AUDIENCE)
      .setSubject('alice')
      .setExpirationTime('5m')
      .sign(publicKeyText);
    await invalid(hs);
  });

  it('exp and nbf hold within the configured clock skew (5 s), not beyond it', async () => {
    const now = Math.floor(Date.now() / 1000);
    // Expired 2 s ago, or valid from 2 s from now: within the skew, accepted.
    expect((await call('tenant_whoami', await forge({ exp: now - 2 }))).status).toBe(200);
    expect((await call('tenant_whoami', await forge({ nbf: now + 2 }))).status).toBe(200);
    // Beyond it: refused as invalid tokens.
    await invalid(await forge({ exp: now - 30 }));
    await invalid(await forge({ nbf: now + 30 }));
  });

  it('a key rotated in at the provider is picked up when a token names it', async () => {
    await idp.rotateKeys();
    const token = await idp.token('alice', AUDIENCE, 'tools.read');
    expect(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()).kid).toBe(
      idp.signingKey().kid,
    );
    // The gateway's cached keys lack it; it refetches (after the configured 1 s cooldown at most).
    let status = 0;
    for (let i = 0; i < 30 && status !== 200; i++) {
      status = (await call('tenant_whoami', token)).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(200);
  });

  it('static tokens keep working next to the identity provider; a missing token is a plain challenge', async () => {
    expect((await call('tenant_whoami', ACME_STATIC)).outputs).toEqual({ user: labUser('acme-lab-key') });
    const res = await call('tenant_whoami', undefined);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('auth.unauthenticated');
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="sculptor"');
  });
});

describe('inbound: tokens naming a key the provider never published', () => {
  /** Signed with a key of the test's own, under a `kid` the provider does not publish. */
  async function forgeUnknownKeys(count: number): Promise<string[]> {
    const { privateKey } = await generateKeyPair('RS256');
    const now = Math.floor(Date.now() / 1000);
    return Promise.all(
      Array.from({ length: count }, (_, i) =>
        new SignJWT({ org: 'acme', scope: 'tools.read' })
          .setProtectedHeader({ alg: 'RS256', kid: `forged-${i}-${now}`, typ: 'at+jwt' })
          .setIssuer(idp.issuer)
          .setAudience(AUDIENCE)
          .setSubject('alice')
          .setExpirationTime(now + 300)
          .sign(privateKey),
      ),
    );
  }
  const keyFetches = () => idp.requests[idp.keysPath] ?? 0;
  /** Calls with each token, 30 at a time; the statuses and codes, in order. */
  async function callAll(tokens: string[]): Promise<Array<Awaited<ReturnType<typeof call>>>> {
    const results = [];
    for (let i = 0; i < tokens.length; i += 30) {
      results.push(...(await Promise.all(tokens.slice(i, i + 30).map((t) => call('tenant_whoami', t)))));
    }
    return results;
  }

  it('300 forged tokens: 300 × 401 invalid_token with the challenge; the keys fetched at most once per interval', async () => {
    const tokens = await forgeUnknownKeys(300);
    const before = keyFetches();
    const started = performance.now();
    const results = await callAll(tokens);
    const elapsedMs = performance.now() - started;
    const codes = new Set(results.map((r) => `${r.status} ${String(r.body.code)}`));
    expect([...codes]).toEqual(['401 auth.invalid_token']);
    for (const res of results) {
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="sculptor", error="invalid_token"/);
    }
    // keyRefreshSeconds is 1 in this callers file: one fetch per started second at most.
    const fetches = keyFetches() - before;
    expect(fetches).toBeLessThanOrEqual(Math.ceil(elapsedMs / 1000) + 1);
    reportFigures(`identity: 300 unknown kids in ${Math.round(elapsedMs)} ms, ${fetches} key fetches`);
  });

  it('with a 60 s refresh interval, 300 unknown key ids cost the provider the one fetch that loaded the keys', async () => {
    const { createIdentityProvider } = await import('../../src/callers/identity-provider.ts');
    const provider = createIdentityProvider({
      issuer: idp.issuer,
      audience: AUDIENCE,
      algorithms: ['RS256'],
      clockSkewSeconds: 5,
      keyRefreshSeconds: 60,
      allowHttp: true,
    });
    const before = keyFetches();
    const valid = await idp.token('alice', AUDIENCE, 'tools.read');
    expect((await provider.verify(valid)).claims.org).toBe('acme');
    const verdicts = await Promise.all(
      (await forgeUnknownKeys(300)).map((token) =>
        provider.verify(token).then(
          () => 'accepted',
          (err: { code?: string }) => err.code,
        ),
      ),
    );
    expect(new Set(verdicts)).toEqual(new Set(['auth.invalid_token']));
    expect(keyFetches() - before).toBe(1);
  });

  it("the provider's keys unreachable: an unknown key is 503 provider_unavailable, bounded; known keys still verify", async () => {
    const tokens = await forgeUnknownKeys(50);
    const valid = await idp.token('alice', AUDIENCE, 'tools.read');
    idp.keysDown = true;
    try {
      // Past the refresh interval, so that the first unknown key may ask the provider again.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const before = keyFetches();
      const started = performance.now();
      const results = await callAll(tokens);
      const elapsedMs = performance.now() - started;
      for (const res of results) {
        expect([res.status, res.body.code, res.body.retryable]).toEqual([
          503,
          'auth.provider_unavailable',
          true,
        ]);
      }
      expect(keyFetches() - before).toBeGreaterThanOrEqual(1);
      expect(keyFetches() - before).toBeLessThanOrEqual(Math.ceil(elapsedMs / 1000) + 1);
      // The keys already held still verify the provider's own tokens.
      expect((await call('tenant_whoami', valid)).status).toBe(200);
    } finally {
      idp.keysDown = false;
    }
    // Back up, past the interval: the unknown key is asked about once more, and is refused.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await invalid(tokens[0]!);
  });
});

describe('inbound: the identity provider unreachable', () => {
  it('answers 503 auth.provider_unavailable (retryable), fast', async () => {
    const down = await startTestGateway(
      SCULPTS,
      {
        LAB_URL: lab.url,
        IDP_ISSUER: 'http://127.0.0.1:9',
        ACME_LAB_KEY: 'k',
        GLOBEX_LAB_KEY: 'k',
        ACME_TOKEN: ACME_STATIC,
      },
      { callers: CALLERS },
    );
    try {
      const started = Date.now();
      const res = await invoke(
        down.url,
        `/tools/${toolIdFor('tenant_whoami')}:invoke`,
        { name: 'tenant_whoami', input_parameters: [] },
        { authorization: `Bearer ${await forge({})}` },
      );
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('auth.provider_unavailable');
      expect(res.body.retryable).toBe(true);
      expect(Date.now() - started).toBeLessThan(4000);
    } finally {
      await down.close();
    }
  });
});

describe('protected resource metadata (RFC 9728)', () => {
  it('names the identity provider as the authorization server and the scopes the callers file maps', async () => {
    const { loadCallers } = await import('../../src/callers/load-callers.ts');
    const { protectedResourceMetadata } = await import('../../src/callers/protected-resource.ts');
    const { directory } = await loadCallers(CALLERS, {
      IDP_ISSUER: 'https://login.example.com',
      ACME_LAB_KEY: 'k',
      GLOBEX_LAB_KEY: 'k',
      ACME_TOKEN: ACME_STATIC,
    });
    expect(protectedResourceMetadata(directory, 'https://gateway.example.com/mcp')).toEqual({
      resource: AUDIENCE,
      authorization_servers: ['https://login.example.com'],
      bearer_methods_supported: ['header'],
      scopes_supported: ['tools.read', 'stats.read'],
      resource_name: 'Sculptor',
    });
  });
});
