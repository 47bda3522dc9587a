/**
 * The a2t-lite face over real HTTP (docs/protocols/a2t-lite.md): the
 * capabilities file, every endpoint and query of the seed, paging edges, search ranking as data
 * (test/cases/search-ranking.yaml), errors, tenancy, a group of groups, and the `group_refresh`
 * meta response after a reload moved a tool.
 */
import { rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolSchema } from '../../../src/compile/tool-schema.ts';
import { loadRecordings, startReplayServer } from '../../../src/replay/index.ts';
import { replayEnv } from '../../../src/testing/index.ts';
import { type LabBackend, labUser, startLabBackend } from '../../engine/lab-backend.ts';
import { type PetstoreBackend, startPetstoreBackend } from '../../support/petstore-backend.ts';
import { startTestGateway } from '../../support/start-test-gateway.ts';
import { nestedSamples, nestedTenancy, rankingSculpts, REPO } from './lite-fixtures.ts';

type TestGateway = Awaited<ReturnType<typeof startTestGateway>>;
interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function get(url: string, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(url, { headers });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Answer['body'] };
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Answer['body'] };
}

const names = (body: Answer['body']) => (body.tools as Array<{ name: string }>).map((t) => t.name);
const ids = (body: Answer['body']) => (body.groups as Array<{ id: string }>).map((g) => g.id);

const ALL_TOOLS = [
  'count_pets_in_stock',
  'describe_pet',
  'find_pets_by_status',
  'list_available_pets',
  'lookup_weather_by_city',
];

describe('a2t-lite over the samples, nested in folders', () => {
  let root: string;
  let gateway: TestGateway;
  let lite: string;
  let replay: Awaited<ReturnType<typeof startReplayServer>>;
  let petstore: PetstoreBackend;

  beforeAll(async () => {
    root = await nestedSamples();
    replay = await startReplayServer(await loadRecordings([path.join(REPO, 'sculpts/weather/recordings')]));
    petstore = await startPetstoreBackend();
    gateway = await startTestGateway(root, {
      ...(await replayEnv(path.join(REPO, 'sculpts/weather'), replay.url)),
      PETSTORE_BASE_URL: `${petstore.url}/v2`,
      PETSTORE3_BASE_URL: `${petstore.url}/api/v3`,
    });
    lite = `${gateway.url}/lite`;
  });
  afterAll(async () => {
    await gateway?.close();
    await replay?.close();
    await petstore?.close();
    await rm(root, { recursive: true, force: true });
  });

  describe('GET /.well-known/a2t-capabilities.json', () => {
    it('declares groups and search, the limits, and endpoints that are the real paths', async () => {
      const { status, body } = await get(`${gateway.url}/.well-known/a2t-capabilities.json`);
      expect(status).toBe(200);
      expect(body).toEqual({
        version: '1.0',
        features: { groups: true, search: true, dynamic_tools: false },
        endpoints: { tools: '/lite/tools', groups: '/lite/groups' },
        limits: { max_tools_per_request: 100, max_groups_per_request: 50 },
      });
      expect((await get(`${lite}/.well-known/a2t-capabilities.json`)).body).toEqual(body);
      expect(names((await get(`${gateway.url}${body.endpoints.tools}`)).body)).toEqual(ALL_TOOLS);
      expect((await get(`${gateway.url}${body.endpoints.groups}`)).body.total).toBe(5);
    });
  });

  describe('GET /tools', () => {
    it('lists every tool by name: name, description, input_schema (the one generator), group_id', async () => {
      const { status, body } = await get(`${lite}/tools`);
      expect(status).toBe(200);
      expect({ total: body.total, offset: body.offset, limit: body.limit }).toEqual({
        total: 5,
        offset: 0,
        limit: 100,
      });
      expect(names(body)).toEqual(ALL_TOOLS);
      const weather = body.tools.find((t: { name: string }) => t.name === 'lookup_weather_by_city');
      const schema = toolSchema(gateway.catalog().named('lookup_weather_by_city')!.current);
      expect(weather).toEqual({
        name: 'lookup_weather_by_city',
        description: schema.description,
        input_schema: schema.inputSchema,
        group_id: 'outdoors.weather',
      });
      expect(weather.input_schema.required).toEqual(['city']);
      expect(body.tools.map((t: { group_id: string }) => t.group_id)).toEqual([
        'pets.petstore3',
        'pets.petstore',
        'pets.petstore',
        'pets.petstore3',
        'outdoors.weather',
      ]);
    });

    it.each([
      ['limit=2', ['count_pets_in_stock', 'describe_pet'], 0, 2],
      ['limit=2&offset=2', ['find_pets_by_status', 'list_available_pets'], 2, 2],
      ['limit=2&offset=4', ['lookup_weather_by_city'], 4, 2],
      ['offset=5', [], 5, 100],
      ['offset=999999', [], 999999, 100],
      ['limit=0', ['count_pets_in_stock'], 0, 1],
      ['limit=-3', ['count_pets_in_stock'], 0, 1],
      ['limit=1000', ALL_TOOLS, 0, 100],
    ])('pages: %s', async (query, expected, offset, limit) => {
      const { status, body } = await get(`${lite}/tools?${query}`);
      expect(status).toBe(200);
      expect(names(body)).toEqual(expected);
      expect(body).toMatchObject({ total: 5, offset, limit });
    });

    it('pages through once, each tool exactly once', async () => {
      const seen: string[] = [];
      for (let offset = 0; offset < 10; offset += 2)
        seen.push(...names((await get(`${lite}/tools?limit=2&offset=${offset}`)).body));
      expect(seen).toEqual(ALL_TOOLS);
    });

    it.each([
      ['limit=abc', 'request.bad_paging'],
      ['limit=1.5', 'request.bad_paging'],
      ['limit=1&limit=2', 'request.bad_paging'],
      ['offset=-1', 'request.bad_paging'],
      ['offset=x', 'request.bad_paging'],
      ['offset=1&offset=2', 'request.bad_paging'],
      ['q=a&q=b', 'request.malformed'],
      [`q=${'x'.repeat(201)}`, 'request.malformed'],
    ])('refuses %s with 400 %s, in the {error} shape', async (query, code) => {
      const { status, headers, body } = await get(`${lite}/tools?${query}`);
      expect(status).toBe(400);
      expect(headers.get('content-type')).toMatch(/^application\/json/);
      expect(body).toEqual({ error: { code, message: expect.any(String), retryable: false } });
    });

    it('q ranks by relevance, counts every match in total, and pages the ranking', async () => {
      const { body } = await get(`${lite}/tools?q=weather+forecast`);
      expect(names(body)[0]).toBe('lookup_weather_by_city');
      const pets = await get(`${lite}/tools?q=pets`);
      expect(pets.body.total).toBeGreaterThanOrEqual(3);
      expect(names(pets.body)).not.toContain('lookup_weather_by_city');
      const paged: string[] = [];
      for (let offset = 0; offset < pets.body.total; offset++) {
        const page = await get(`${lite}/tools?q=pets&limit=1&offset=${offset}`);
        expect(page.body.total).toBe(pets.body.total);
        paged.push(...names(page.body));
      }
      expect(paged).toEqual(names(pets.body));
      expect((await get(`${lite}/tools?q=zzyzx`)).body).toEqual({
        tools: [],
        total: 0,
        offset: 0,
        limit: 100,
      });
    });

    it('an empty q is no query: the whole listing', async () => {
      expect(names((await get(`${lite}/tools?q=`)).body)).toEqual(ALL_TOOLS);
      expect(names((await get(`${lite}/tools?q=%20`)).body)).toEqual(ALL_TOOLS);
    });
  });

  describe('GET /groups (folders; a folder of folders is a group of groups)', () => {
    it('lists every group by id, with name, description, tool_count and parent_id', async () => {
      const { status, body } = await get(`${lite}/groups`);
      expect(status).toBe(200);
      expect(body).toMatchObject({ total: 5, offset: 0, limit: 50 });
      expect(body.groups).toEqual([
        {
          id: 'outdoors',
          name: 'outdoors',
          description: '1 tool from the outdoors sculpts (subgroups: weather): lookup_weather_by_city.',
          tool_count: 1,
          parent_id: null,
        },
        {
          id: 'outdoors.weather',
          name: 'weather',
          description: '1 tool from the weather sculpts: lookup_weather_by_city.',
          tool_count: 1,
          parent_id: 'outdoors',
        },
        {
          id: 'pets',
          name: 'pets',
          description:
            '4 tools from the pets sculpts (subgroups: petstore, petstore3): count_pets_in_stock, describe_pet, find_pets_by_status, list_available_pets.',
          tool_count: 4,
          parent_id: null,
        },
        expect.objectContaining({ id: 'pets.petstore', tool_count: 2, parent_id: 'pets' }),
        expect.objectContaining({ id: 'pets.petstore3', tool_count: 2, parent_id: 'pets' }),
      ]);
    });

    it('parent_id: a group’s direct subgroups; empty: the top-level groups; unknown: 404', async () => {
      expect(ids((await get(`${lite}/groups?parent_id=pets`)).body)).toEqual([
        'pets.petstore',
        'pets.petstore3',
      ]);
      expect(ids((await get(`${lite}/groups?parent_id=pets.petstore`)).body)).toEqual([]);
      expect(ids((await get(`${lite}/groups?parent_id=`)).body)).toEqual(['outdoors', 'pets']);
      const unknown = await get(`${lite}/groups?parent_id=nope`);
      expect(unknown.status).toBe(404);
      expect(unknown.body.error.code).toBe('request.not_found');
    });

    it('pages groups: limit, offset, total; clamps limit to 50', async () => {
      const page = await get(`${lite}/groups?limit=2&offset=1`);
      expect(ids(page.body)).toEqual(['outdoors.weather', 'pets']);
      expect(page.body).toMatchObject({ total: 5, offset: 1, limit: 2 });
      expect((await get(`${lite}/groups?limit=500`)).body.limit).toBe(50);
      expect((await get(`${lite}/groups?offset=5`)).body).toMatchObject({ groups: [], total: 5 });
      expect((await get(`${lite}/groups?offset=-2`)).status).toBe(400);
    });

    it('q finds groups by their names and by their tools’ words; parent_id still filters', async () => {
      expect(ids((await get(`${lite}/groups?q=weather`)).body)).toEqual(['outdoors.weather', 'outdoors']);
      const pets = await get(`${lite}/groups?q=inventory+stock`);
      expect(ids(pets.body)).toEqual(['pets.petstore3', 'pets']);
      expect(ids((await get(`${lite}/groups?q=stock&parent_id=pets`)).body)).toEqual(['pets.petstore3']);
      expect((await get(`${lite}/groups?q=zzyzx`)).body).toMatchObject({ groups: [], total: 0 });
    });
  });

  describe('GET /groups/{id}/tools', () => {
    it('lists the tools of a group and of its subgroups, paged, searchable', async () => {
      const pets = await get(`${lite}/groups/pets/tools`);
      expect(pets.status).toBe(200);
      expect(names(pets.body)).toEqual(ALL_TOOLS.filter((n) => n !== 'lookup_weather_by_city'));
      expect(pets.body).toMatchObject({ total: 4, offset: 0, limit: 100 });
      expect(names((await get(`${lite}/groups/pets.petstore/tools`)).body)).toEqual([
        'describe_pet',
        'find_pets_by_status',
      ]);
      const page = await get(`${lite}/groups/pets/tools?limit=1&offset=3`);
      expect(names(page.body)).toEqual(['list_available_pets']);
      expect(page.body.total).toBe(4);
      const searched = await get(`${lite}/groups/pets.petstore/tools?q=status`);
      expect(names(searched.body)[0]).toBe('find_pets_by_status');
      expect(names(searched.body)).not.toContain('count_pets_in_stock');
      expect((await get(`${lite}/groups/outdoors/tools?q=pets`)).body).toMatchObject({ tools: [], total: 0 });
    });

    it('answers an unknown group 404 request.not_found', async () => {
      for (const id of ['nope', 'PETS', 'pets%2Epetstore', 'pets.']) {
        const { status, body } = await get(`${lite}/groups/${id}/tools`);
        expect(status, id).toBe(404);
        expect(body.error.code).toBe('request.not_found');
      }
    });
  });

  describe('POST /tools/{name} and POST /groups/{id}/tools/{name}', () => {
    it('calls with the arguments as a plain object and answers {result: outputs}', async () => {
      const { status, headers, body } = await post(`${lite}/tools/lookup_weather_by_city`, {
        city: 'New York',
      });
      expect(status).toBe(200);
      expect(headers.get('cache-control')).toBe('no-store');
      expect(body).toEqual({
        result: { temperature_f: 22, forecast: 'Sunny', place: 'New York, New York, US' },
      });
      const tomorrow = await post(`${lite}/tools/lookup_weather_by_city`, {
        city: 'New York',
        day: 'TOMORROW',
      });
      expect(tomorrow.body.result).toMatchObject({ temperature_f: 38, forecast: 'Mostly Sunny' });
      const pets = await post(`${lite}/tools/find_pets_by_status`, { status: 'AVAILABLE' });
      expect(pets.status).toBe(200);
      expect(Object.keys(pets.body)).toEqual(['result']);
    });

    it('calls through the group (or a parent group) the tool is in, with no meta', async () => {
      for (const group of ['outdoors.weather', 'outdoors']) {
        const { status, body } = await post(`${lite}/groups/${group}/tools/lookup_weather_by_city`, {
          city: 'New York',
        });
        expect(status).toBe(200);
        expect(body).toEqual({
          result: { temperature_f: 22, forecast: 'Sunny', place: 'New York, New York, US' },
        });
      }
    });

    it('reports the engine’s outcomes with A2T’s statuses and codes', async () => {
      const cases: Array<[string, unknown, number, string]> = [
        ['lookup_weather_by_city', { city: 'London' }, 422, 'tool.error'],
        ['lookup_weather_by_city', { city: 3, bogus: 1 }, 400, 'input.invalid'],
        ['lookup_weather_by_city', {}, 400, 'input.invalid'],
        ['lookup_weather_by_city', [], 400, 'input.invalid'],
        ['lookup_weather_by_city', '{not json', 400, 'request.malformed'],
        ['nope', { city: 'New York' }, 404, 'tool.not_found'],
        ['lookup%5Fweather_by_city', { city: 'New York' }, 404, 'tool.not_found'],
      ];
      for (const [name, args, status, code] of cases) {
        const answer = await post(`${lite}/tools/${name}`, args);
        expect([name, answer.status, answer.body.error?.code]).toEqual([name, status, code]);
        expect(typeof answer.body.error.message).toBe('string');
      }
      const invalid = await post(`${lite}/tools/lookup_weather_by_city`, { city: 3, bogus: 1 });
      expect(invalid.body.error.problems).toEqual([
        expect.objectContaining({ parameter: 'bogus' }),
        { parameter: 'city', reason: 'must be a string' },
      ]);
    });

    it('refuses other media types, bodies over 64 KiB and other methods', async () => {
      const text = await fetch(`${lite}/tools/lookup_weather_by_city`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: '{}',
      });
      expect(text.status).toBe(415);
      expect(((await text.json()) as Answer['body']).error.code).toBe('request.unsupported_media_type');
      const big = await post(`${lite}/tools/lookup_weather_by_city`, { city: 'x'.repeat(70_000) });
      expect([big.status, big.body.error.code]).toEqual([413, 'request.too_large']);
      const wrong = await fetch(`${lite}/tools/lookup_weather_by_city`);
      expect(wrong.status).toBe(405);
      expect(wrong.headers.get('allow')).toBe('POST');
      const listing = await fetch(`${lite}/tools`, { method: 'POST' });
      expect([listing.status, listing.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
      const unknown = await get(`${lite}/nowhere`);
      expect([unknown.status, unknown.body.error.code]).toEqual([404, 'request.not_found']);
    });

    it('calls through a group the tool is not in, and says which groups to list again (group_refresh)', async () => {
      const { status, body } = await post(`${lite}/groups/pets/tools/lookup_weather_by_city`, {
        city: 'New York',
      });
      expect(status).toBe(200);
      expect(body).toEqual({
        result: { temperature_f: 22, forecast: 'Sunny', place: 'New York, New York, US' },
        meta: { type: 'group_refresh', group_ids: ['pets', 'outdoors.weather', 'outdoors'] },
      });
      const unknown = await post(`${lite}/groups/nope/tools/nope`, {});
      expect([unknown.status, unknown.body.error.code]).toEqual([404, 'tool.not_found']);
    });

    it('after a reload moved a tool to another folder, a call through its old group carries group_refresh', async () => {
      await rename(path.join(root, 'outdoors/weather'), path.join(root, 'outdoors/forecasts'));
      try {
        await gateway.reload();
        expect(ids((await get(`${lite}/groups?parent_id=outdoors`)).body)).toEqual(['outdoors.forecasts']);
        const { status, body } = await post(`${lite}/groups/outdoors.weather/tools/lookup_weather_by_city`, {
          city: 'New York',
        });
        expect(status).toBe(200);
        expect(body.meta).toEqual({
          type: 'group_refresh',
          group_ids: ['outdoors.weather', 'outdoors.forecasts', 'outdoors'],
        });
        expect((await get(`${lite}/groups/outdoors.weather/tools`)).status).toBe(404);
      } finally {
        await rename(path.join(root, 'outdoors/forecasts'), path.join(root, 'outdoors/weather'));
        await gateway.reload();
      }
    });

    it('reports each call to telemetry like an A2T invocation', async () => {
      const before = gateway.reports.length;
      await post(`${lite}/tools/lookup_weather_by_city`, { city: 'New York' });
      expect(gateway.reports.slice(before)).toEqual([
        expect.objectContaining({ tool: 'lookup_weather_by_city', version: 2, outcome: 'ok' }),
      ]);
    });
  });

  it('does not collide with A2T: GET /tools is still the A2T listing', async () => {
    const { body } = await get(`${gateway.url}/tools`);
    expect(Object.keys(body)).toEqual(['items', 'paging']);
  });
});

describe('a2t-lite below SCULPTOR_PREFIX', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway(
      'sculpts',
      { PETSTORE_BASE_URL: 'http://127.0.0.1:9/v2' },
      { prefix: '/a2t' },
    );
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('lives at {platform-root}/lite, and the capabilities say so', async () => {
    const caps = await get(`${gateway.url}/.well-known/a2t-capabilities.json`);
    expect(caps.body.endpoints).toEqual({ tools: '/a2t/lite/tools', groups: '/a2t/lite/groups' });
    expect((await get(`${gateway.url}/a2t/lite/.well-known/a2t-capabilities.json`)).body).toEqual(caps.body);
    expect((await get(`${gateway.url}/a2t/lite/tools`)).body.total).toBe(7);
    expect(ids((await get(`${gateway.url}/a2t/lite/groups`)).body)).toEqual([
      'ndfd',
      'petstore',
      'petstore3',
      'weather',
    ]);
    expect((await get(`${gateway.url}/lite/tools`)).status).toBe(404);
    expect(Object.keys((await get(`${gateway.url}/a2t/tools`)).body)).toEqual(['items', 'paging']);
  });
});

describe('a2t-lite tenancy (RELIABILITY D1, D5): two tenants, groups in folders', () => {
  const ACME = 'acme-token-0123456789abcdefghij';
  const GLOBEX = 'globex-token-0123456789abcdefghij';
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  let root: string;
  let lab: LabBackend;
  let gateway: TestGateway;
  let lite: string;

  beforeAll(async () => {
    root = await nestedTenancy();
    lab = await startLabBackend();
    gateway = await startTestGateway(
      root,
      {
        LAB_URL: lab.url,
        ACME_LAB_KEY: 'acme-lab-key',
        GLOBEX_LAB_KEY: 'globex-lab-key',
        ACME_TOKEN: ACME,
        GLOBEX_TOKEN: GLOBEX,
      },
      { callers: path.join(REPO, 'test/hardening/fixtures/tenancy-callers.yaml') },
    );
    lite = `${gateway.url}/lite`;
  });
  afterAll(async () => {
    await gateway?.close();
    await lab?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('shows each tenant its own tools and only the groups holding them, counted for it', async () => {
    expect(names((await get(`${lite}/tools`, bearer(ACME))).body)).toContain('public_stats');
    const globex = await get(`${lite}/tools`, bearer(GLOBEX));
    expect(names(globex.body)).toEqual([
      'tenant_balance',
      'tenant_whoami',
      'tenant_whoami_fresh',
      'user_whoami',
    ]);
    expect(ids((await get(`${lite}/groups`, bearer(ACME))).body)).toEqual(['stats', 'tenant', 'tenant.user']);
    const groups = await get(`${lite}/groups`, bearer(GLOBEX));
    expect(groups.body.groups.map((g: { id: string; tool_count: number }) => [g.id, g.tool_count])).toEqual([
      ['tenant', 4],
      ['tenant.user', 1],
    ]);
    expect((await get(`${lite}/groups/stats/tools`, bearer(GLOBEX))).status).toBe(404);
    expect((await get(`${lite}/groups?parent_id=stats`, bearer(GLOBEX))).status).toBe(404);
  });

  it('never finds another tenant’s tool or group by search', async () => {
    expect(names((await get(`${lite}/tools?q=public+counter`, bearer(ACME))).body)).toContain('public_stats');
    expect(names((await get(`${lite}/tools?q=public+counter`, bearer(GLOBEX))).body)).not.toContain(
      'public_stats',
    );
    expect(ids((await get(`${lite}/groups?q=stats`, bearer(GLOBEX))).body)).not.toContain('stats');
  });

  it('answers another tenant’s tool exactly like a missing one, and calls no backend', async () => {
    const before = lab.requests.length;
    const hidden = await post(`${lite}/tools/public_stats`, {}, bearer(GLOBEX));
    const missing = await post(`${lite}/tools/no_such_tool`, {}, bearer(GLOBEX));
    const viaGroup = await post(`${lite}/groups/stats/tools/public_stats`, {}, bearer(GLOBEX));
    for (const answer of [hidden, missing, viaGroup]) {
      expect([answer.status, answer.body.error.code]).toEqual([404, 'tool.not_found']);
    }
    expect(lab.requests.length).toBe(before);
  });

  it('sends each tenant’s credentials, and refuses no token or a wrong one with 401 and a challenge', async () => {
    const acme = await post(`${lite}/groups/tenant/tools/tenant_whoami`, {}, bearer(ACME));
    expect(acme.body).toEqual({ result: { user: labUser('acme-lab-key') } });
    const globex = await post(`${lite}/tools/tenant_whoami`, {}, bearer(GLOBEX));
    expect(globex.body).toEqual({ result: { user: labUser('globex-lab-key') } });
    for (const headers of [{}, bearer('not-a-known-token-0123456789')]) {
      for (const answer of [
        await get(`${lite}/tools`, headers),
        await post(`${lite}/tools/tenant_whoami`, {}, headers),
      ]) {
        expect(answer.status).toBe(401);
        expect(answer.body.error.code).toBe('auth.unauthenticated');
        expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer /);
      }
    }
    // Discovery stays open: the capabilities file names no tenant's tools.
    expect((await get(`${gateway.url}/.well-known/a2t-capabilities.json`)).status).toBe(200);
  });
});

const ranking = await rankingSculpts();

describe('a2t-lite search ranking cases (test/cases/search-ranking.yaml, as sculpts)', () => {
  const { root, cases, folderOf } = ranking;
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway(root, {});
  });
  afterAll(async () => {
    await gateway?.close();
    await rm(root, { recursive: true, force: true });
  });

  it.each(cases.map((c) => [c.query, c] as const))('GET /tools?q=%s', async (query, c) => {
    const { status, body } = await get(`${gateway.url}/lite/tools?q=${encodeURIComponent(query)}`);
    expect(status).toBe(200);
    const found = names(body);
    expect(body.total).toBe(found.length);
    if (c.top) expect(found.slice(0, c.top.length)).toEqual(c.top);
    if (c.first) expect(found.slice(0, c.first.length).sort()).toEqual([...c.first].sort());
    for (const name of c.absent ?? []) expect(found).not.toContain(name);
    if (c.top?.length === 0) expect(found).toEqual([]);
  });

  it.each(cases.filter((c) => (c.top ?? c.first ?? []).length > 0).map((c) => [c.query, c] as const))(
    'GET /groups?q=%s: the group of the best tool first',
    async (query, c) => {
      const { body } = await get(`${gateway.url}/lite/groups?q=${encodeURIComponent(query)}`);
      expect(ids(body)[0]).toBe(folderOf.get((c.top ?? c.first)![0]!));
    },
  );
});
