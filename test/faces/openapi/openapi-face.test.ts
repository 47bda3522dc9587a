/**
 * The gateway's own OpenAPI 3.1 document over real HTTP: valid by swagger-parser and
 * by an independent validator (@seriousme/openapi-schema-validator, the OpenAPI Initiative's JSON
 * Schemas), one typed operation per tool from the one schema generator, filtered by the caller's
 * tenant, and loaded by a client nobody here wrote (openapi-client-axios) that calls the tools,
 * the A2T and the a2t-lite endpoints through it. The typed operations' errors, the docs page's
 * files.
 */
import { readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Validator } from '@seriousme/openapi-schema-validator';
import { isAxiosError } from 'axios';
import { OpenAPIClientAxios } from 'openapi-client-axios';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolSchema } from '../../../src/compile/tool-schema.ts';
import { toolIdFor } from '../../../src/compile/tool-signature.ts';
import { loadRecordings, startReplayServer } from '../../../src/replay/index.ts';
import { replayEnv } from '../../../src/testing/index.ts';
import { type LabBackend, labUser, startLabBackend } from '../../engine/lab-backend.ts';
import { type PetstoreBackend, startPetstoreBackend } from '../../support/petstore-backend.ts';
import { startTestGateway } from '../../support/start-test-gateway.ts';
import { nestedSamples, nestedTenancy, REPO } from '../a2t-lite/lite-fixtures.ts';

type TestGateway = Awaited<ReturnType<typeof startTestGateway>>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const TOOLS = [
  'count_pets_in_stock',
  'describe_pet',
  'find_pets_by_status',
  'list_available_pets',
  'lookup_weather_by_city',
];

async function documentOf(url: string, headers: Record<string, string> = {}): Promise<Json> {
  const res = await fetch(`${url}/openapi.json`, { headers });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return res.json();
}

/** Both validators' verdicts on a document: undefined when valid, else why not. */
async function verdicts(doc: Json): Promise<{ swaggerParser?: string; seriousme?: string }> {
  const out: { swaggerParser?: string; seriousme?: string } = {};
  try {
    await SwaggerParser.validate(structuredClone(doc));
  } catch (err) {
    out.swaggerParser = (err as Error).message;
  }
  const validator = new Validator();
  const result = await validator.validate(structuredClone(doc));
  if (!result.valid) out.seriousme = JSON.stringify(result.errors).slice(0, 500);
  return out;
}

describe('the OpenAPI document of a gateway serving the samples in folders', () => {
  let root: string;
  let gateway: TestGateway;
  let replay: Awaited<ReturnType<typeof startReplayServer>>;
  let petstore: PetstoreBackend;
  let doc: Json;

  beforeAll(async () => {
    root = await nestedSamples();
    replay = await startReplayServer(await loadRecordings([path.join(REPO, 'sculpts/weather/recordings')]));
    petstore = await startPetstoreBackend();
    gateway = await startTestGateway(
      root,
      {
        ...(await replayEnv(path.join(REPO, 'sculpts/weather'), replay.url)),
        PETSTORE_BASE_URL: `${petstore.url}/v2`,
        PETSTORE3_BASE_URL: `${petstore.url}/api/v3`,
        // The validators below run in this process for seconds: no shedding for the lag they cause.
      },
      { shedLagMs: 0 },
    );
    doc = await documentOf(gateway.url);
  });
  afterAll(async () => {
    await gateway?.close();
    await replay?.close();
    await petstore?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('is OpenAPI 3.1, valid by swagger-parser and by @seriousme/openapi-schema-validator', async () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(await verdicts(doc)).toEqual({});
    expect(new Validator().resolveRefs).toBeDefined();
  });

  it('is refused by both validators once broken (they can fail)', async () => {
    // swagger-parser resolves every $ref: one to nothing fails it.
    const dangling = structuredClone(doc);
    dangling.paths['/call/describe_pet'].post.responses['404'] = { $ref: '#/components/responses/Nope' };
    expect((await verdicts(dangling)).swaggerParser).toMatch(/Nope/);
    const noResponses = structuredClone(doc);
    delete noResponses.paths['/lite/tools'].get.responses['200'].description;
    const v = await verdicts(noResponses);
    expect(v.swaggerParser).toBeDefined();
    expect(v.seriousme).toBeDefined();
  });

  it('has one typed operation per tool: the input schema in, the output schema out, problem details', () => {
    const calls = Object.keys(doc.paths).filter((p) => p.startsWith('/call/'));
    expect(calls).toEqual(TOOLS.map((t) => `/call/${t}`));
    for (const name of TOOLS) {
      const op = doc.paths[`/call/${name}`].post;
      const schema = toolSchema(gateway.catalog().named(name)!.current);
      expect(op.operationId).toBe(name);
      expect(op.description).toBe(schema.description);
      expect(op.requestBody.content['application/json'].schema).toEqual(schema.inputSchema);
      expect(op.responses['200'].content['application/json'].schema).toEqual(schema.outputSchema);
      for (const status of ['400', '404', '422', '502', '503', '504']) {
        expect(op.responses[status], `${name} ${status}`).toEqual({
          $ref: `#/components/responses/Problem${status}`,
        });
      }
      // Without a callers file nobody is refused as unauthenticated: no 401 is declared.
      expect(op.responses['401']).toBeUndefined();
    }
    expect(doc.components.responses.Problem422.description).toMatch(/tool\.error/);
    expect(doc.components.responses.Problem404.content['application/problem+json'].schema).toEqual({
      $ref: '#/components/schemas/Problem',
    });
    expect(doc.paths['/call/lookup_weather_by_city'].post.tags).toEqual(['outdoors.weather']);
    expect(doc.tags.map((t: { name: string }) => t.name)).toEqual(
      expect.arrayContaining(['outdoors.weather', 'pets.petstore', 'pets.petstore3', 'A2T', 'a2t-lite']),
    );
  });

  it('describes the A2T and a2t-lite endpoints', () => {
    expect(Object.keys(doc.paths).filter((p) => !p.startsWith('/call/'))).toEqual([
      '/tools',
      '/tools/{toolId}',
      '/tools/{toolId}/versions',
      '/tools/{toolId}/versions/{version}',
      '/tools/{toolId}:invoke',
      '/tools/{toolId}/versions/{version}:invoke',
      '/lite/.well-known/a2t-capabilities.json',
      '/lite/tools',
      '/lite/tools/{name}',
      '/lite/groups',
      '/lite/groups/{id}/tools',
      '/lite/groups/{id}/tools/{name}',
    ]);
    expect(doc.servers).toEqual([{ url: '/', description: expect.any(String) }]);
    expect(doc.security).toBeUndefined();
  });

  describe('through openapi-client-axios (a client nobody here wrote)', () => {
    let client: Json;
    beforeAll(async () => {
      const api = new OpenAPIClientAxios({
        definition: `${gateway.url}/openapi.json`,
        withServer: { url: gateway.url },
      });
      client = await api.init();
    });

    it('calls a tool as a typed operation', async () => {
      const answer = await client.lookup_weather_by_city(null, { city: 'New York', day: 'TOMORROW' });
      expect(answer.status).toBe(200);
      expect(answer.data).toEqual({
        temperature_f: 38,
        forecast: 'Mostly Sunny',
        place: 'New York, New York, US',
      });
      const pets = await client.find_pets_by_status(null, { status: 'AVAILABLE' });
      expect(pets.status).toBe(200);
      expect(Object.keys(pets.data)).toEqual(expect.arrayContaining(['pets']));
    });

    it('gets the tool’s error as problem details', async () => {
      const failed = await client
        .lookup_weather_by_city(null, { city: 'London' })
        .catch((err: unknown) => err);
      expect(isAxiosError(failed)).toBe(true);
      expect(failed.response.status).toBe(422);
      expect(failed.response.headers['content-type']).toBe('application/problem+json');
      expect(failed.response.data).toMatchObject({
        type: 'urn:sculptor:error:tool.error',
        status: 422,
        code: 'tool.error',
        retryable: false,
      });
    });

    it('reaches the A2T and a2t-lite endpoints by their operation ids', async () => {
      const listed = await client['a2t.listTools']({ q: 'weather', pageLimit: 1 });
      expect(listed.data.items.map((t: { name: string }) => t.name)).toEqual(['lookup_weather_by_city']);
      const invoked = await client['a2t.invoke'](
        { toolId: toolIdFor('lookup_weather_by_city') },
        { name: 'lookup_weather_by_city', input_parameters: [{ name: 'city', value: 'New York' }] },
      );
      expect(invoked.data.output_parameters).toContainEqual({ name: 'forecast', value: 'Sunny' });
      const groups = await client['lite.listGroups']({ parent_id: 'pets' });
      expect(groups.data.groups.map((g: { id: string }) => g.id)).toEqual([
        'pets.petstore',
        'pets.petstore3',
      ]);
      const called = await client['lite.groupCall'](
        { id: 'outdoors', name: 'lookup_weather_by_city' },
        { city: 'New York' },
      );
      expect(called.data.result.forecast).toBe('Sunny');
    });
  });

  describe('POST /call/{name}', () => {
    const call = (name: string, body: string, type = 'application/json') =>
      fetch(`${gateway.url}/call/${name}`, { method: 'POST', headers: { 'content-type': type }, body });

    it('answers the outputs as one object, and reports it like any invocation', async () => {
      const before = gateway.reports.length;
      const res = await call('lookup_weather_by_city', '{"city":"New York"}');
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(await res.json()).toEqual({
        temperature_f: 22,
        forecast: 'Sunny',
        place: 'New York, New York, US',
      });
      expect(gateway.reports.slice(before)).toEqual([
        expect.objectContaining({ tool: 'lookup_weather_by_city', outcome: 'ok' }),
      ]);
    });

    it.each([
      ['nope', '{}', 'application/json', 404, 'tool.not_found'] as const,
      ['lookup_weather_by_city', '{"city":3}', 'application/json', 400, 'input.invalid'],
      ['lookup_weather_by_city', '[1]', 'application/json', 400, 'input.invalid'],
      ['lookup_weather_by_city', '{', 'application/json', 400, 'request.malformed'],
      ['lookup_weather_by_city', '{}', 'text/plain', 415, 'request.unsupported_media_type'],
      [
        'lookup_weather_by_city',
        JSON.stringify({ city: 'x'.repeat(70_000) }),
        'application/json',
        413,
        'request.too_large',
      ],
    ])('%s (%#): %i %s as problem details', async (name, body, type, status, code) => {
      const res = await call(name, body, type);
      expect(res.status).toBe(status);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      const problem = (await res.json()) as Json;
      expect(problem).toMatchObject({ type: `urn:sculptor:error:${code}`, status, code });
      if (code === 'tool.not_found') expect(problem.detail).toBe('No tool named nope.');
    });

    it('answers GET with 405 and Allow: POST', async () => {
      const res = await fetch(`${gateway.url}/call/lookup_weather_by_city`);
      expect([res.status, res.headers.get('allow')]).toEqual([405, 'POST']);
    });
  });

  describe('GET /docs', () => {
    it('serves the page with a same-origin-only policy, and Swagger UI from the installed package', async () => {
      const page = await fetch(`${gateway.url}/docs`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
      const html = await page.text();
      expect(html).toContain('src="/docs/swagger-ui-bundle.js"');
      expect(html).not.toMatch(/https?:\/\//);
      expect(html).not.toContain('token-form');
      const bundle = await fetch(`${gateway.url}/docs/swagger-ui-bundle.js`);
      expect(bundle.status).toBe(200);
      expect(bundle.headers.get('content-type')).toMatch(/^text\/javascript/);
      const shipped = await readFile(path.join(REPO, 'node_modules/swagger-ui-dist/swagger-ui-bundle.js'));
      expect(Buffer.from(await bundle.arrayBuffer()).equals(shipped)).toBe(true);
      expect((await fetch(`${gateway.url}/docs/docs.js`)).status).toBe(200);
    });

    it('serves no other file of the package, nor anything by a dot segment', async () => {
      for (const file of ['package.json', 'index.js', 'swagger-ui-bundle.js.map', '..%2Fpackage.json']) {
        const res = await fetch(`${gateway.url}/docs/${file}`);
        expect(res.status, file).toBe(404);
      }
      // fetch would resolve the dot segment itself: send the path as written.
      const dotted = await new Promise<number>((resolve, reject) => {
        http
          .get(`${gateway.url}/docs/%2e%2e/openapi.json`, { path: '/docs/%2e%2e/openapi.json' }, (res) => {
            res.resume();
            resolve(res.statusCode!);
          })
          .on('error', reject);
      });
      expect(dotted).toBe(400);
    });
  });
});

describe('the OpenAPI document below SCULPTOR_PREFIX', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway(
      'sculpts',
      { PETSTORE_BASE_URL: 'http://127.0.0.1:9/v2' },
      // The validators run in this process (verdicts): no shedding for the lag they cause.
      { prefix: '/a2t', shedLagMs: 0 },
    );
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('names {platform-root} as its server, and is served, with the page and the calls, below it', async () => {
    const doc = await documentOf(`${gateway.url}/a2t`);
    expect(doc.servers[0].url).toBe('/a2t');
    expect(await verdicts(doc)).toEqual({});
    expect(await (await fetch(`${gateway.url}/a2t/docs`)).text()).toContain('data-root="/a2t"');
    const call = await fetch(`${gateway.url}/a2t/call/nope`, { method: 'POST' });
    expect(call.status).toBe(404);
    expect((await fetch(`${gateway.url}/openapi.json`)).status).toBe(404);
  });
});

describe('the OpenAPI document is filtered by the caller’s tenant', () => {
  const ACME = 'acme-token-0123456789abcdefghij';
  const GLOBEX = 'globex-token-0123456789abcdefghij';
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  let root: string;
  let lab: LabBackend;
  let gateway: TestGateway;

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
      // The validators run in this process (verdicts): no shedding for the lag they cause.
      { callers: path.join(REPO, 'test/hardening/fixtures/tenancy-callers.yaml'), shedLagMs: 0 },
    );
  });
  afterAll(async () => {
    await gateway?.close();
    await lab?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('lists each tenant’s own tools, declares the bearer scheme and the 401, and stays valid', async () => {
    const acme = await documentOf(gateway.url, bearer(ACME));
    const globex = await documentOf(gateway.url, bearer(GLOBEX));
    const calls = (d: Json) => Object.keys(d.paths).filter((p) => p.startsWith('/call/'));
    expect(calls(acme)).toContain('/call/public_stats');
    expect(calls(globex)).toEqual([
      '/call/tenant_balance',
      '/call/tenant_whoami',
      '/call/tenant_whoami_fresh',
      '/call/user_whoami',
    ]);
    expect(JSON.stringify(globex)).not.toContain('public_stats');
    expect(globex.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(globex.security).toEqual([{ bearer: [] }]);
    expect(globex.paths['/call/tenant_whoami'].post.responses['401']).toBeDefined();
    expect(await verdicts(globex)).toEqual({});
  });

  it('refuses the document and the calls without a token (401 problem, challenge)', async () => {
    for (const res of [
      await fetch(`${gateway.url}/openapi.json`),
      await fetch(`${gateway.url}/call/tenant_whoami`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      }),
    ]) {
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
      expect(((await res.json()) as Json).code).toBe('auth.unauthenticated');
    }
    expect(await (await fetch(`${gateway.url}/docs`)).text()).toContain('token-form');
  });

  it('calls with the tenant’s credentials; another tenant’s tool answers like a missing one', async () => {
    const post = (name: string, token: string) =>
      fetch(`${gateway.url}/call/${name}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(token) },
        body: '{}',
      });
    expect(await (await post('tenant_whoami', GLOBEX)).json()).toEqual({ user: labUser('globex-lab-key') });
    const before = lab.requests.length;
    const hidden = await post('public_stats', GLOBEX);
    const missing = await post('no_such_tool', GLOBEX);
    expect([hidden.status, missing.status]).toEqual([404, 404]);
    expect(((await hidden.json()) as Json).code).toBe('tool.not_found');
    expect(lab.requests.length).toBe(before);
  });
});
