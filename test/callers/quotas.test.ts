/**
 * Per-tenant quotas from the callers file, counted across three replicas through
 * the real Redis: acme may invoke its tenant_* tools 5 times a minute in all; the sixth gets
 * 429 request.quota_exceeded with Retry-After, whichever replica it reaches; other tools and
 * other tenants are not counted.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RedisCacheStore } from '../../src/cache/redis-store.ts';
import { toolIdFor } from '../../src/compile/tool-signature.ts';
import { REDIS_URL } from '../cache-integration/redis-harness.ts';
import { type LabBackend, startLabBackend } from '../engine/lab-backend.ts';
import { invoke, startTestGateway } from '../support/start-test-gateway.ts';

const ACME = `acme-${randomUUID()}`;
const GLOBEX = `globex-${randomUUID()}`;
let lab: LabBackend;
let replicas: Array<Awaited<ReturnType<typeof startTestGateway>>> = [];

beforeAll(async () => {
  lab = await startLabBackend();
  // Tokens and the secret are new each run: the quota's counters in Redis start at zero.
  const env = {
    LAB_URL: lab.url,
    ACME_LAB_KEY: 'a',
    GLOBEX_LAB_KEY: 'g',
    ACME_TOKEN: ACME,
    GLOBEX_TOKEN: GLOBEX,
  };
  const settings = {
    callers: 'test/callers/fixtures/quota-callers.yaml',
    redisUrl: REDIS_URL,
    secret: `quota-${randomUUID()}`,
  };
  replicas = await Promise.all(
    [1, 2, 3].map(() => startTestGateway('test/hardening/fixtures/tenancy', env, settings)),
  );
  for (const r of replicas) expect(await (r.cache as RedisCacheStore).waitUntilReady(2000)).toBe(true);
});
afterAll(async () => {
  await Promise.all(replicas.map((r) => r.close()));
  await lab?.close();
});

const call = (i: number, tool: string, token: string) =>
  invoke(
    replicas[i % 3]!.url,
    `/tools/${toolIdFor(tool)}:invoke`,
    { name: tool, input_parameters: [] },
    {
      authorization: `Bearer ${token}`,
    },
  );

it('five tenant_* invocations a minute for acme across 3 replicas, then 429 with Retry-After', async () => {
  const statuses: number[] = [];
  for (let i = 0; i < 8; i++) statuses.push((await call(i, 'tenant_whoami', ACME)).status);
  expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
  const refused = await call(0, 'tenant_whoami_fresh', ACME);
  expect(refused.status).toBe(429);
  expect(refused.body.code).toBe('request.quota_exceeded');
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
  // Not counted: a tool no rule names, and another tenant.
  expect((await call(1, 'public_stats', ACME)).status).toBe(200);
  expect((await call(2, 'tenant_whoami', GLOBEX)).status).toBe(200);
});

it('with Redis unreachable the replica counts on its own, with the same answers', async () => {
  const alone = await startTestGateway(
    'test/hardening/fixtures/tenancy',
    { LAB_URL: lab.url, ACME_LAB_KEY: 'a', GLOBEX_LAB_KEY: 'g', ACME_TOKEN: ACME, GLOBEX_TOKEN: GLOBEX },
    { callers: 'test/callers/fixtures/quota-callers.yaml', redisUrl: 'redis://127.0.0.1:9' },
  );
  try {
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      statuses.push(
        (
          await invoke(
            alone.url,
            `/tools/${toolIdFor('tenant_whoami')}:invoke`,
            { name: 'tenant_whoami', input_parameters: [] },
            { authorization: `Bearer ${ACME}` },
          )
        ).status,
      );
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
  } finally {
    await alone.close();
  }
});
