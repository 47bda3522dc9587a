/**
 * How a 2025-era request is answered over HTTP: with one JSON body when nothing can be sent
 * before its answer, with an event stream when the client asked for progress; and a client that
 * hangs up while waiting for a JSON answer cancels its call, as it does on an event stream.
 * Over real HTTP against the fault backend.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FaultBackend, startFaultBackend } from '../../http/fault-backend.ts';
import { startTestGateway } from '../../support/start-test-gateway.ts';
import { hangUpMidCall } from '../../support/hang-up.ts';

const SCULPTS = 'test/hardening/fixtures/sculpts';
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON-RPC answers, read field by field
type Json = Record<string, any>;

let fault: FaultBackend;
let gateway: Awaited<ReturnType<typeof startTestGateway>>;
beforeAll(async () => {
  fault = await startFaultBackend();
  gateway = await startTestGateway(SCULPTS, {
    FAULT_URL: fault.origin,
    HOSTILE_URL: fault.origin,
    KEYED_TOKEN: 'unused-token',
  });
});
afterAll(async () => {
  await gateway?.close();
  await fault?.close();
});

const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
};

const call = (id: number, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
});

const post = (body: unknown) =>
  fetch(`${gateway.url}/mcp`, { method: 'POST', headers: HEADERS, body: JSON.stringify(body) });

/** The JSON-RPC messages of an event stream, in order. */
const events = (text: string): Json[] =>
  [...text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!) as Json);

describe('a 2025-era request', () => {
  it('is answered with one JSON body when it asks for no progress', async () => {
    const res = await post(call(7, 'chained_next', { id: 'a', mode: 'json' }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const answer = (await res.json()) as Json;
    expect(answer.id).toBe(7);
    expect(answer.result.isError, JSON.stringify(answer)).toBeFalsy();
    expect(answer.result.structuredContent.body).toBeDefined();
    // A tool error is a result too, in the same JSON form.
    const failed = (await (await post(call(8, 'faulty_status', { code: 503 }))).json()) as Json;
    expect(failed.id).toBe(8);
    expect(failed.result.isError).toBe(true);
    expect(failed.result._meta['io.sculptor/error'].code).toMatch(/^upstream\./);
  });

  it('that lists tools is answered with one JSON body too', async () => {
    const res = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const answer = (await res.json()) as Json;
    expect(answer.result.tools.map((t: Json) => t.name)).toContain('chained_next');
  });

  it('is answered with an event stream carrying each step’s progress when it sends a progressToken', async () => {
    const res = await post(call(9, 'chained_next', { id: 'a', mode: 'json' }, { progressToken: 'p-1' }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const messages = events(await res.text());
    const progress = messages.filter((m) => m.method === 'notifications/progress');
    expect(progress.map((m) => [m.params.progressToken, m.params.progress, m.params.total])).toEqual([
      ['p-1', 0, 2],
      ['p-1', 1, 2],
      ['p-1', 2, 2],
    ]);
    expect(messages.at(-1)!.id).toBe(9);
    expect(messages.at(-1)!.result.isError).toBeFalsy();
  });

  it('cancels its call when the client hangs up before the JSON answer', async () => {
    const { report, backendHeldMs } = await hangUpMidCall(
      gateway,
      fault,
      'POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
        'Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\n',
      JSON.stringify(call(10, 'delayed_json', { ms: 1000 })),
    );
    expect(report.outcome).toBe('request.cancelled');
    // The gateway let go of the backend call rather than waiting out its second.
    expect(backendHeldMs).toBeLessThan(1000);
    // And it still answers the next caller.
    const next = (await (await post(call(11, 'delayed_json', { ms: 1 }))).json()) as Json;
    expect(next.result.isError, JSON.stringify(next)).toBeFalsy();
  });
});
