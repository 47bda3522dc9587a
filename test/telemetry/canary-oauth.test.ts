import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolIdFor } from '../../src/compile/tool-signature.ts';
import { REDIS_URL } from '../cache-integration/redis-harness.ts';
import { type SaasBackend, startSaasBackend } from '../oauth/saas-backend.ts';
import { type GatewayProcess, startGatewayProcess } from '../server/gateway-process.ts';
import { type IdentityProviderHarness, startIdentityProvider } from '../support/identity-provider.ts';
import { type OtlpReceiver, startOtlpReceiver } from './support/otlp-receiver.ts';

/**
 * RELIABILITY I3–I5 for OAuth: the gateway's client secret, the callers'
 * identity-provider tokens (JWTs) and the tokens it fetches or exchanges for backends
 * appear in no span, no log line (LOG_LEVEL=trace), no error body, and nowhere in Redis
 * in clear — keys and values scanned — while every path that handles them runs.
 */
const GATEWAY_AUDIENCE = 'https://sculptor.test/';
const CRM = 'https://crm.test/';
const CLIENT_SECRET = `canary-client-secret-${Date.now()}`;

let idp: IdentityProviderHarness;
let crm: SaasBackend;
let receiver: OtlpReceiver;
let gateway: GatewayProcess;
const callerTokens: string[] = [];

function invoke(tool: string, token: string) {
  return fetch(`${gateway.url}/tools/${toolIdFor(tool)}:invoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ name: tool, input_parameters: [] }),
  });
}

beforeAll(async () => {
  idp = await startIdentityProvider({
    clients: [
      { client_id: 'alice', client_secret: 'alice-secret-0123456789', org: 'acme' },
      {
        client_id: 'sculptor-gateway',
        client_secret: CLIENT_SECRET,
        grant_types: ['client_credentials', 'urn:ietf:params:oauth:grant-type:token-exchange'],
        scope: 'crm.read',
      },
    ],
    resources: { [GATEWAY_AUDIENCE]: { scope: 'tools' }, [CRM]: { scope: 'crm.read' } },
  });
  crm = await startSaasBackend(idp.issuer, CRM);
  receiver = await startOtlpReceiver();
  gateway = await startGatewayProcess({
    sculpts: 'test/oauth/fixtures/sculpts',
    env: {
      SCULPTOR_CALLERS: 'test/oauth/fixtures/callers.yaml',
      SCULPTOR_ALLOW_PRIVATE_EGRESS: 'true',
      CRM_URL: crm.url,
      IDP_ISSUER: idp.issuer,
      IDP_TOKEN_URL: idp.tokenUrl,
      GATEWAY_CLIENT_SECRET: CLIENT_SECRET,
      WRONG_CLIENT_SECRET: 'wrong-client-secret-0123456789',
      ACME_TOKEN: 'acme-robot-token-0123456789abcdef',
      ACME_CRM_SECRET: 'acme-crm-secret-0123456789',
      GLOBEX_CRM_KEY: 'unused-in-this-test-0123456789',
      REDIS_URL,
      SCULPTOR_SECRET: `canary-oauth-${Date.now()}-0123456789`,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      LOG_LEVEL: 'trace',
    },
  });
});

afterAll(async () => {
  gateway?.kill();
  await Promise.all([receiver?.close(), crm?.close(), idp?.close()]);
});

describe('no OAuth secret or token in telemetry, error bodies or Redis', () => {
  const bodies: string[] = [];
  beforeAll(async () => {
    const alice = await idp.token('alice', GATEWAY_AUDIENCE, 'tools');
    callerTokens.push(alice);
    for (const tool of ['service_whoami', 'my_crm_identity', 'my_crm_identity', 'wrong_client_secret']) {
      const res = await invoke(tool, alice);
      bodies.push(await res.text());
    }
    // A tampered caller token, refused: its text must not be echoed either.
    const tampered = `${alice.slice(0, -4)}AAAA`;
    callerTokens.push(tampered);
    bodies.push(await (await invoke('service_whoami', tampered)).text());
    await receiver.waitFor((spans) => spans.filter((s) => s.name.startsWith('execute_tool ')).length >= 3);
    await new Promise((r) => setTimeout(r, 400));
  });

  const secrets = () => {
    const backendTokens = crm.requests.map((r) => r.token).filter((t): t is string => t !== undefined);
    return { CLIENT_SECRET, callerTokens, backendTokens };
  };

  it('handled every secret (so the scans below can fail)', () => {
    expect(bodies.slice(0, 3).every((b) => b.includes('output_parameters'))).toBe(true);
    // The gateway's own token and an exchanged one reached the backend.
    expect(new Set(secrets().backendTokens).size).toBeGreaterThanOrEqual(2);
    expect(bodies[3]).toContain('auth.token_refused');
    expect(bodies[4]).toContain('auth.invalid_token');
  });

  it('exports none in spans, writes none in logs or error bodies', () => {
    const exported = receiver.bodies.join('\n');
    const logs = [...gateway.stdout, ...gateway.stderr].join('\n');
    const answered = bodies.join('\n');
    const { CLIENT_SECRET: secret, callerTokens: callers, backendTokens } = secrets();
    for (const [what, value] of [
      ['client secret', secret],
      ...callers.map((t) => ['caller token', t] as const),
      ...backendTokens.map((t) => ['backend token', t] as const),
    ] as const) {
      expect(exported.includes(value), `${what} in spans`).toBe(false);
      expect(logs.includes(value), `${what} in logs`).toBe(false);
      expect(answered.includes(value), `${what} in answers`).toBe(false);
      // A JWT's signature alone identifies it too.
      const signature = value.split('.')[2];
      if (signature)
        expect(exported.includes(signature) || logs.includes(signature), `${what} signature`).toBe(false);
    }
  });

  it('keeps none in clear in Redis, keys or values', async () => {
    const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
    try {
      const { CLIENT_SECRET: secret, callerTokens: callers, backendTokens } = secrets();
      const needles = [secret, ...callers, ...backendTokens];
      let cursor = '0';
      let scanned = 0;
      do {
        const [next, keys] = await redis.scan(cursor, 'COUNT', 1000);
        cursor = next;
        for (const key of keys) {
          scanned++;
          const value = (await redis.type(key)) === 'string' ? ((await redis.get(key)) ?? '') : '';
          for (const needle of needles) {
            expect(key.includes(needle) || value.includes(needle), `a secret in Redis at ${key}`).toBe(false);
          }
        }
      } while (cursor !== '0' && scanned < 200_000);
      expect(scanned).toBeGreaterThan(0);
    } finally {
      redis.disconnect();
    }
  });
});
