/**
 * Admission on MCP is per call and per stream, not per HTTP request: every `tools/call` of a
 * 2025-era JSON-RPC batch passes the caller's in-flight cap and rate limit exactly as that many
 * single calls would, each refusal its own answer in the batch; and one caller's
 * `subscriptions/listen` streams are capped, so it cannot hold every stream the endpoint keeps
 * and lock the other callers out. Over real HTTP against the fault backend (slow answers).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FaultBackend, startFaultBackend } from '../../http/fault-backend.ts';
import { startTestGateway } from '../../support/start-test-gateway.ts';

const SCULPTS = 'test/hardening/fixtures/sculpts';
const SLOW_TOKEN = 'slow-caller-token-0123456789';
const OTHER_TOKEN = 'other-caller-token-0123456789';
const CALLERS = 'test/server/fixtures/two-callers.yaml';

type TestGateway = Awaited<ReturnType<typeof startTestGateway>>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON-RPC answers, read field by field
type Json = Record<string, any>;

let fault: FaultBackend;
beforeAll(async () => {
  fault = await startFaultBackend();
});
afterAll(() => fault?.close());
const env = () => ({
  FAULT_URL: fault.origin,
  HOSTILE_URL: fault.origin,
  KEYED_TOKEN: 'unused-token',
  SLOW_TOKEN,
  OTHER_TOKEN,
});

const LEGACY = { 'mcp-protocol-version': '2025-11-25' };

function call(id: number, name: string, args: Record<string, unknown>): Json {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } };
}

async function post(url: string, body: unknown, headers: Record<string, string>): Promise<Response> {
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

/** The JSON-RPC answers of a batch, read from JSON or from the SSE stream's messages. */
async function answers(res: Response): Promise<Json[]> {
  const text = await res.text();
  if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const parsed = JSON.parse(text) as Json | Json[];
    return Array.isArray(parsed) ? parsed : [parsed];
  }
  return [...text.matchAll(/^data: (.*)$/gm)].flatMap((m) => {
    const parsed = JSON.parse(m[1]!) as Json | Json[];
    return Array.isArray(parsed) ? parsed : [parsed];
  });
}

const codeOf = (answer: Json): string | undefined =>
  answer.result?.isError ? answer.result._meta?.['io.sculptor/error']?.code : undefined;

describe('a JSON-RPC batch of tools/call', () => {
  let gateway: TestGateway;
  afterAll(async () => {
    await gateway?.close();
  });

  it('N calls against an in-flight cap of K: K run, N - K refused request.too_many_in_flight; the other caller is served', async () => {
    const K = 3;
    const N = 10;
    gateway = await startTestGateway(SCULPTS, env(), { callers: CALLERS, maxInflightPerCaller: K });
    fault.reset();
    const batch = Array.from({ length: N }, (_, i) => call(i + 1, 'delayed_json', { ms: 600 }));
    const pending = post(gateway.url, batch, { ...LEGACY, authorization: `Bearer ${SLOW_TOKEN}` });
    // While the batch holds its K slots, another caller still gets its call answered.
    const until = performance.now() + 5_000;
    while (fault.requests.filter((r) => r.url.startsWith('/delay')).length < K) {
      if (performance.now() > until) throw new Error('the batch never reached the backend');
      await new Promise((r) => setTimeout(r, 10));
    }
    const other = await answers(
      await post(gateway.url, call(1, 'fetch_json', {}), {
        ...LEGACY,
        authorization: `Bearer ${OTHER_TOKEN}`,
      }),
    );
    expect(other[0]!.result?.isError, JSON.stringify(other)).toBeFalsy();

    const res = await pending;
    expect(res.status).toBe(200);
    const all = await answers(res);
    expect(all).toHaveLength(N);
    expect(new Set(all.map((a) => a.id))).toEqual(new Set(batch.map((c) => c.id)));
    const refused = all.filter((a) => codeOf(a) === 'request.too_many_in_flight');
    const ran = all.filter((a) => a.result && !a.result.isError);
    expect(ran).toHaveLength(K);
    expect(refused).toHaveLength(N - K);
    // Only the admitted calls reached the backend.
    expect(fault.requests.filter((r) => r.url.startsWith('/delay'))).toHaveLength(K);
    await gateway.close();
  });

  it('the rate limit counts each call of a batch: burst 2 admits 2 of 5', async () => {
    gateway = await startTestGateway(SCULPTS, env(), {
      callers: CALLERS,
      rateLimitPerS: 1,
      rateLimitBurst: 2,
    });
    const batch = Array.from({ length: 5 }, (_, i) => call(i + 1, 'fetch_json', {}));
    const all = await answers(
      await post(gateway.url, batch, { ...LEGACY, authorization: `Bearer ${SLOW_TOKEN}` }),
    );
    expect(all).toHaveLength(5);
    expect(all.filter((a) => a.result && !a.result.isError)).toHaveLength(2);
    expect(all.filter((a) => codeOf(a) === 'request.rate_limited')).toHaveLength(3);
    await gateway.close();
  });
});

describe('subscriptions/listen streams', () => {
  let gateway: TestGateway;
  const opened: AbortController[] = [];
  afterAll(async () => {
    for (const stream of opened) stream.abort();
    await gateway?.close();
  });

  const ENVELOPE = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw-fetch', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  let ids = 0;
  /** Opens a listen stream and reads its acknowledgement; the stream stays open until aborted. */
  async function listen(token: string): Promise<{ status: number; first: Json; stop: AbortController }> {
    const stop = new AbortController();
    opened.push(stop);
    const res = await fetch(`${gateway.url}/mcp`, {
      method: 'POST',
      signal: stop.signal,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'subscriptions/listen',
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: ++ids,
        method: 'subscriptions/listen',
        params: { notifications: { toolsListChanged: true }, _meta: ENVELOPE },
      }),
    });
    if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      return { status: res.status, first: (await res.json()) as Json, stop };
    }
    const reader = res.body!.getReader();
    let text = '';
    const decoder = new TextDecoder();
    while (!/^data: .*$/m.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    return { status: res.status, first: JSON.parse(/^data: (.*)$/m.exec(text)![1]!) as Json, stop };
  }

  it("a caller past its cap is refused 429 request.too_many_streams; another caller's stream opens; a closed one frees its slot", async () => {
    gateway = await startTestGateway(SCULPTS, env(), { callers: CALLERS, maxStreamsPerCaller: 2 });
    const a = await listen(SLOW_TOKEN);
    const b = await listen(SLOW_TOKEN);
    for (const stream of [a, b]) {
      expect(stream.status).toBe(200);
      expect(stream.first.method).toBe('notifications/subscriptions/acknowledged');
    }
    const third = await listen(SLOW_TOKEN);
    expect(third.status).toBe(429);
    expect(third.first).toMatchObject({
      jsonrpc: '2.0',
      id: ids,
      error: { data: { code: 'request.too_many_streams' } },
    });
    const other = await listen(OTHER_TOKEN);
    expect(other.status).toBe(200);

    a.stop.abort();
    const until = performance.now() + 5_000;
    for (;;) {
      const again = await listen(SLOW_TOKEN);
      if (again.status === 200) break;
      if (performance.now() > until) throw new Error('a closed stream never gave its slot back');
      await new Promise((r) => setTimeout(r, 20));
    }
  });

  it('the endpoint caps streams in all (SCULPTOR_MAX_STREAMS)', async () => {
    await gateway.close();
    gateway = await startTestGateway(SCULPTS, env(), {
      callers: CALLERS,
      maxStreamsPerCaller: 0,
      maxStreams: 1,
    });
    expect((await listen(SLOW_TOKEN)).status).toBe(200);
    const refused = await listen(OTHER_TOKEN);
    expect(refused.first).toMatchObject({ error: { message: 'Subscription limit reached' } });
  });
});
