/**
 * Callers, tenants and whose credentials reach a backend (RELIABILITY D1-D6, E1/E2), over real
 * HTTP: the gateway on loopback, the lab backend answering per credential, Redis for the cache.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisCacheStore } from '../../src/cache/redis-store.ts';
import { toolIdFor } from '../../src/compile/tool-signature.ts';
import { SculptLoadError } from '../../src/errors/sculptor-error.ts';
import { REDIS_URL } from '../cache-integration/redis-harness.ts';
import { type LabBackend, labUser, startLabBackend } from '../engine/lab-backend.ts';
import { invoke, startTestGateway } from '../support/start-test-gateway.ts';
import { ACME, GLOBEX, TENANCY_CALLERS, TENANCY_SCULPTS, tenancyEnv } from '../support/tenancy-fixture.ts';

const SCULPTS = TENANCY_SCULPTS;
const CALLERS = TENANCY_CALLERS;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

type TestGateway = Awaited<ReturnType<typeof startTestGateway>>;

let lab: LabBackend;
const env = () => tenancyEnv(lab);

beforeAll(async () => {
  lab = await startLabBackend();
});
afterAll(async () => {
  await lab?.close();
});

/** The gateway with the two-tenant callers file, with the memory cache or Redis. */
async function withGateway(cache: 'memory' | 'redis', run: (gateway: TestGateway) => Promise<void>) {
  const gateway = await startTestGateway(SCULPTS, env(), {
    callers: CALLERS,
    ...(cache === 'redis' ? { redisUrl: REDIS_URL } : {}),
  });
  try {
    if (cache === 'redis') expect(await (gateway.cache as RedisCacheStore).waitUntilReady(2000)).toBe(true);
    await run(gateway);
  } finally {
    await gateway.close();
  }
}

const invokePath = (tool: string) => `/tools/${toolIdFor(tool)}:invoke`;
const call = (gateway: TestGateway, tool: string, headers: Record<string, string>, inputs: unknown[] = []) =>
  invoke(gateway.url, invokePath(tool), { name: tool, input_parameters: inputs }, headers);

describe('D1: every A2T route needs an authenticated caller', () => {
  it('no token, a wrong token, another scheme: 401 with WWW-Authenticate, and the backend saw nothing', async () => {
    await withGateway('memory', async (gateway) => {
      const before = lab.requests.length;
      for (const headers of [
        {},
        bearer('not-a-caller-0123456789abcdef'),
        { authorization: `Basic ${ACME}` },
      ]) {
        const res = await call(gateway, 'tenant_whoami', headers);
        expect(res.status).toBe(401);
        expect(res.body.code).toBe('auth.unauthenticated');
        expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
        for (const route of ['/tools', `/tools/${toolIdFor('tenant_whoami')}`, '/tools/nonsense']) {
          const listing = await fetch(`${gateway.url}${route}`, { headers });
          expect(listing.status, route).toBe(401);
        }
      }
      expect(lab.requests.length).toBe(before);
      // Health and metrics stay open to the platform.
      expect((await fetch(`${gateway.url}/livez`)).status).toBe(200);
      expect((await fetch(`${gateway.url}/readyz`)).status).toBe(200);
    });
  });

  it('the caller credential is never forwarded to a backend (D6)', async () => {
    await withGateway('memory', async (gateway) => {
      const before = lab.requests.length;
      const res = await call(gateway, 'tenant_whoami_fresh', bearer(ACME));
      expect(res.status).toBe(200);
      const seen = lab.requests.slice(before);
      expect(seen.length).toBe(1);
      expect(seen[0]!.headerValues.join('\n')).not.toContain(ACME);
    });
  });
});

describe('D4: two tenants, the same tool and inputs, each sees only its own data', () => {
  for (const cache of ['memory', 'redis'] as const) {
    it(`with the ${cache} cache on (cached tool) and off (fresh tool)`, async () => {
      await withGateway(cache, async (gateway) => {
        for (const tool of ['tenant_whoami', 'tenant_whoami_fresh']) {
          // Interleaved and repeated: the second round of the cached tool is served from cache.
          for (let round = 0; round < 2; round++) {
            const a = await call(gateway, tool, bearer(ACME));
            const g = await call(gateway, tool, bearer(GLOBEX));
            expect(a.body).toEqual({ output_parameters: [{ name: 'user', value: labUser('acme-lab-key') }] });
            expect(g.body).toEqual({
              output_parameters: [{ name: 'user', value: labUser('globex-lab-key') }],
            });
          }
        }
        const cached = gateway.reports
          .filter((r) => r.tool === 'tenant_whoami')
          .map((r) => r.steps[0]!.cache);
        expect(cached).toEqual(['miss', 'miss', 'hit', 'hit']);
      });
    });
  }
});

describe('D2: owner parameters come from the caller, never from the LLM', () => {
  it("each tenant's account id and key reach the backend; an LLM-supplied id is refused", async () => {
    await withGateway('memory', async (gateway) => {
      const before = lab.requests.length;
      const a = await call(gateway, 'tenant_balance', bearer(ACME));
      const g = await call(gateway, 'tenant_balance', bearer(GLOBEX));
      expect(a.body.output_parameters).toEqual([
        { name: 'account', value: '111' },
        { name: 'cents', value: 1250 },
      ]);
      expect(g.body.output_parameters).toContainEqual({ name: 'account', value: '222' });
      expect(lab.requests.slice(before).map((r) => [r.path, r.apiKey])).toEqual([
        ['/accounts/111/balance', 'acme-lab-key'],
        ['/accounts/222/balance', 'globex-lab-key'],
      ]);

      // Tenant acme's token, globex's account id supplied as if by a prompt-injected agent.
      const forged = await call(gateway, 'tenant_balance', bearer(ACME), [
        { name: 'accountId', value: '222' },
      ]);
      expect(forged.status).toBe(400);
      expect(forged.body.code).toBe('input.invalid');
      expect(lab.requests.length).toBe(before + 2);
    });
  });
});

describe('D5: a tool outside the tenant allowlist is answered as unknown', () => {
  it('absent from the listing, 404 on GET and invoke; present for the other tenant', async () => {
    await withGateway('memory', async (gateway) => {
      const names = async (token: string) => {
        const res = await fetch(`${gateway.url}/tools`, { headers: bearer(token) });
        const body = (await res.json()) as { items: Array<{ name: string }> };
        return body.items.map((t) => t.name);
      };
      expect(await names(ACME)).toContain('public_stats');
      expect(await names(GLOBEX)).toEqual([
        'tenant_balance',
        'tenant_whoami',
        'tenant_whoami_fresh',
        'user_whoami',
      ]);

      const id = toolIdFor('public_stats');
      const unknown = await fetch(`${gateway.url}/tools/${toolIdFor('no_such_tool')}`, {
        headers: bearer(GLOBEX),
      });
      const hidden = await fetch(`${gateway.url}/tools/${id}`, { headers: bearer(GLOBEX) });
      expect(hidden.status).toBe(404);
      const [hiddenBody, unknownBody] = [
        (await hidden.json()) as { code: string },
        (await unknown.json()) as { code: string },
      ];
      expect(hiddenBody.code).toBe(unknownBody.code);
      expect((await fetch(`${gateway.url}/tools/${id}/versions/1`, { headers: bearer(GLOBEX) })).status).toBe(
        404,
      );

      const before = lab.requests.length;
      const res = await call(gateway, 'public_stats', bearer(GLOBEX));
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('tool.not_found');
      expect(lab.requests.length).toBe(before);
      expect((await call(gateway, 'public_stats', bearer(ACME))).status).toBe(200);
    });
  });

  it("a paging cursor is bound to its tenant's listing (A5)", async () => {
    await withGateway('memory', async (gateway) => {
      const first = await fetch(`${gateway.url}/tools?pageLimit=1`, { headers: bearer(ACME) });
      const next = ((await first.json()) as { paging: { next: string } }).paging.next;
      expect(next).toBeTruthy();
      const own = await fetch(`${gateway.url}/tools?pageLimit=1&pageCursor=${next}`, {
        headers: bearer(ACME),
      });
      expect(own.status).toBe(200);
      const other = await fetch(`${gateway.url}/tools?pageLimit=1&pageCursor=${next}`, {
        headers: bearer(GLOBEX),
      });
      expect(other.status).toBe(400);
      expect(((await other.json()) as { code: string }).code).toBe('request.bad_paging');
    });
  });
});

describe('D6: per-user credentials by explicit pass-through', () => {
  it("each user's key reaches the backend, cached per user; no key: 401 and no backend call", async () => {
    await withGateway('redis', async (gateway) => {
      const before = lab.requests.length;
      const as = (user: string) => ({ ...bearer(ACME), 'x-lab-user-key': user });
      for (let round = 0; round < 2; round++) {
        for (const user of ['user-key-one', 'user-key-two']) {
          const res = await call(gateway, 'user_whoami', as(user));
          expect(res.body).toEqual({ output_parameters: [{ name: 'user', value: labUser(user) }] });
        }
      }
      // Two users, two calls: the second round came from the cache, each user's own entry.
      expect(lab.requests.slice(before).map((r) => r.apiKey)).toEqual(['user-key-one', 'user-key-two']);
      // The same user under the other tenant does not share the tenant's cache entry.
      await call(gateway, 'user_whoami', { ...bearer(GLOBEX), 'x-lab-user-key': 'user-key-one' });
      expect(lab.requests.length).toBe(before + 3);

      const missing = await call(gateway, 'user_whoami', bearer(ACME));
      expect(missing.status).toBe(401);
      expect(missing.body.code).toBe('auth.passthrough_missing');
      expect(String(missing.body.detail)).toContain('x-lab-user-key');
      const tooLong = await call(gateway, 'user_whoami', as('k'.repeat(2000)));
      expect(tooLong.status).toBe(400);
      expect(lab.requests.length).toBe(before + 3);
    });
  });
});

describe('D3: load-time checks between tenants and backends', () => {
  const lab1 = `backends:
  lab:
    openapi: ${path.resolve('test/engine/fixtures/lab/openapi/lab.openapi.yaml')}
    baseUrl: \${LAB_URL}
    allowPrivate: true
    auth: [{ in: header, name: x-api-key, value: '\${LAB_KEY}' }]
`;
  const whoami = `tool: whoami
version: 1
description: Test tool. Who the backend thinks the caller is.
outputs:
  user: { type: string, description: The user. }
steps:
  - { id: me, call: lab#me }
output: '{ "user": $steps.me.user }'
`;
  const tenants = (globexTools: string) => `tenants:
  acme:
    callers: [{ name: acme-agent, token: '\${ACME_TOKEN}' }]
  globex:
    ${globexTools}
    callers: [{ name: globex-agent, token: '\${GLOBEX_TOKEN}' }]
`;

  async function start(files: Record<string, string>) {
    const dir = await mkdtemp(path.join(tmpdir(), 'sculptor-tenancy-'));
    try {
      for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, name), text);
      const gateway = await startTestGateway(
        dir,
        { ...env(), LAB_KEY: 'one-shared-key' },
        {
          callers: path.join(dir, 'callers.yaml'),
        },
      );
      await gateway.close();
      return [];
    } catch (err) {
      if (!(err instanceof SculptLoadError)) throw err;
      return err.errors.map(
        (e) => `${e.code} ${path.basename(e.at?.file ?? '')}:${e.at?.line}:${e.at?.column}`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  it('one credential (tenancy single) reachable by two tenants stops the gateway, at the backend', async () => {
    const errors = await start({
      'backends.yaml': lab1,
      'whoami.v1.sculpt.yaml': whoami,
      'callers.yaml': tenants('tools: [whoami]'),
    });
    expect(errors).toEqual(['load.tenancy backends.yaml:6:11']);
  });

  it('narrowing one tenant away from the backend, or declaring it shared, loads', async () => {
    const narrowed = {
      'backends.yaml': lab1,
      'whoami.v1.sculpt.yaml': whoami,
      'callers.yaml': tenants('tools: [other_*]'),
    };
    expect(await start(narrowed)).toEqual([]);
    const shared = lab1.replace('allowPrivate: true', 'allowPrivate: true\n    tenancy: shared');
    expect(
      await start({ ...narrowed, 'backends.yaml': shared, 'callers.yaml': tenants('tools: [whoami]') }),
    ).toEqual([]);
  });

  it('a per-tenant backend needs credentials from every tenant that reaches it; unknown tools and backends are named', async () => {
    const perTenant = lab1.replace(
      "auth: [{ in: header, name: x-api-key, value: '${LAB_KEY}' }]",
      'tenancy: per-tenant',
    );
    const callers = `tenants:
  acme:
    credentials:
      lab: [{ in: header, name: x-api-key, value: '\${ACME_LAB_KEY}' }]
      nolab: [{ in: header, name: x-api-key, value: '\${ACME_LAB_KEY}' }]
    callers: [{ name: acme-agent, token: '\${ACME_TOKEN}' }]
  globex:
    tools: [whoami, whoareyou]
    callers: [{ name: globex-agent, token: '\${GLOBEX_TOKEN}' }]
`;
    expect(
      await start({ 'backends.yaml': perTenant, 'whoami.v1.sculpt.yaml': whoami, 'callers.yaml': callers }),
    ).toEqual([
      'load.tenancy callers.yaml:7:3',
      'load.tenancy callers.yaml:5:7',
      'load.tenancy callers.yaml:8:21',
    ]);
  });

  it('a per-tenant backend without any callers file stops the gateway', async () => {
    const perTenant = lab1.replace(
      "auth: [{ in: header, name: x-api-key, value: '${LAB_KEY}' }]",
      'tenancy: per-tenant',
    );
    const dir = await mkdtemp(path.join(tmpdir(), 'sculptor-tenancy-'));
    try {
      await writeFile(path.join(dir, 'backends.yaml'), perTenant);
      await writeFile(path.join(dir, 'whoami.v1.sculpt.yaml'), whoami);
      const error = await startTestGateway(dir, env()).catch((err: unknown) => err);
      expect(error).toBeInstanceOf(SculptLoadError);
      expect((error as SculptLoadError).errors.map((e) => e.code)).toEqual(['load.tenancy']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('callers files: literal, short, shared and missing tokens are refused, each at its place', async () => {
    const callers = `tenants:
  acme:
    callers:
      - { name: a, token: 'acme-literal-token-0123456789' }
      - { name: b, token: '\${SHORT_TOKEN}' }
      - { name: c, token: '\${ACME_TOKEN}' }
      - { name: d, token: '\${ACME_TOKEN}' }
      - { name: e, token: '\${UNSET_TOKEN_FOR_TEST}' }
      - { name: e, token: '\${GLOBEX_TOKEN}' }
`;
    const errors = await start({
      'backends.yaml': lab1.replace('allowPrivate: true', 'allowPrivate: true\n    tenancy: shared'),
      'whoami.v1.sculpt.yaml': whoami,
      'callers.yaml': callers,
    });
    expect(errors).toEqual([
      'load.literal_secret callers.yaml:4:27',
      'load.env callers.yaml:5:27',
      'load.env callers.yaml:7:27',
      'load.env callers.yaml:8:27',
      'load.schema callers.yaml:9:17',
    ]);
  });
});

describe('reload swaps sculpts and callers together', () => {
  it('a caller added to the file is accepted after reload, and a bad file keeps the old one', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'sculptor-callers-'));
    const file = path.join(dir, 'callers.yaml');
    const original = await readFile(CALLERS, 'utf8');
    try {
      await writeFile(file, original);
      const gateway = await startTestGateway(
        SCULPTS,
        { ...env(), INITECH_TOKEN: 'initech-token-0123456789abcdef' },
        { callers: file },
      );
      try {
        const initech = bearer('initech-token-0123456789abcdef');
        expect((await fetch(`${gateway.url}/tools`, { headers: initech })).status).toBe(401);
        const initechTenant = `  initech:\n    tools: [public_stats]\n    callers: [{ name: initech-agent, token: '\${INITECH_TOKEN}' }]\n`;
        await writeFile(file, original + initechTenant);
        await gateway.reload();
        expect((await fetch(`${gateway.url}/tools`, { headers: initech })).status).toBe(200);
        await writeFile(file, 'tenants: [oops');
        await expect(gateway.reload()).rejects.toBeInstanceOf(SculptLoadError);
        expect((await fetch(`${gateway.url}/tools`, { headers: initech })).status).toBe(200);
      } finally {
        await gateway.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
