import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { toolIdFor } from '../../src/compile/tool-signature.ts';
import { type GatewayProcess, startGatewayProcess } from '../server/gateway-process.ts';
import { type ItemsBackend, itemIdFor, startItemsBackend } from './support/items-backend.ts';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from './support/otlp-receiver.ts';

/**
 * The gateway as `npm start` runs it (node --import ./src/telemetry/register.ts),
 * exporting OTLP/HTTP JSON to a receiver on loopback, in front of a loopback
 * backend and the real Redis.
 */
const SERVER = 2;
const CLIENT = 3;
const hex = (bytes: number) => randomBytes(bytes).toString('hex');

let receiver: OtlpReceiver;
let backend: ItemsBackend;
let gateway: GatewayProcess;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  backend = await startItemsBackend();
  gateway = await startGatewayProcess({
    sculpts: 'test/telemetry/fixtures/sculpts',
    env: {
      ITEMS_URL: backend.url,
      ITEMS_TOKEN: 'token-for-traces-test',
      ITEMS_QUERY_KEY: 'query-key-for-traces-test',
      REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'sculptor-traces-test',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      // Every span the gateway can record, HTTP client spans included (off by default).
      SCULPTOR_TRACE_BACKEND_CALLS: 'true',
      LOG_LEVEL: 'info',
    },
  });
  // Redis connects at start; the first invocation should find it ready.
  for (let i = 0; i < 50 && !(await redisReady()); i++) await new Promise((r) => setTimeout(r, 50));
});

afterAll(async () => {
  gateway?.kill();
  await Promise.all([receiver?.close(), backend?.close()]);
});

async function redisReady(): Promise<boolean> {
  const text = await (await fetch(`${gateway.url}/metrics`)).text();
  return /sculptor_cache_store_operations_total\{result="unavailable"\} 0/.test(text);
}

function invoke(name: string, params: Record<string, unknown>, headers: Record<string, string> = {}) {
  return fetch(`${gateway.url}/tools/${toolIdFor(name)}:invoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({
      name,
      input_parameters: Object.entries(params).map(([n, value]) => ({ name: n, value })),
    }),
  });
}

const inTrace = (spans: ReceivedSpan[], traceId: string) => spans.filter((s) => s.traceId === traceId);
const one = (spans: ReceivedSpan[], predicate: (s: ReceivedSpan) => boolean): ReceivedSpan => {
  const found = spans.filter(predicate);
  expect(found, `spans: ${spans.map((s) => s.name).join(', ')}`).toHaveLength(1);
  return found[0]!;
};

describe('one trace per invocation, caller → gateway → backend', () => {
  const callerTrace = hex(16);
  const callerSpan = hex(8);
  const name = `item-${hex(4)}`;
  let trace: ReceivedSpan[];

  beforeAll(async () => {
    const res = await invoke('lookup_item', { name }, { traceparent: `00-${callerTrace}-${callerSpan}-01` });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      output_parameters: [
        { name: 'id', value: itemIdFor(name) },
        { name: 'label', value: `Item ${itemIdFor(name)}` },
      ],
    });
    // Server, execute_tool, 2 steps, 2 backend calls, ≥ 2 Redis GETs. The server span ends last,
    // and Redis spans may be exported before it in a batch of their own: wait for it too.
    await receiver.waitFor((spans) => {
      const mine = inTrace(spans, callerTrace);
      return mine.length >= 8 && mine.some((s) => s.kind === SERVER);
    });
    trace = inTrace(receiver.spans, callerTrace);
  });

  it('continues the caller’s trace in a SERVER span named by the route template', () => {
    const server = one(trace, (s) => s.kind === SERVER);
    expect(server.name).toBe('POST /tools/{toolId}:invoke');
    expect(server.parentSpanId).toBe(callerSpan);
    expect(server.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/tools/{toolId}:invoke',
      'http.response.status_code': 200,
    });
    expect(server.resource['service.name']).toBe('sculptor-traces-test');
  });

  it('has an execute_tool span per the GenAI conventions, child of the server span', () => {
    const server = one(trace, (s) => s.kind === SERVER);
    const tool = one(trace, (s) => s.name === 'execute_tool lookup_item');
    expect(tool.parentSpanId).toBe(server.spanId);
    expect(tool.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'lookup_item',
      'sculptor.tool.id': toolIdFor('lookup_item'),
      'sculptor.tool.version': 1,
      'sculptor.outcome': 'ok',
      'sculptor.steps': 2,
      'sculptor.cache.hits': 0,
    });
    expect(tool.attributes['gen_ai.tool.call.id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('has a span per step with backend, operation, cache outcome and status', () => {
    const tool = one(trace, (s) => s.name === 'execute_tool lookup_item');
    const find = one(trace, (s) => s.name === 'step find');
    const detail = one(trace, (s) => s.name === 'step detail');
    for (const step of [find, detail]) expect(step.parentSpanId).toBe(tool.spanId);
    expect(find.attributes).toMatchObject({
      'sculptor.step.id': 'find',
      'sculptor.backend': 'items',
      'sculptor.operation': 'searchItems',
      'sculptor.operation.id': 'searchItems',
      'sculptor.cache': 'miss',
      'sculptor.step.outcome': 'ok',
      'http.response.status_code': 200,
      'url.template': `${backend.url}/items`,
    });
    expect(detail.attributes).toMatchObject({
      'sculptor.operation.id': 'getItem',
      'sculptor.cache': 'miss',
      'url.template': `${backend.url}/items/{itemId}`,
    });
  });

  it('has a CLIENT span per backend call, with the URL template and no query values', () => {
    const find = one(trace, (s) => s.name === 'step find');
    const detail = one(trace, (s) => s.name === 'step detail');
    const http = trace.filter((s) => s.kind === CLIENT && s.attributes['http.request.method'] === 'GET');
    expect(http).toHaveLength(2);
    const findCall = one(http, (s) => s.parentSpanId === find.spanId);
    const detailCall = one(http, (s) => s.parentSpanId === detail.spanId);
    expect(findCall.attributes).toMatchObject({
      'url.full': `${backend.url}/items?name=REDACTED&api_key=REDACTED`,
      'http.response.status_code': 200,
      'server.address': '127.0.0.1',
    });
    expect(detailCall.attributes['url.full']).toBe(`${backend.url}/items/{itemId}?api_key=REDACTED`);
    for (const call of http) {
      expect(call.attributes).not.toHaveProperty('url.path');
      expect(call.attributes).not.toHaveProperty('url.query');
      expect(call.attributes).not.toHaveProperty('user_agent.original');
    }
  });

  it('propagates traceparent to the backend: it receives the same trace id, parented by the client span', () => {
    const http = trace.filter((s) => s.kind === CLIENT && s.attributes['http.request.method'] === 'GET');
    const received = backend.seen.filter((r) => r.traceparent?.includes(callerTrace));
    expect(received).toHaveLength(2);
    const parents = received.map((r) => r.traceparent!.split('-')[2]).sort();
    expect(parents).toEqual(http.map((s) => s.spanId).sort());
  });

  it('has CLIENT spans for the Redis commands, without keys', () => {
    const steps = trace.filter((s) => s.name.startsWith('step ')).map((s) => s.spanId);
    const redis = trace.filter((s) => s.attributes['db.system.name'] === 'redis');
    expect(redis.length).toBeGreaterThanOrEqual(2);
    for (const span of redis) {
      expect(span.kind).toBe(CLIENT);
      expect(steps).toContain(span.parentSpanId);
      // GET and SET of the step's entry; SET NX and DEL of its single-flight lease.
      expect(['GET', 'SET', 'DEL']).toContain(span.name);
      expect(Object.keys(span.attributes).sort()).toEqual(
        ['db.namespace', 'db.operation.name', 'db.system.name', 'server.address', 'server.port'].sort(),
      );
    }
  });

  it('logs one line for the invocation, with its trace and span ids', () => {
    const tool = one(trace, (s) => s.name === 'execute_tool lookup_item');
    const lines = gateway.logs().filter((l) => l.event === 'invocation' && l.trace_id === callerTrace);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'info',
      tool: 'lookup_item',
      version: 1,
      outcome: 'ok',
      span_id: tool.spanId,
      tool_call_id: tool.attributes['gen_ai.tool.call.id'],
      cache_hits: 0,
      steps: [
        { id: 'find', backend: 'items', outcome: 'ok', cache: 'miss', status: 200 },
        { id: 'detail', backend: 'items', outcome: 'ok', cache: 'miss', status: 200 },
      ],
    });
    expect(lines[0]!.duration_ms).toEqual(expect.any(Number));
  });

  it('marks cache hits, with no backend call, once the steps are stored', async () => {
    // A step's SET is fire-and-forget and bounded (100 ms): on a loaded machine one may be
    // skipped, as designed, and the next call then loads and stores it again. Bounded retries.
    let spans: ReceivedSpan[] = [];
    let seenBefore = 0;
    for (let attempt = 0; attempt < 5; attempt++) {
      const again = hex(16);
      seenBefore = backend.seen.length;
      const res = await invoke('lookup_item', { name }, { traceparent: `00-${again}-${hex(8)}-01` });
      expect(res.status).toBe(200);
      await receiver.waitFor((all) => inTrace(all, again).some((s) => s.kind === SERVER));
      spans = inTrace(receiver.spans, again);
      if (one(spans, (s) => s.name.startsWith('execute_tool')).attributes['sculptor.cache.hits'] === 2) break;
    }
    expect(one(spans, (s) => s.name === 'step find').attributes['sculptor.cache']).toBe('hit');
    expect(one(spans, (s) => s.name === 'step detail').attributes['sculptor.cache']).toBe('hit');
    expect(
      spans.filter((s) => s.attributes['http.request.method'] === 'GET' && s.kind === CLIENT),
    ).toHaveLength(0);
    expect(one(spans, (s) => s.name.startsWith('execute_tool')).attributes['sculptor.cache.hits']).toBe(2);
    expect(backend.seen.length).toBe(seenBefore);
  });
});

describe('other requests', () => {
  it('names a listing span GET /tools and starts a new trace without a traceparent', async () => {
    const res = await fetch(`${gateway.url}/tools?pageLimit=5`);
    expect(res.status).toBe(200);
    const spans = await receiver.waitFor((all) => all.some((s) => s.name === 'GET /tools'));
    const list = spans.find((s) => s.name === 'GET /tools')!;
    expect(list.parentSpanId).toBe('');
    expect(list.attributes['http.route']).toBe('/tools');
  });

  it('records a failed invocation with its error code, and a 5xx server span as an error', async () => {
    const res = await invoke('fail_call', { note: 'x' }, { traceparent: `00-${hex(16)}-${hex(8)}-01` });
    expect(res.status).toBe(502);
    const spans = await receiver.waitFor((all) => all.some((s) => s.name === 'execute_tool fail_call'));
    const tool = spans.find((s) => s.name === 'execute_tool fail_call')!;
    expect(tool.attributes).toMatchObject({
      'sculptor.outcome': 'upstream.error',
      'error.type': 'upstream.error',
    });
    expect(tool.status.code).toBe(2);
    // One step: folded into execute_tool, its attributes on it; no span of its own.
    expect(tool.attributes).toMatchObject({
      'sculptor.step.id': 'fail',
      'sculptor.step.outcome': 'error',
      'http.response.status_code': 500,
    });
    expect(spans.filter((s) => s.name.startsWith('step ') && s.traceId === tool.traceId)).toHaveLength(0);
    const client = spans.find((s) => s.parentSpanId === tool.spanId)!;
    expect(client.kind).toBe(CLIENT);
    expect(client.attributes['http.response.status_code']).toBe(500);
    const server = spans.find((s) => s.spanId === tool.parentSpanId)!;
    expect(server.attributes['http.response.status_code']).toBe(502);
    expect(server.status.code).toBe(2);
  });

  it('makes no span and no log line for health probes and /metrics', async () => {
    const before = gateway.stdout.length;
    for (const path of ['/livez', '/readyz', '/metrics'])
      expect((await fetch(`${gateway.url}${path}`)).status).toBe(200);
    // A traced request after them: once its span is in, the probes' would be too.
    await fetch(`${gateway.url}/tools/not-a-tool`);
    await receiver.waitFor((all) =>
      all.some((s) => s.name === 'GET' && s.attributes['http.response.status_code'] === 404),
    );
    expect(receiver.spans.filter((s) => /livez|readyz|metrics/.test(s.name))).toHaveLength(0);
    expect(gateway.stdout.slice(before).filter((l) => /livez|readyz|metrics/.test(l))).toHaveLength(0);
  });
});

describe('the OpenTelemetry Collector config (deploy/otel-collector.yaml)', () => {
  it('lets through every attribute key the gateway exported above, and no other', () => {
    const config = parse(
      readFileSync(new URL('../../deploy/otel-collector.yaml', import.meta.url), 'utf8'),
    ) as {
      processors: { redaction: { allowed_keys: string[] } };
    };
    const exported = new Set(receiver.spans.flatMap((s) => Object.keys(s.attributes)));
    expect(exported.size).toBeGreaterThan(20);
    const allowed = new Set(config.processors.redaction.allowed_keys);
    expect([...exported].filter((k) => !allowed.has(k))).toEqual([]);
    // A key allowed but never exported would be a stale allowlist.
    expect([...allowed].filter((k) => !exported.has(k))).toEqual([]);
  });
});

describe('by default (SCULPTOR_TRACE_BACKEND_CALLS unset)', () => {
  let plain: GatewayProcess;
  beforeAll(async () => {
    plain = await startGatewayProcess({
      sculpts: 'test/telemetry/fixtures/sculpts',
      env: {
        ITEMS_URL: backend.url,
        ITEMS_TOKEN: 'token-for-traces-test',
        ITEMS_QUERY_KEY: 'query-key-for-traces-test',
        REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'sculptor-traces-default',
        OTEL_BSP_SCHEDULE_DELAY: '100',
        LOG_LEVEL: 'info',
      },
    });
  });
  afterAll(() => plain?.kill());

  it('records a one-step tool as server + execute_tool, and still passes the trace to the backend', async () => {
    const traceId = hex(16);
    const res = await fetch(`${plain.url}/tools/${toolIdFor('fail_call')}:invoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: `00-${traceId}-${hex(8)}-01` },
      body: JSON.stringify({ name: 'fail_call', input_parameters: [{ name: 'note', value: 'x' }] }),
    });
    expect(res.status).toBe(502);
    await receiver.waitFor((all) => inTrace(all, traceId).some((s) => s.kind === SERVER));
    const spans = inTrace(receiver.spans, traceId);
    expect(spans.map((s) => s.name).sort()).toEqual([
      'POST /tools/{toolId}:invoke',
      'execute_tool fail_call',
    ]);
    const tool = one(spans, (s) => s.name === 'execute_tool fail_call');
    expect(tool.attributes).toMatchObject({
      'sculptor.step.id': 'fail',
      'sculptor.backend': 'items',
      'http.response.status_code': 500,
    });
    const received = backend.seen.filter((r) => r.traceparent?.includes(traceId));
    expect(received).toHaveLength(1);
    expect(received[0]!.traceparent!.split('-')[2]).toBe(tool.spanId);
  });
});
