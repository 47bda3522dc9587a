/**
 * DNS rebinding and cross-site protection on every route of the gateway. The threat: a web page
 * the user opens re-points its own name at 127.0.0.1 (or calls the local gateway cross-site) and
 * so reaches the tools of a gateway started on their machine with no callers file. Such a page
 * sends its own name as `Host`, or its own site as `Origin`: both are refused, on every face and
 * on mounted apps (the Studio), while loopback names, the bind address, IP literals and the
 * names of SCULPTOR_ALLOWED_HOSTS are served. Over real HTTP (node:http, which sends the Host
 * it is given), against the sample Petstore sculpts and their recorded backend.
 */
import { rawRequest } from '../support/raw-request.ts';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolIdFor } from '../../src/compile/tool-signature.ts';
import { readSettings, type Settings, SettingsError } from '../../src/config/settings.ts';
import { loadRecordings, startReplayServer } from '../../src/replay/index.ts';
import { createHostPolicy, hostName } from '../../src/server/host-policy.ts';
import type { Gateway } from '../../src/server/start-gateway.ts';
import { replayEnv } from '../../src/testing/index.ts';
import { startTestGateway } from '../support/start-test-gateway.ts';
import { ACME, TENANCY_CALLERS, TENANCY_SCULPTS } from '../support/tenancy-fixture.ts';

const SCULPTS = 'sculpts/petstore';
const DESCRIBE = JSON.stringify({ pet_number: 10 });

/** Every route family, with the request that reaches it. */
const ROUTES: Array<{ name: string; method: 'GET' | 'POST'; path: string; body?: string }> = [
  { name: 'A2T listing', method: 'GET', path: '/tools' },
  {
    name: 'A2T invocation',
    method: 'POST',
    path: `/tools/${toolIdFor('describe_pet')}:invoke`,
    body: JSON.stringify({ name: 'describe_pet', input_parameters: [{ name: 'pet_number', value: 10 }] }),
  },
  { name: 'a2t-lite capabilities', method: 'GET', path: '/.well-known/a2t-capabilities.json' },
  { name: 'a2t-lite listing', method: 'GET', path: '/lite/tools' },
  { name: 'a2t-lite call', method: 'POST', path: '/lite/tools/describe_pet', body: DESCRIBE },
  { name: 'OpenAPI call', method: 'POST', path: '/call/describe_pet', body: DESCRIBE },
  { name: 'OpenAPI document', method: 'GET', path: '/openapi.json' },
  { name: 'docs page', method: 'GET', path: '/docs' },
  {
    name: 'MCP',
    method: 'POST',
    path: '/mcp',
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'describe_pet', arguments: { pet_number: 10 } },
    }),
  },
  { name: 'a mounted app (the Studio)', method: 'GET', path: '/studio/api/ping' },
];

/** A mounted app standing in for the Studio: mounts pass the server's rule like the faces. */
const studioStandIn = () => new Hono().get('/studio/api/ping', (c) => c.json({ pong: true }));

let replay: Awaited<ReturnType<typeof startReplayServer>>;
let env: Record<string, string>;
beforeAll(async () => {
  replay = await startReplayServer(await loadRecordings(['sculpts/petstore/recordings/petstore-v2.har']));
  env = await replayEnv(SCULPTS, replay.url);
});
afterAll(async () => {
  await replay?.close();
});

function gatewayWith(
  settings: Partial<Settings>,
  sculpts = SCULPTS,
  gatewayEnv?: Record<string, string>,
): Promise<Gateway> {
  return startTestGateway(sculpts, gatewayEnv ?? env, settings, [studioStandIn]);
}

describe('an anonymous gateway on the default bind address (0.0.0.0, no callers file)', () => {
  let gateway: Gateway;
  let port: number;
  beforeAll(async () => {
    gateway = await gatewayWith({ host: '0.0.0.0' });
    port = Number(new URL(gateway.url).port);
  });
  afterAll(async () => {
    await gateway?.close();
  });

  for (const route of ROUTES) {
    it(`${route.name}: a rebound Host is refused 403, naming the setting; loopback is served`, async () => {
      const rebound = await send(port, route, { host: `evil.example:${port}` });
      expect(rebound.status, rebound.body).toBe(403);
      expect(rebound.body).toContain('SCULPTOR_ALLOWED_HOSTS');
      expect(rebound.body).toContain('request.host_not_allowed');
      for (const host of [`localhost:${port}`, `127.0.0.1:${port}`]) {
        const served = await send(port, route, { host });
        expect(served.status, `${host}: ${served.body}`).toBeLessThan(400);
      }
    });

    it(`${route.name}: a cross-site Origin is refused 403, even with a loopback Host`, async () => {
      for (const origin of ['http://evil.example', 'null']) {
        const res = await send(port, route, { host: `127.0.0.1:${port}`, origin });
        expect(res.status, origin).toBe(403);
        expect(res.body).toContain('request.host_not_allowed');
      }
      // A local agent tool's page (any loopback port) and the gateway's own pages are served.
      for (const origin of ['http://localhost:6274', `http://127.0.0.1:${port}`]) {
        const res = await send(port, route, { host: `127.0.0.1:${port}`, origin });
        expect(res.status, origin).toBeLessThan(400);
      }
    });
  }

  it('answers each face in its own form: problem+json, a2t-lite error, JSON-RPC', async () => {
    const host = { host: 'evil.example' };
    const a2t = await send(port, ROUTES[0]!, host);
    expect(JSON.parse(a2t.body)).toMatchObject({
      type: 'urn:sculptor:error:request.host_not_allowed',
      status: 403,
    });
    const lite = await send(port, ROUTES[3]!, host);
    expect(JSON.parse(lite.body)).toMatchObject({ error: { code: 'request.host_not_allowed' } });
    const mcp = await send(
      port,
      ROUTES.find((r) => r.name === 'MCP')!,
      host,
    );
    expect(JSON.parse(mcp.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
  });

  it('serves health and metrics to any Host (probes name the pod address) and IP literals everywhere', async () => {
    for (const path of ['/livez', '/readyz', '/metrics']) {
      expect((await send(port, { method: 'GET', path }, { host: 'sculptor.internal' })).status).toBe(200);
    }
    // A page cannot be served from an address it does not own: an IP cannot be rebound.
    expect((await send(port, ROUTES[0]!, { host: `10.1.2.3:${port}` })).status).toBe(200);
    expect((await send(port, ROUTES[0]!, { host: `[::1]:${port}` })).status).toBe(200);
  });
});

describe('SCULPTOR_ALLOWED_HOSTS', () => {
  let gateway: Gateway;
  let port: number;
  beforeAll(async () => {
    const { allowedHosts } = readSettings({ SCULPTOR_ALLOWED_HOSTS: 'tools.example.com, Sculptor' });
    gateway = await gatewayWith({ host: '0.0.0.0', allowedHosts });
    port = Number(new URL(gateway.url).port);
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('serves the names it lists (any case, any port) on every route; not their look-alikes', async () => {
    for (const route of ROUTES) {
      for (const host of ['tools.example.com', `SCULPTOR:${port}`]) {
        expect((await send(port, route, { host })).status, `${route.name} ${host}`).toBeLessThan(400);
      }
      for (const host of ['tools.example.com.evil.example', 'evil-sculptor']) {
        expect((await send(port, route, { host })).status, `${route.name} ${host}`).toBe(403);
      }
    }
  });

  it('is read comma-separated and validated; the narrower MCP-only name is refused, saying which to set', () => {
    expect(readSettings({ SCULPTOR_ALLOWED_HOSTS: ' a.example ,B.example' }).allowedHosts).toEqual([
      'a.example',
      'b.example',
    ]);
    expect(() => readSettings({ SCULPTOR_ALLOWED_HOSTS: 'https://a.example' })).toThrow(SettingsError);
    expect(() => readSettings({ SCULPTOR_MCP_ALLOWED_HOSTS: 'a.example' })).toThrow(/SCULPTOR_ALLOWED_HOSTS/);
  });
});

describe('a gateway with a callers file', () => {
  let gateway: Gateway;
  let port: number;
  beforeAll(async () => {
    gateway = await gatewayWith({ host: '0.0.0.0', callers: TENANCY_CALLERS }, TENANCY_SCULPTS, {
      LAB_URL: 'http://127.0.0.1:9',
      ACME_LAB_KEY: 'k',
      GLOBEX_LAB_KEY: 'k',
      ACME_TOKEN: ACME,
      GLOBEX_TOKEN: 'globex-token-0123456789abcdefghij',
    });
    port = Number(new URL(gateway.url).port);
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('answers any Host (bearer tokens guard it: a rebinding page has none), but still no cross-site Origin', async () => {
    const auth = { authorization: `Bearer ${ACME}` };
    expect((await send(port, ROUTES[0]!, { ...auth, host: 'sculptor.prod.internal' })).status).toBe(200);
    const crossSite = await send(port, ROUTES[0]!, {
      ...auth,
      host: 'sculptor.prod.internal',
      origin: 'https://evil.example',
    });
    expect(crossSite.status).toBe(403);
    // The docs page calling its own gateway is same-origin.
    const own = await send(port, ROUTES[0]!, {
      ...auth,
      host: 'sculptor.prod.internal',
      origin: 'https://sculptor.prod.internal',
    });
    expect(own.status).toBe(200);
  });
});

describe('the rule', () => {
  const anonymous = createHostPolicy({ bindAddress: '0.0.0.0', allowedHosts: [], callersConfigured: false });
  it('reads Host values as a browser sends them, refusing malformed ones', () => {
    expect(hostName('LocalHost:8080')).toBe('localhost');
    expect(hostName('[::1]:80')).toBe('[::1]');
    expect(hostName('example.com.')).toBe('example.com');
    expect(hostName('a b')).toBeUndefined();
    expect(hostName('[zz]:1')).toBeUndefined();
    expect(hostName('host:port')).toBeUndefined();
  });
  it('knows loopback and the bind address; refuses a missing Host when it checks Host', () => {
    expect(anonymous('localhost', undefined)).toBeUndefined();
    expect(anonymous(undefined, undefined)?.code).toBe('request.host_not_allowed');
    const bound = createHostPolicy({ bindAddress: 'gw.lan', allowedHosts: [], callersConfigured: false });
    expect(bound('gw.lan:8080', undefined)).toBeUndefined();
    expect(bound('other.lan', undefined)?.code).toBe('request.host_not_allowed');
  });
  it('checks Host with a callers file only when names are configured or it listens on loopback', () => {
    const guarded = createHostPolicy({ bindAddress: '0.0.0.0', allowedHosts: [], callersConfigured: true });
    expect(guarded('anything.example', undefined)).toBeUndefined();
    const local = createHostPolicy({ bindAddress: '127.0.0.1', allowedHosts: [], callersConfigured: true });
    expect(local('anything.example', undefined)?.code).toBe('request.host_not_allowed');
  });
});

function send(
  port: number,
  route: { method: string; path: string; body?: string },
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  return rawRequest(`http://127.0.0.1:${port}${route.path}`, {
    method: route.method,
    headers: {
      ...(route.body ? { 'content-type': 'application/json' } : {}),
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...headers,
    },
    ...(route.body !== undefined ? { body: route.body } : {}),
  });
}
