/**
 * `tools/list` past one page (pages of 100, Sculptor's signed cursor in `nextCursor`), and the
 * annotations of a tool per HTTP method, over a folder generated into a temp dir: 230 reading
 * tools and a POST, a PUT and a DELETE one, all over a loopback backend, listed by the official
 * SDK client in each era.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway } from '../../support/start-test-gateway.ts';
import { httpClient } from './mcp-client.ts';

const READERS = 230;
const readerName = (i: number) => `shelf_item_${String(i).padStart(3, '0')}`;
const WRITERS = { add_item: 'POST', replace_item: 'PUT', remove_item: 'DELETE' } as const;
/** Every tool, in the order the catalog lists names (code-unit order). */
const ALL = [...Array.from({ length: READERS }, (_, i) => readerName(i)), ...Object.keys(WRITERS)].sort();

let backend: http.Server & { calls: string[] };
let dir: string;
let gateway: Awaited<ReturnType<typeof startTestGateway>>;

beforeAll(async () => {
  backend = Object.assign(
    http.createServer((req, res) => {
      backend.calls.push(`${req.method} ${req.url}`);
      const n = Number(/\/items\/(\d+)/.exec(req.url ?? '')?.[1] ?? 231);
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ n, name: `item ${n}` }));
    }),
    { calls: [] as string[] },
  );
  await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
  dir = await mkdtemp(path.join(tmpdir(), 'sculptor-mcp-paging-'));
  await writeShelf(dir);
  // Shedding off (test/hardening/load-shedding.test.ts has it): compiling 233 sculpts on a loaded
  // machine can lag the event loop past 500 ms, and a shed call is not what this file asserts.
  gateway = await startTestGateway(
    dir,
    { SHELF_URL: `http://127.0.0.1:${(backend.address() as AddressInfo).port}` },
    { shedLagMs: 0 },
  );
});
afterAll(async () => {
  await gateway?.close();
  await new Promise((resolve) => backend?.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

for (const revision of ['2026-07-28', '2025-11-25'] as const) {
  describe(`protocol ${revision}`, () => {
    let client: Client;
    beforeAll(async () => {
      client = await httpClient(`${gateway.url}/mcp`, revision);
    });
    afterAll(async () => {
      await client?.close();
    });

    /**
     * One page: the SDK's `listTools()` aggregates every page when given no cursor, so the first
     * page is asked for as a plain `tools/list` request, and the next ones by cursor.
     */
    const page = (cursor?: string) =>
      cursor === undefined ? client.request({ method: 'tools/list' }) : client.listTools({ cursor });

    it('lists every tool exactly once, in order, 100 a page, with no nextCursor on the last page', async () => {
      const pages: string[][] = [];
      const cursors: string[] = [];
      let cursor: string | undefined;
      do {
        const answer = await page(cursor);
        pages.push(answer.tools.map((t) => t.name));
        cursor = answer.nextCursor;
        if (cursor !== undefined) cursors.push(cursor);
      } while (cursor !== undefined && pages.length < 10);
      expect(pages.map((p) => p.length)).toEqual([100, 100, 33]);
      expect(pages.flat()).toEqual(ALL);
      expect(new Set(cursors).size).toBe(2);
      // The SDK's own walk (no cursor: every page, aggregated) follows the same cursors.
      const all = await client.listTools(undefined, { cacheMode: 'bypass' });
      expect(all.tools.map((t) => t.name)).toEqual(ALL);
      expect(all.nextCursor).toBeUndefined();
    });

    it('refuses a tampered cursor with JSON-RPC -32602, saying to list again without one', async () => {
      const { nextCursor } = await page();
      const [payload, mac] = nextCursor!.split('.');
      // Skip ahead: the same listing, a later key, the old signature.
      const [listing] = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')) as [string, string];
      const forged = `${Buffer.from(JSON.stringify([listing, readerName(199)])).toString('base64url')}.${mac}`;
      expect(forged).not.toBe(nextCursor);
      for (const cursor of [forged, `${nextCursor}x`, 'not-a-cursor']) {
        await expect(client.listTools({ cursor })).rejects.toMatchObject({
          code: -32602,
          message: expect.stringContaining('call tools/list again without a cursor'),
        });
      }
      // The untampered cursor still serves the second page.
      expect((await page(nextCursor)).tools[0]!.name).toBe(ALL[100]);
    });

    it('annotates each tool from its method: GET reads, PUT and DELETE are idempotent, DELETE destroys', async () => {
      const listed = await client.listTools(undefined, { cacheMode: 'bypass' });
      const tools = new Map(listed.tools.map((t) => [t.name, t]));
      const hints = (name: string) => {
        const { title: _title, ...rest } = tools.get(name)!.annotations!;
        return rest;
      };
      const open = { openWorldHint: true };
      expect(hints(readerName(0))).toEqual({
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        ...open,
      });
      expect(hints('add_item')).toEqual({
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        ...open,
      });
      expect(hints('replace_item')).toEqual({
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        ...open,
      });
      expect(hints('remove_item')).toEqual({
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: true,
        ...open,
      });
    });

    it('calls a tool of the last page and a DELETE tool through the backend', async () => {
      const before = backend.calls.length;
      const last = await client.callTool({ name: readerName(229), arguments: {} });
      expect(last.structuredContent).toEqual({ name: 'item 229' });
      const removed = await client.callTool({ name: 'remove_item', arguments: { n: 7 } });
      expect(removed.structuredContent).toEqual({ removed: 7 });
      expect(backend.calls.slice(before)).toEqual(['GET /items/229', 'DELETE /items/7']);
    });
  });
}

/** The shelf: its backend, its OpenAPI document, 230 reading tools and one tool per write method. */
async function writeShelf(into: string): Promise<void> {
  await mkdir(path.join(into, 'openapi'));
  await writeFile(
    path.join(into, 'backends.yaml'),
    [
      'backends:',
      '  shelf:',
      '    openapi: openapi/shelf.openapi.yaml',
      '    baseUrl: ${SHELF_URL:-http://127.0.0.1:9}',
      '    allowPrivate: true',
      '',
    ].join('\n'),
  );
  const item = {
    type: 'object',
    properties: { n: { type: 'integer' }, name: { type: 'string' } },
  };
  const answer = (schema: object) => ({
    '200': { description: 'The answer.', content: { 'application/json': { schema } } },
  });
  const nParam = { name: 'n', in: 'path', required: true, schema: { type: 'integer' } };
  const nameBody = {
    required: true,
    content: {
      'application/json': {
        schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      },
    },
  };
  // JSON is YAML: the document is written as JSON.
  const openapi = {
    openapi: '3.0.3',
    info: { title: 'Shelf (test fixture)', version: '1' },
    servers: [{ url: 'https://shelf.example.com' }],
    paths: {
      '/items': {
        post: { operationId: 'createItem', requestBody: nameBody, responses: answer(item) },
      },
      '/items/{n}': {
        get: { operationId: 'getItem', parameters: [nParam], responses: answer(item) },
        put: {
          operationId: 'replaceItem',
          parameters: [nParam],
          requestBody: nameBody,
          responses: answer(item),
        },
        delete: { operationId: 'deleteItem', parameters: [nParam], responses: answer(item) },
      },
    },
  };
  await writeFile(path.join(into, 'openapi', 'shelf.openapi.yaml'), JSON.stringify(openapi, null, 2));
  const sculpt = (lines: string[]) => `${lines.join('\n')}\n`;
  const writes: Array<Promise<void>> = [];
  for (let i = 0; i < READERS; i++) {
    writes.push(
      writeFile(
        path.join(into, `${readerName(i)}.v1.sculpt.yaml`),
        sculpt([
          `tool: ${readerName(i)}`,
          'version: 1',
          `description: Test tool. Reads item ${i} of the shelf; use it to test tools/list paging.`,
          'outputs:',
          "  name: { type: string, description: 'The item name.' }",
          'steps:',
          '  - id: item',
          '    call: shelf#getItem',
          `    params: '{ "n": ${i} }'`,
          'output: \'{ "name": $steps.item.name }\'',
        ]),
      ),
    );
  }
  const number = "  n: { type: int, min: 1, max: 1000, description: 'The item number.' }";
  const name = "  name: { type: string, maxLength: 20, description: 'The item name.' }";
  const writers: Record<keyof typeof WRITERS, string[]> = {
    add_item: [
      'inputs:',
      name,
      'outputs:',
      "  n: { type: int, description: 'The new item number.' }",
      'steps:',
      '  - id: item',
      '    call: shelf#createItem',
      '    body: \'{ "name": $inputs.name }\'',
      'output: \'{ "n": $steps.item.n }\'',
    ],
    replace_item: [
      'inputs:',
      number,
      name,
      'outputs:',
      "  name: { type: string, description: 'The item name now.' }",
      'steps:',
      '  - id: item',
      '    call: shelf#replaceItem',
      '    params: \'{ "n": $inputs.n }\'',
      '    body: \'{ "name": $inputs.name }\'',
      'output: \'{ "name": $steps.item.name }\'',
    ],
    remove_item: [
      'inputs:',
      number,
      'outputs:',
      "  removed: { type: int, description: 'The number of the item removed.' }",
      'steps:',
      '  - id: item',
      '    call: shelf#deleteItem',
      '    params: \'{ "n": $inputs.n }\'',
      'output: \'{ "removed": $steps.item.n }\'',
    ],
  };
  for (const [tool, lines] of Object.entries(writers)) {
    const method = WRITERS[tool as keyof typeof WRITERS];
    writes.push(
      writeFile(
        path.join(into, `${tool}.v1.sculpt.yaml`),
        sculpt([
          `tool: ${tool}`,
          'version: 1',
          `description: Test tool. Sends a ${method} to the shelf; use it to test the annotations of a ${method}.`,
          ...lines,
        ]),
      ),
    );
  }
  await Promise.all(writes);
}
