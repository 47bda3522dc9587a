/**
 * Listings are built from signatures serialized once per catalog
 * (`signatureJson`, `listingJson`), not by JSON.stringify per request.
 * The bytes must be exactly what `c.json({ items, paging })` sent before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Catalog, CatalogTool } from '../../../src/catalog/catalog.ts';
import { listingJson } from '../../../src/faces/a2t/listing-json.ts';
import { servedSignature } from '../../../src/faces/a2t/served-signature.ts';
import type { CompiledTool } from '../../../src/compile/compile-tool.ts';
import { toolIdFor } from '../../../src/compile/tool-signature.ts';
import { startTestGateway } from '../../support/start-test-gateway.ts';

/** An audience that may see every tool: the gateway here has no callers file. */
const EVERYONE = { mayFind: () => true, mayList: () => true, key: 'anyone' };

describe('listingJson', () => {
  it.each([
    [[], { pageLimit: 20, next: null }],
    [[{ a: 1 }], { pageLimit: 1, next: 'eyJ4Ijoi.c2ln' }],
    [
      [{ name: 'é — ✓ 𝄞', s: '"\\\n\u2028' }, { b: [1, { c: null }] }, {}],
      { pageLimit: 100, next: 'a"b\\c' },
    ],
  ])('is JSON.stringify({ items, paging }) of %j', (items, paging) => {
    const built = listingJson(
      items.map((item) => JSON.stringify(item)),
      paging,
    );
    expect(built).toBe(JSON.stringify({ items, paging }));
  });
});

describe('the A2T face serves the same bytes as before', () => {
  let gateway: Awaited<ReturnType<typeof startTestGateway>>;
  let catalog: Catalog;
  beforeAll(async () => {
    gateway = await startTestGateway('sculpts', {
      PETSTORE_BASE_URL: 'http://127.0.0.1:9/v2',
      PETSTORE3_BASE_URL: 'http://127.0.0.1:9/api/v3',
    });
    catalog = gateway.catalog();
  });
  afterAll(async () => {
    await gateway?.close();
  });

  async function get(path: string): Promise<{ text: string; type: string | null; status: number }> {
    const res = await fetch(`${gateway.url}${path}`);
    return { text: await res.text(), type: res.headers.get('content-type'), status: res.status };
  }

  /** The old body: `c.json({ items: signatures, paging: { pageLimit, next } })`. */
  const oldBody = (items: CompiledTool[], pageLimit: number, next: string | null) =>
    JSON.stringify({
      items: items.map((t) => servedSignature(catalog, EVERYONE, t)),
      paging: { pageLimit, next },
    });

  it.each([
    ['', 20],
    ['pageLimit=1', 1],
    ['pageLimit=2&tag=petstore', 2],
    ['tag=retrievals&tag=petstore', 20],
    ['tag=retrievals&pageLimit=1', 1],
    ['version=2', 20],
    ['version=1&pageLimit=1', 1],
    ['tag=nothing', 20],
    ['pageLimit=500', 100],
  ])('GET /tools?%s, every page by its cursor', async (query, pageLimit) => {
    const params = new URLSearchParams(query);
    const tags = [...new Set(params.getAll('tag'))].sort();
    const version = params.get('version') === null ? undefined : Number(params.get('version'));
    let after: string | undefined;
    let next: string | null = null;
    let pages = 0;
    do {
      const path: string = `/tools?${query}${next === null ? '' : `&pageCursor=${encodeURIComponent(next)}`}`;
      const { text, type, status } = await get(path);
      expect(status).toBe(200);
      expect(type).toBe('application/json');
      next = (JSON.parse(text) as { paging: { next: string | null } }).paging.next;
      const page: CatalogTool[] = catalog
        .list({ tags, ...(version !== undefined ? { version } : {}) }, after, pageLimit + 1)
        .slice(0, pageLimit);
      expect(text).toBe(
        oldBody(
          page.map((t) => t.current),
          pageLimit,
          next,
        ),
      );
      after = page.at(-1)?.name;
      pages++;
    } while (next !== null && pages < 50);
    expect(next).toBeNull();
  });

  it('GET /tools/{id}/versions, paged, and each version and tool alone', async () => {
    const tool = catalog.tool(toolIdFor('find_pets_by_status'))!;
    expect(tool.versions.length).toBeGreaterThan(1);
    const all = await get(`/tools/${tool.toolId}/versions`);
    expect(all.text).toBe(oldBody(tool.versions, 20, null));
    const first = await get(`/tools/${tool.toolId}/versions?pageLimit=1`);
    const next = (JSON.parse(first.text) as { paging: { next: string } }).paging.next;
    expect(first.text).toBe(oldBody(tool.versions.slice(0, 1), 1, next));
    const second = await get(
      `/tools/${tool.toolId}/versions?pageLimit=1&pageCursor=${encodeURIComponent(next)}`,
    );
    const secondNext = (JSON.parse(second.text) as { paging: { next: string | null } }).paging.next;
    expect(second.text).toBe(oldBody(tool.versions.slice(1, 2), 1, secondNext));
    for (const version of tool.versions) {
      const one = await get(`/tools/${tool.toolId}/versions/${version.signature.version}`);
      expect(one.text).toBe(JSON.stringify(servedSignature(catalog, EVERYONE, version)));
      expect(one.type).toBe('application/json');
    }
    const current = await get(`/tools/${tool.toolId}`);
    expect(current.text).toBe(JSON.stringify(servedSignature(catalog, EVERYONE, tool.current)));
  });
});
