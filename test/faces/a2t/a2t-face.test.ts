import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServedSignature } from '../../../src/faces/a2t/served-signature.ts';
import { toolIdFor } from '../../../src/compile/tool-signature.ts';
import { type PetstoreBackend, startPetstoreBackend } from '../../support/petstore-backend.ts';
import { getJson, startTestGateway } from '../../support/start-test-gateway.ts';

let backend: PetstoreBackend;
let gateway: Awaited<ReturnType<typeof startTestGateway>>;
const id = (name: string) => toolIdFor(name);

beforeAll(async () => {
  backend = await startPetstoreBackend();
  gateway = await startTestGateway('sculpts', {
    PETSTORE_BASE_URL: `${backend.url}/v2`,
    PETSTORE3_BASE_URL: `${backend.url}/api/v3`,
  });
});
afterAll(async () => {
  await gateway?.close();
  await backend?.close();
});

describe('enumeration (A2T §6.1, §6.4)', () => {
  it('pages through every tool exactly once at pageLimit=1, in name order', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 100; page++) {
      const query: string = cursor ? `?pageLimit=1&pageCursor=${encodeURIComponent(cursor)}` : '?pageLimit=1';
      const { status, body } = await getJson(`${gateway.url}/tools${query}`);
      expect(status).toBe(200);
      const items = body.items as ServedSignature[];
      expect(items.length).toBeLessThanOrEqual(1);
      expect(body.paging).toMatchObject({ pageLimit: 1 });
      seen.push(...items.map((t) => t.name));
      cursor = (body.paging as { next: string | null }).next;
      if (!cursor) break;
    }
    expect(seen).toHaveLength(gateway.catalog().size);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual([...seen].sort());
  });

  it('serves each tool at its latest version with the A2T signature shape', async () => {
    const { body } = await getJson(`${gateway.url}/tools`);
    const tool = (body.items as ServedSignature[]).find((t) => t.name === 'find_pets_by_status')!;
    expect(tool).toEqual({
      toolId: id('find_pets_by_status'),
      name: 'find_pets_by_status',
      description: expect.stringContaining('sale status'),
      version: 2,
      currentVersion: 2,
      tags: ['petstore', 'retrievals'],
      input_parameters: [
        {
          id: 'status',
          name: 'status',
          type: 'enum',
          description: 'Which pets to list, by sale status.',
          required: true,
          'allowed-values': [
            { name: 'AVAILABLE', description: 'Pets that can be bought now.' },
            { name: 'PENDING', description: 'Pets with a purchase in progress.' },
            { name: 'SOLD', description: 'Pets already sold.' },
          ],
        },
        {
          id: 'limit',
          name: 'limit',
          type: 'int',
          description: 'The most pets to return (1 to 50, default 20).',
          required: false,
          min: 1,
          max: 50,
        },
      ],
      output_parameters: [
        {
          id: 'pets',
          name: 'pets',
          type: 'json',
          description: 'Pets with this status, each with its id and name.',
        },
        { id: 'count', name: 'count', type: 'int', description: 'How many pets have this status in all.' },
      ],
    });
    expect(body.paging).toEqual({ pageLimit: 20, next: null });
  });

  it('derives a stable UUID toolId from the name (same across restarts and replicas)', () => {
    // Pinned: changing the derivation would break every client that stored an id.
    expect(id('lookup_weather_by_city')).toBe(toolIdFor('lookup_weather_by_city'));
    expect(id('find_pets_by_status')).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(id('count_pets_in_stock')).toBe('329be2f1-bed4-591a-87ba-6e1a914e8f21');
  });

  it('filters by tag (all given tags) and by current version', async () => {
    const names = async (query: string) =>
      ((await getJson(`${gateway.url}/tools?${query}`)).body.items as ServedSignature[]).map((t) => t.name);
    expect(await names('tag=inventory')).toEqual(['count_pets_in_stock']);
    expect(await names('tag=petstore&tag=inventory')).toEqual(['count_pets_in_stock']);
    expect(await names('tag=nothing')).toEqual([]);
    const atVersion2 = (await getJson(`${gateway.url}/tools?version=2`)).body.items as ServedSignature[];
    expect(atVersion2.map((t) => t.name)).toContain('find_pets_by_status');
    expect(atVersion2.map((t) => t.name)).not.toContain('describe_pet');
    for (const t of atVersion2) expect(t.currentVersion).toBe(2);
  });

  it.each([
    ['pageLimit=0', 1],
    ['pageLimit=-1', 1],
    ['pageLimit=1000', 100],
    ['pageLimit=2', 2],
  ])('clamps %s to %i and echoes the effective limit', async (query, limit) => {
    const { status, body } = await getJson(`${gateway.url}/tools?${query}`);
    expect(status).toBe(200);
    expect((body.paging as { pageLimit: number }).pageLimit).toBe(limit);
    expect((body.items as unknown[]).length).toBeLessThanOrEqual(limit);
  });

  it.each([
    'pageLimit=abc',
    'pageLimit=1.5',
    'pageLimit=1e9',
    'pageLimit=1&pageLimit=2',
    'pageCursor=forged',
    'pageCursor=eyJhIjoxfQ.AAAAAAAAAAAAAAAAAAAAAA',
    `pageCursor=${'x'.repeat(600)}`,
    'version=0',
    'version=abc',
  ])('answers 400 problem details for %s', async (query) => {
    const res = await fetch(`${gateway.url}/tools?${query}`);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(((await res.json()) as { code: string }).code).toMatch(/^request\./);
  });

  it('refuses a cursor minted for another listing', async () => {
    const first = await getJson(`${gateway.url}/tools?pageLimit=1&tag=petstore`);
    const cursor = (first.body.paging as { next: string }).next;
    expect(cursor).toBeTruthy();
    const other = await fetch(`${gateway.url}/tools?pageLimit=1&pageCursor=${encodeURIComponent(cursor)}`);
    expect(other.status).toBe(400);
  });
});

describe('tool details and versions (A2T §6.2, §6.3)', () => {
  it('gets one tool at its current version', async () => {
    const { status, body } = await getJson(`${gateway.url}/tools/${id('find_pets_by_status')}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ name: 'find_pets_by_status', version: 2, currentVersion: 2 });
  });

  it('lists versions most recent first, paged, and gets an old version with its own signature', async () => {
    const tool = id('find_pets_by_status');
    const all = await getJson(`${gateway.url}/tools/${tool}/versions`);
    expect((all.body.items as ServedSignature[]).map((v) => [v.version, v.currentVersion])).toEqual([
      [2, 2],
      [1, 2],
    ]);
    const page1 = await getJson(`${gateway.url}/tools/${tool}/versions?pageLimit=1`);
    expect((page1.body.items as ServedSignature[]).map((v) => v.version)).toEqual([2]);
    const next = (page1.body.paging as { next: string }).next;
    const page2 = await getJson(
      `${gateway.url}/tools/${tool}/versions?pageLimit=1&pageCursor=${encodeURIComponent(next)}`,
    );
    expect((page2.body.items as ServedSignature[]).map((v) => v.version)).toEqual([1]);
    expect(page2.body.paging).toEqual({ pageLimit: 1, next: null });

    const v1 = await getJson(`${gateway.url}/tools/${tool}/versions/1`);
    expect(v1.body).toMatchObject({ version: 1, currentVersion: 2 });
    expect((v1.body.input_parameters as unknown[]).length).toBe(1);
  });

  it.each([
    [`/tools/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}`, 'tool.not_found'],
    [`/tools/${id('find_pets_by_status')}/versions/3`, 'tool.version_not_found'],
    ['/tools/not-a-uuid', 'request.not_found'],
    [`/tools/${id('find_pets_by_status').toUpperCase()}`, 'request.not_found'],
    [`/tools/${id('find_pets_by_status')}/versions/0`, 'request.not_found'],
    [`/tools/${id('find_pets_by_status')}/versions/01`, 'request.not_found'],
    [`/tools/${id('find_pets_by_status')}/`, 'request.not_found'],
    [`/tools/${id('find_pets_by_status')};v=1`, 'request.not_found'],
    ['/nothing', 'request.not_found'],
  ])('GET %s → 404 %s', async (path, code) => {
    const res = await fetch(`${gateway.url}${path}`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { code: string }).code).toBe(code);
  });
});

describe('the {platform-root} prefix (A2T §6.1)', () => {
  it('serves every A2T route below SCULPTOR_PREFIX and nothing at the bare paths', async () => {
    const prefixed = await startTestGateway(
      'sculpts',
      { PETSTORE_BASE_URL: `${backend.url}/v2`, PETSTORE3_BASE_URL: `${backend.url}/api/v3` },
      { prefix: '/a2t/v1' },
    );
    try {
      const list = await getJson(`${prefixed.url}/a2t/v1/tools?pageLimit=1`);
      expect(list.status).toBe(200);
      const next = (list.body.paging as { next: string }).next;
      expect(
        (await getJson(`${prefixed.url}/a2t/v1/tools?pageLimit=1&pageCursor=${encodeURIComponent(next)}`))
          .status,
      ).toBe(200);
      expect(
        (await getJson(`${prefixed.url}/a2t/v1/tools/${id('describe_pet')}/versions/1`)).body,
      ).toMatchObject({ version: 1 });
      const res = await fetch(`${prefixed.url}/a2t/v1/tools/${id('describe_pet')}:invoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'describe_pet', input_parameters: [{ name: 'pet_number', value: 1 }] }),
      });
      expect(res.status).toBe(200);
      expect((await fetch(`${prefixed.url}/tools`)).status).toBe(404);
      expect((await fetch(`${prefixed.url}/a2t/tools`)).status).toBe(404);
      expect((await fetch(`${prefixed.url}/livez`)).status).toBe(200);
    } finally {
      await prefixed.close();
    }
  });
});
