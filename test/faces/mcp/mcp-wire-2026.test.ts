/**
 * The 2026-07-28 revision's stateless wire, asserted byte-level with raw fetch on loopback (the
 * SDK client hides it): `server/discover`, the `MCP-Protocol-Version` / `Mcp-Method` / `Mcp-Name`
 * headers checked against the body (Streamable HTTP, "Request Metadata": 400 + `-32020`
 * HeaderMismatch, before any tool runs), `resultType` on results, and the `ttlMs` / `cacheScope`
 * cache hints on `tools/list`. 2025-era requests carry none of it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRecordings, startReplayServer } from '../../../src/replay/index.ts';
import { replayEnv } from '../../../src/testing/index.ts';
import { startTestGateway } from '../../support/start-test-gateway.ts';

const SCULPTS = 'sculpts/petstore';
const REVISION = '2026-07-28';
let replay: Awaited<ReturnType<typeof startReplayServer>>;
let gateway: Awaited<ReturnType<typeof startTestGateway>>;

beforeAll(async () => {
  replay = await startReplayServer(await loadRecordings(['sculpts/petstore/recordings/petstore-v2.har']));
  // Shedding off: on a loaded machine a shed call would answer isError, which is not what is asserted here.
  gateway = await startTestGateway(SCULPTS, await replayEnv(SCULPTS, replay.url), { shedLagMs: 0 });
});
afterAll(async () => {
  await gateway?.close();
  await replay?.close();
});

/** The per-request envelope every 2026-07-28 request carries in `params._meta`. */
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': REVISION,
  'io.modelcontextprotocol/clientInfo': { name: 'raw-fetch', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON-RPC answers, read field by field
type Json = Record<string, any>;
type Answer = { status: number; contentType: string | null; body: Json };

let ids = 0;
/** One POST to /mcp; the JSON-RPC answer, read from JSON or from the SSE stream's one message. */
async function rpc(
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string | undefined>,
): Promise<Answer> {
  const sent: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) sent[name] = value;
  const res = await fetch(`${gateway.url}/mcp`, {
    method: 'POST',
    headers: sent,
    body: JSON.stringify({ jsonrpc: '2.0', id: ++ids, method, params }),
  });
  const text = await res.text();
  const contentType = res.headers.get('content-type');
  const json = contentType?.startsWith('text/event-stream') ? /^data: (.*)$/m.exec(text)![1]! : text;
  return { status: res.status, contentType, body: JSON.parse(json) as Json };
}

/** A 2026-07-28 request with the standard headers a conforming client sends. */
function modern(
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string | undefined> = {},
): Promise<Answer> {
  const name = typeof params.name === 'string' ? params.name : undefined;
  return rpc(
    method,
    { ...params, _meta: { ...ENVELOPE, ...(params._meta as object) } },
    {
      'mcp-protocol-version': REVISION,
      'mcp-method': method,
      ...(name !== undefined ? { 'mcp-name': name } : {}),
      ...headers,
    },
  );
}

const describePet = { name: 'describe_pet', arguments: { pet_number: 10 } };

describe('server/discover', () => {
  it('answers the revision, the capabilities, the instructions and public cache hints', async () => {
    const { status, body } = await modern('server/discover');
    expect(status).toBe(200);
    const result = body.result;
    expect(result.supportedVersions).toContain(REVISION);
    expect(result.capabilities).toEqual({ tools: { listChanged: true } });
    expect(result.instructions).toContain("_meta['io.sculptor/error']");
    expect(result).toMatchObject({ resultType: 'complete', ttlMs: 60_000, cacheScope: 'public' });
    expect(result._meta['io.modelcontextprotocol/serverInfo']).toMatchObject({ name: 'sculptor' });
  });
});

describe('Mcp-Method and Mcp-Name', () => {
  it('serves a request whose headers mirror its body, Mcp-Name plain or in the Base64 sentinel', async () => {
    const before = replay.requests.length;
    const plain = await modern('tools/call', describePet);
    expect(plain.status).toBe(200);
    // Served calls reach the backend (no step cache here): the refusals below are told apart by that.
    expect(replay.requests.length).toBe(before + 1);
    expect(plain.body.result.structuredContent).toMatchObject({ name: 'doggie' });
    const sentinel = `=?base64?${Buffer.from('describe_pet').toString('base64')}?=`;
    const encoded = await modern('tools/call', describePet, { 'mcp-name': sentinel });
    expect(encoded.status).toBe(200);
    expect(encoded.body.result.structuredContent).toMatchObject({ name: 'doggie' });
  });

  // Each refused before the tool runs: a router trusting the header never disagrees with the server.
  const refusals: Array<[string, string, Record<string, unknown>, Record<string, string | undefined>]> = [
    ['no Mcp-Method', 'tools/list', {}, { 'mcp-method': undefined }],
    ['an Mcp-Method naming another method', 'tools/list', {}, { 'mcp-method': 'tools/call' }],
    ['no Mcp-Name on tools/call', 'tools/call', describePet, { 'mcp-name': undefined }],
    ['an Mcp-Name naming another tool', 'tools/call', describePet, { 'mcp-name': 'find_pets_by_status' }],
    ['no MCP-Protocol-Version', 'tools/call', describePet, { 'mcp-protocol-version': undefined }],
    [
      'an MCP-Protocol-Version other than the body',
      'tools/list',
      {},
      { 'mcp-protocol-version': '2025-11-25' },
    ],
  ];
  for (const [what, method, params, headers] of refusals) {
    it(`refuses ${what} with 400 and -32020 HeaderMismatch, reaching no backend`, async () => {
      const before = replay.requests.length;
      const { status, body } = await modern(method, params, headers);
      expect(status).toBe(400);
      expect(body.error.code).toBe(-32020);
      expect(body.error.message).toMatch(/header/i);
      expect(replay.requests.length).toBe(before);
    });
  }

  it('answers a revision it does not serve with 400 and -32022, listing the ones it does', async () => {
    const { status, body } = await modern(
      'tools/list',
      { _meta: { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } },
      { 'mcp-protocol-version': '2099-01-01' },
    );
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: -32022, data: { requested: '2099-01-01' } });
    expect(body.error.data.supported).toContain(REVISION);
  });

  it('does not hold a 2025-era request (no envelope) to the 2026 headers', async () => {
    const { status, body } = await rpc('tools/call', describePet, {
      'mcp-protocol-version': '2025-11-25',
      'mcp-method': 'tools/list',
    });
    expect(status).toBe(200);
    expect(body.result.structuredContent).toMatchObject({ name: 'doggie' });
  });
});

describe('resultType and the cache hints', () => {
  it('marks a tools/call result complete, an isError one too', async () => {
    const ok = await modern('tools/call', describePet);
    expect(ok.body.result.resultType).toBe('complete');
    const failed = await modern('tools/call', { name: 'describe_pet', arguments: { pet_number: 424242 } });
    expect(failed.body.result).toMatchObject({ isError: true, resultType: 'complete' });
  });

  it('gives tools/list ttlMs and cacheScope private (a listing depends on the caller)', async () => {
    const { body } = await modern('tools/list');
    expect(body.result.tools.map((t: { name: string }) => t.name)).toEqual([
      'describe_pet',
      'find_pets_by_status',
    ]);
    expect(body.result).toMatchObject({ resultType: 'complete', ttlMs: 60_000, cacheScope: 'private' });
  });

  it('gives a search listing ttlMs 0, so that no client keeps it as the plain listing', async () => {
    const { body } = await modern('tools/list', { _meta: { 'io.sculptor/search': 'sale status' } });
    expect(body.result.tools[0].name).toBe('find_pets_by_status');
    expect(body.result).toMatchObject({ resultType: 'complete', ttlMs: 0, cacheScope: 'private' });
  });

  it('leaves all three off 2025-era results', async () => {
    const legacy = { 'mcp-protocol-version': '2025-11-25' };
    const list = await rpc('tools/list', {}, legacy);
    expect(list.body.result.tools).toHaveLength(2);
    const call = await rpc('tools/call', describePet, legacy);
    for (const result of [list.body.result, call.body.result]) {
      expect(result).not.toHaveProperty('resultType');
      expect(result).not.toHaveProperty('ttlMs');
      expect(result).not.toHaveProperty('cacheScope');
    }
  });
});
