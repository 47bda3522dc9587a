/**
 * The MCP face over real HTTP, driven by the official SDK client in each protocol revision it
 * serves, against the sample Petstore sculpts with their recorded backend (a replay server).
 */
import { rawRequest } from '../../support/raw-request.ts';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSettings } from '../../../src/config/settings.ts';
import { loadRecordings, startReplayServer } from '../../../src/replay/index.ts';
import { replayEnv } from '../../../src/testing/index.ts';
import { startTestGateway } from '../../support/start-test-gateway.ts';
import { httpClient, REVISIONS } from './mcp-client.ts';

/** What a Streamable HTTP client sends with every POST. */
const MCP_POST_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

type TestGateway = Awaited<ReturnType<typeof startTestGateway>>;

const SCULPTS = 'sculpts/petstore';
let replay: Awaited<ReturnType<typeof startReplayServer>>;
let gateway: TestGateway;
let mcpUrl: string;

beforeAll(async () => {
  replay = await startReplayServer(await loadRecordings(['sculpts/petstore/recordings/petstore-v2.har']));
  gateway = await startTestGateway(SCULPTS, await replayEnv(SCULPTS, replay.url));
  mcpUrl = `${gateway.url}/mcp`;
});
afterAll(async () => {
  await gateway?.close();
  await replay?.close();
});

const errorMeta = (result: { _meta?: Record<string, unknown> }) =>
  result._meta?.['io.sculptor/error'] as
    { code: string; retryable: boolean; problems?: unknown[] } | undefined;

for (const revision of REVISIONS) {
  describe(`protocol ${revision}`, () => {
    let client: Client;
    beforeAll(async () => {
      client = await httpClient(mcpUrl, revision);
    });
    afterAll(async () => {
      await client?.close();
    });

    it('negotiates the revision asked for', () => {
      expect(client.getNegotiatedProtocolVersion()).toBe(revision);
      expect(client.getServerVersion()?.name).toBe('sculptor');
    });

    it('searches the tools with _meta["io.sculptor/search"] (an extension), most relevant first', async () => {
      const search = async (words: string) =>
        (await client.listTools({ _meta: { 'io.sculptor/search': words } })).tools.map((t) => t.name);
      expect((await search('sale status'))[0]).toBe('find_pets_by_status');
      expect((await search('describe a pet from its number'))[0]).toBe('describe_pet');
      expect(await search('zzqxv')).toEqual([]);
      // The SDK client keeps a plain listing for its ttlMs (2026-07-28) under the method alone, not
      // its _meta: after a listing, a search must bypass that cache (README, "Search").
      await client.listTools();
      const bypassing = await client.listTools(
        { _meta: { 'io.sculptor/search': 'zzqxv' } },
        { cacheMode: 'bypass' },
      );
      expect(bypassing.tools).toEqual([]);
    });

    it('lists each tool once, current version, with the schema, annotations and version in _meta', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['describe_pet', 'find_pets_by_status']);
      const find = tools.find((t) => t.name === 'find_pets_by_status')!;
      expect(find._meta).toMatchObject({ 'io.sculptor/version': 2 });
      expect(find.inputSchema).toMatchObject({
        type: 'object',
        additionalProperties: false,
        required: ['status'],
        properties: {
          status: { type: 'string', enum: ['AVAILABLE', 'PENDING', 'SOLD'] },
          limit: { type: 'integer', minimum: 1, maximum: 50 },
        },
      });
      // Each enum value's meaning is in the text the model reads.
      expect(JSON.stringify(find.inputSchema)).toContain('Pets with a purchase in progress');
      expect(find.inputSchema).not.toHaveProperty('oneOf');
      // A GET: reads, so repeating it is harmless (the POST, PUT and DELETE ones: mcp-paging.test.ts).
      expect(find.annotations).toEqual({
        title: 'Find Pets By Status',
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: true,
      });
      expect(find.outputSchema).toMatchObject({ type: 'object', required: ['pets', 'count'] });
    });

    it('calls a tool: structuredContent holds the outputs, and the text block the same JSON', async () => {
      const result = await client.callTool({ name: 'describe_pet', arguments: { pet_number: 10 } });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({
        name: 'doggie',
        status: 'AVAILABLE',
        category: 'Dogs',
        tags: ['friendly', 'small'],
      });
      const content = result.content as Array<{ type: string; text: string }>;
      expect(content).toHaveLength(1);
      expect(JSON.parse(content[0]!.text)).toEqual(result.structuredContent);
    });

    it('pins a version through _meta: version 1 knows no limit, the current one does', async () => {
      const args = { status: 'AVAILABLE', limit: 1 };
      const current = await client.callTool({ name: 'find_pets_by_status', arguments: args });
      expect(current.structuredContent).toEqual({ pets: [{ id: '10', name: 'doggie' }], count: 3 });
      const pinned = await client.callTool({
        name: 'find_pets_by_status',
        arguments: args,
        _meta: { 'io.sculptor/version': 1 },
      });
      expect(pinned.isError).toBe(true);
      expect(errorMeta(pinned)?.code).toBe('input.invalid');
      const v1 = await client.callTool({
        name: 'find_pets_by_status',
        arguments: { status: 'AVAILABLE' },
        _meta: { 'io.sculptor/version': 1 },
      });
      expect(v1.isError).toBeFalsy();
      expect((v1.structuredContent as { pets: unknown[] }).pets).toHaveLength(3);
    });

    it("answers a declared tool error as isError with the LLM's detail and the code in _meta", async () => {
      const result = await client.callTool({ name: 'describe_pet', arguments: { pet_number: 424242 } });
      expect(result.isError).toBe(true);
      expect((result.content as Array<{ text: string }>)[0]!.text).toContain('There is no pet number 424242');
      expect(errorMeta(result)).toEqual({ code: 'tool.error', retryable: false });
      expect(result.structuredContent).toBeUndefined();
    });

    it('answers invalid arguments as isError input.invalid, every problem listed, no backend call', async () => {
      const before = replay.requests.length;
      const result = await client.callTool({
        name: 'describe_pet',
        arguments: { pet_number: 0, colour: 'red' },
      });
      expect(result.isError).toBe(true);
      expect(errorMeta(result)?.code).toBe('input.invalid');
      expect(errorMeta(result)?.problems).toHaveLength(2);
      expect(replay.requests.length).toBe(before);
    });

    it('answers an unknown tool or version with JSON-RPC -32602', async () => {
      await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('No tool named no_such_tool'),
      });
      await expect(
        client.callTool({
          name: 'describe_pet',
          arguments: { pet_number: 1 },
          _meta: { 'io.sculptor/version': 7 },
        }),
      ).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('has no version 7') });
    });
  });
}

describe('the HTTP edge', () => {
  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(mcpUrl, { method: 'POST', headers: { ...MCP_POST_HEADERS, ...headers }, body });
  const initialize = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });

  it('refuses a foreign Origin or Host (DNS rebinding) with 403', async () => {
    expect((await post(initialize, { origin: 'http://evil.example' })).status).toBe(403);
    // fetch may not set Host: a plain node:http request does.
    expect(await rawStatus(mcpUrl, initialize, { host: 'evil.example' })).toBe(403);
    expect(await rawStatus(mcpUrl, initialize, { host: 'localhost' })).toBe(200);
    expect((await post(initialize, { origin: `http://localhost:1234` })).status).toBe(200);
  });

  it('counts the body: over 64 KiB is 413, not JSON is a parse error, not application/json is 415', async () => {
    const big = await post(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { x: 'y'.repeat(70_000) } }),
    );
    expect(big.status).toBe(413);
    const garbled = await post('{"jsonrpc":');
    expect(garbled.status).toBe(400);
    expect(await garbled.json()).toMatchObject({ error: { code: -32700 } });
    const text = await post(initialize, { 'content-type': 'text/plain' });
    expect(text.status).toBe(415);
  });

  it('serves no protected-resource metadata without a callers file', async () => {
    expect((await fetch(`${gateway.url}/.well-known/oauth-protected-resource/mcp`)).status).toBe(404);
  });
});

describe('SCULPTOR_ALLOWED_HOSTS', () => {
  let named: TestGateway;
  let url: string;
  beforeAll(async () => {
    // Read as the process reads it: comma-separated, spaces and case ignored.
    const { allowedHosts } = readSettings({
      SCULPTOR_ALLOWED_HOSTS: 'mcp.example.com, Agents.Example.org',
    });
    named = await startTestGateway(SCULPTS, await replayEnv(SCULPTS, replay.url), { allowedHosts });
    url = `${named.url}/mcp`;
  });
  afterAll(async () => {
    await named?.close();
  });
  const listTools = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
  const legacy = { 'mcp-protocol-version': '2025-11-25' };

  it('serves a Host or Origin the setting names, as well as loopback ones', async () => {
    const served: Array<Record<string, string>> = [
      { host: 'mcp.example.com' },
      { host: 'AGENTS.example.org:8443' },
      { host: 'localhost' },
      { host: 'mcp.example.com', origin: 'https://mcp.example.com' },
    ];
    for (const headers of served) {
      const res = await rawPost(url, listTools, { ...legacy, ...headers });
      expect(res.status, JSON.stringify(headers)).toBe(200);
      expect(res.body).toContain('describe_pet');
    }
  });

  it('refuses a Host or Origin it does not name with 403, saying what to set', async () => {
    const refused: Array<Record<string, string>> = [
      { host: 'other.example.com' },
      { host: 'mcp.example.com.evil.example' },
      { host: 'mcp.example.com', origin: 'https://evil.example' },
    ];
    for (const headers of refused) {
      const res = await rawPost(url, listTools, { ...legacy, ...headers });
      expect(res.status, JSON.stringify(headers)).toBe(403);
      const body = JSON.parse(res.body) as { jsonrpc: string; error: { code: number; message: string } };
      expect(body).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
      expect(body.error.message).toContain('add');
      expect(body.error.message).toContain('SCULPTOR_ALLOWED_HOSTS');
    }
  });
});

async function rawStatus(url: string, body: string, headers: Record<string, string>): Promise<number> {
  return (await rawPost(url, body, headers)).status;
}

/** A POST through node:http, which sends the Host header it is given (fetch does not). */
function rawPost(url: string, body: string, headers: Record<string, string>) {
  return rawRequest(url, { method: 'POST', headers: { ...MCP_POST_HEADERS, ...headers }, body });
}
