import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { compileSculpts } from '../../src/compile/compile-sculpts.ts';
import { initSculpt } from '../../src/designer/init-sculpt.ts';
import { lintTools } from '../../src/designer/lint-tools.ts';
import { enumName, snakeCase, toolNameFor } from '../../src/designer/scaffold-sculpt.ts';
import { createEngine } from '../../src/engine/invoke-tool.ts';
import type { BackendRequest } from '../../src/http/backend-client.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const ORDERS = path.join(here, 'fixtures/orders.openapi.yaml');

const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});
async function out(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sculptor-init-'));
  folders.push(dir);
  return dir;
}

describe('initSculpt on one operation', () => {
  it('exposes the semantic required parameters, typed as narrowly as A2T allows', async () => {
    const dir = await out();
    const result = await initSculpt({ openapi: ORDERS, operation: 'listShopOrders', out: dir });
    expect(result.toolName).toBe('list_orders_of_shop');
    expect(result.backends).toBe('created');
    const sculpt = parse(await readFile(result.sculptFile, 'utf8'));
    expect(sculpt.tool).toBe('list_orders_of_shop');
    expect(sculpt.description).toMatch(/Use it when the user asks to list the orders of a shop\.$/);
    expect(Object.keys(sculpt.inputs)).toEqual(['status', 'year', 'city']);
    expect(sculpt.inputs.status).toMatchObject({
      type: 'enum',
      description: 'Which orders to list, by status.',
    });
    expect(Object.keys(sculpt.inputs.status.values)).toEqual(['OPEN', 'CLOSED', 'ON_HOLD']);
    expect(sculpt.inputs.year).toMatchObject({ type: 'int', min: 2000, max: 2100 });
    expect(sculpt.inputs.city).toMatchObject({ type: 'string', maxLength: 80 });
  });

  it('hides ids, paging, formats and headers as constants, each with a REVIEW comment', async () => {
    const dir = await out();
    const result = await initSculpt({ openapi: ORDERS, operation: 'GET /shops/{shopId}/orders', out: dir });
    const text = await readFile(result.sculptFile, 'utf8');
    const params = parse(text).steps[0].params as string;
    expect(params).toContain('"shopId": "REPLACE_ME"');
    expect(params).toContain('"per_page": 10');
    expect(params).toContain('"format": "json"');
    expect(params).toContain('"X-Request-Id": "REPLACE_ME"');
    expect(params).not.toContain('Authorization');
    expect(params).not.toContain('note');
    expect(text).toMatch(
      /# REVIEW: shopId \(path\) — The shop's internal identifier: an identifier the LLM cannot know/,
    );
    expect(text).toMatch(/# REVIEW: per_page \(query\) — Results per page: a page size, fixed to 10/);
    expect(text).toMatch(/# note \(query\) — A free note: optional, left out/);
    expect(result.reviews).toBe((text.match(/# REVIEW:/g) ?? []).length);
  });

  it('trims the output to a few scalar fields of the success answer, preferred names first, plumbing left out', async () => {
    const dir = await out();
    const result = await initSculpt({ openapi: ORDERS, operation: 'listShopOrders', out: dir });
    const sculpt = parse(await readFile(result.sculptFile, 'utf8'));
    expect(Object.keys(sculpt.outputs)).toEqual(['name', 'status', 'created_at', 'total']);
    expect(sculpt.outputs.name.required).toBeUndefined(); // required in the schema: required here
    expect(sculpt.outputs.total).toMatchObject({
      type: 'int',
      required: false,
      description: 'How much the order costs, in cents.',
    });
  });

  it('writes a backends.yaml entry with credentials as an environment reference', async () => {
    const dir = await out();
    await initSculpt({ openapi: ORDERS, operation: 'listShopOrders', out: dir });
    const backends = parse(await readFile(path.join(dir, 'backends.yaml'), 'utf8'));
    expect(backends.backends.orders).toEqual({
      openapi: path.relative(dir, ORDERS).split(path.sep).join('/'),
      baseUrl: '${ORDERS_BASE_URL:-https://orders.example.com/v1}',
      headers: { Accept: 'application/json' },
      auth: [{ in: 'header', name: 'X-Api-Key', value: '${ORDERS_API_KEY}' }],
    });
  });

  it('adds to an existing backends.yaml, keeping its comments, and reuses a backend already using the document', async () => {
    const dir = await out();
    await writeFile(
      path.join(dir, 'backends.yaml'),
      '# Our backends.\nbackends:\n  other:\n    openapi: other.yaml # kept\n    baseUrl: https://other.example.com\n',
    );
    const first = await initSculpt({ openapi: ORDERS, operation: 'listShopOrders', out: dir });
    expect(first.backends).toBe('added');
    const text = await readFile(path.join(dir, 'backends.yaml'), 'utf8');
    expect(text).toMatch(/^# Our backends\./);
    expect(text).toMatch(/openapi: other\.yaml # kept/);
    expect(Object.keys(parse(text).backends)).toEqual(['other', 'orders']);
    const second = await initSculpt({
      openapi: ORDERS,
      operation: 'listShopOrders',
      out: dir,
      name: 'orders_again',
    });
    expect(second.backends).toBe('reused');
    expect(second.backend).toBe('orders');
  });

  it('refuses to overwrite a sculpt unless forced', async () => {
    const dir = await out();
    await initSculpt({ openapi: ORDERS, operation: 'listShopOrders', out: dir });
    await expect(initSculpt({ openapi: ORDERS, operation: 'listShopOrders', out: dir })).rejects.toThrow(
      /already exists/,
    );
    await expect(
      initSculpt({ openapi: ORDERS, operation: 'listShopOrders', out: dir, force: true }),
    ).resolves.toBeDefined();
  });

  it('names an unknown operation with close matches', async () => {
    const dir = await out();
    await expect(initSculpt({ openapi: ORDERS, operation: 'listShopOrder', out: dir })).rejects.toMatchObject(
      {
        code: 'compile.unknown_operation',
        message: expect.stringMatching(/Close matches: listShopOrders/),
      },
    );
  });

  it('compiles without lint warnings, and the engine maps the enum back to the backend value', async () => {
    const dir = await out();
    await initSculpt({ openapi: ORDERS, operation: 'listShopOrders', out: dir });
    const tools = await compileSculpts(dir, { ORDERS_API_KEY: 'key-from-env' });
    expect(lintTools(tools)).toEqual([]);
    const sent: BackendRequest[] = [];
    const engine = createEngine({
      sender: {
        async send(request) {
          sent.push(request);
          return {
            status: 200,
            headers: { 'content-type': 'application/json' },
            contentType: 'application/json',
            body: { id: 'o-1', name: 'Ada', status: 'on-hold', total: 1250, url: 'https://x' },
            bytes: 80,
          };
        },
      },
      cacheSecret: 'x'.repeat(32),
    });
    const answer = await engine.invoke(tools[0]!, {
      status: 'ON_HOLD',
      year: 2024,
      city: 'Lyon',
    });
    expect(new URL(sent[0]!.url).searchParams.get('status')).toBe('on-hold');
    expect(sent[0]!.headers['X-Api-Key']).toBe('key-from-env');
    expect(sent[0]!.url).toMatch(/^https:\/\/orders\.example\.com\/v1\/shops\/REPLACE_ME\/orders\?/);
    expect(answer.outputs).toEqual([
      { name: 'name', value: 'Ada' },
      { name: 'status', value: 'on-hold' },
      { name: 'total', value: 1250 },
    ]);
  });
});

describe('names', () => {
  it.each([
    ['getPetById', 'get_pet_by_id'],
    ['repos/list-for-org', 'repos_list_for_org'],
    ["Get an Artist's Top Tracks", 'get_an_artists_top_tracks'],
    ['IsoCountryCode', 'iso_country_code'],
    ['HTTPServerName', 'http_server_name'],
    ['2fa', 'n_2fa'],
  ])('snakeCase(%s) = %s', (text, expected) => {
    expect(snakeCase(text)).toBe(expected);
  });

  it.each([
    ['available', 'AVAILABLE'],
    ['on-hold', 'ON_HOLD'],
    ['.json', 'JSON'],
    ['2xx', 'V_2XX'],
  ])('enumName(%s) = %s', (value, expected) => {
    expect(enumName(value)).toBe(expected);
  });

  it('derives a tool name from a short summary, else the operationId, else the route', () => {
    const op = (o: object) => ({
      method: 'GET',
      path: '/albums/{id}',
      parameters: [],
      responses: {},
      security: [],
      deprecated: false,
      ...o,
    });
    expect(toolNameFor(op({ summary: 'Get an Album', operationId: 'x' }))).toBe('get_album');
    expect(toolNameFor(op({ summary: 'One two three four five six seven', operationId: 'albums/get' }))).toBe(
      'albums_get',
    );
    expect(toolNameFor(op({ description: '[Get an Album](https://example.com/docs)' }))).toBe('get_album');
    expect(toolNameFor(op({}))).toBe('get_albums');
    expect(toolNameFor(op({ method: 'DELETE', path: '/users/{u}/things' }))).toBe('delete_users_things');
  });
});
