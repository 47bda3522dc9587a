import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolIdFor } from '../../src/compile/tool-signature.ts';
import { type GatewayProcess, startGatewayProcess } from '../server/gateway-process.ts';
import { type ItemsBackend, startItemsBackend } from './support/items-backend.ts';
import { type OtlpReceiver, startOtlpReceiver } from './support/otlp-receiver.ts';

/**
 * RELIABILITY I3–I5, I7, G9: plant canaries where secrets and LLM values
 * live — a backend credential (header and query) and the Redis password from
 * the environment, the server secret, LLM input values (one of which a
 * declared tool error quotes), a backend error body — drive every path, then
 * scan every exported span (attributes, events, resource) and every log line.
 */
const canary = (what: string) => `canary-${what}-${randomBytes(6).toString('hex')}`;
const CANARIES = {
  token: canary('token'),
  queryKey: canary('qkey'),
  redisPassword: canary('redispw'),
  secret: canary('server-secret'),
  llmName: canary('llm'),
  llmEmpty: `none-${canary('llm-empty')}`,
  llmNote: canary('llm-note'),
  llmParam: canary('llm-param'),
  errorBody: canary('errbody'),
  callerToken: canary('caller-token'),
  userKey: canary('user-key'),
};

let receiver: OtlpReceiver;
let backend: ItemsBackend;
let gateway: GatewayProcess;

async function refusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function invoke(name: string, params: Record<string, unknown>) {
  return fetch(`${gateway.url}/tools/${toolIdFor(name)}:invoke`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${CANARIES.callerToken}`,
      'x-items-user-key': CANARIES.userKey,
    },
    body: JSON.stringify({
      name,
      input_parameters: Object.entries(params).map(([n, value]) => ({ name: n, value })),
    }),
  });
}

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  backend = await startItemsBackend({ errorBodyCanary: CANARIES.errorBody });
  gateway = await startGatewayProcess({
    sculpts: 'test/telemetry/fixtures/sculpts',
    env: {
      ITEMS_URL: backend.url,
      ITEMS_TOKEN: CANARIES.token,
      ITEMS_QUERY_KEY: CANARIES.queryKey,
      SCULPTOR_CALLERS: 'test/telemetry/fixtures/canary-callers.yaml',
      CALLER_TOKEN: CANARIES.callerToken,
      // Redis refuses: the store's connection errors are logged too.
      REDIS_URL: `redis://:${CANARIES.redisPassword}@127.0.0.1:${await refusedPort()}`,
      SCULPTOR_SECRET: CANARIES.secret,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      // Everything that can be recorded is scanned: HTTP client spans too (off by default).
      SCULPTOR_TRACE_BACKEND_CALLS: 'true',
      LOG_LEVEL: 'trace',
    },
  });
});

afterAll(async () => {
  gateway?.kill();
  await Promise.all([receiver?.close(), backend?.close()]);
});

describe('no secret, credential, LLM value or backend body in telemetry', () => {
  beforeAll(async () => {
    const ok = await invoke('lookup_item', { name: CANARIES.llmName });
    expect(ok.status).toBe(200);
    const empty = await invoke('lookup_item', { name: CANARIES.llmEmpty });
    expect(empty.status).toBe(422);
    // The declared tool error quotes the LLM's value to the caller: it is in play.
    expect(((await empty.json()) as { detail: string }).detail).toContain(CANARIES.llmEmpty);
    const failed = await invoke('fail_call', { note: CANARIES.llmNote });
    expect(failed.status).toBe(502);
    const invalid = await invoke('lookup_item', { name: 'x', [CANARIES.llmParam]: CANARIES.llmParam });
    expect(invalid.status).toBe(400);
    const asUser = await invoke('read_item_as_user', { id: 7 });
    expect(asUser.status).toBe(200);
    await receiver.waitFor(
      // One-step tools (fail_call, read_item_as_user) have no step span: folded into execute_tool.
      (spans) => spans.filter((s) => s.name.startsWith('execute_tool ')).length >= 5 && spans.length >= 15,
    );
    // Let a last batch (server spans end after their children) arrive.
    await new Promise((r) => setTimeout(r, 400));
  });

  it('sent every canary where it belongs (so the scan below can fail)', () => {
    const urls = backend.seen.map((r) => r.url).join('\n');
    expect(urls).toContain(`api_key=${CANARIES.queryKey}`);
    expect(urls).toContain(`name=${CANARIES.llmName}`);
    expect(urls).toContain(`note=${CANARIES.llmNote}`);
    const viaItems = backend.seen.filter((r) => r.userKey === undefined);
    expect(viaItems.every((r) => r.authorization === `Bearer ${CANARIES.token}`)).toBe(true);
    // The pass-through reached the backend; the caller's own token never did.
    expect(backend.seen.filter((r) => r.userKey === CANARIES.userKey)).toHaveLength(1);
    expect(backend.seen.some((r) => JSON.stringify(r).includes(CANARIES.callerToken))).toBe(false);
    expect(gateway.logs().some((l) => l.event === 'cache_store_error')).toBe(true);
    expect(receiver.spans.some((s) => s.attributes['http.response.status_code'] === 500)).toBe(true);
  });

  it('exports no canary in any span attribute, event or resource', () => {
    expect(receiver.bodies.length).toBeGreaterThan(0);
    const exported = receiver.bodies.join('\n');
    for (const [what, value] of Object.entries(CANARIES)) {
      expect(exported.includes(value), `${what} in exported spans`).toBe(false);
    }
    const events = receiver.spans.flatMap((s) => s.events);
    for (const [what, value] of Object.entries(CANARIES)) {
      expect(JSON.stringify(events).includes(value), `${what} in span events`).toBe(false);
    }
  });

  it('writes no canary in any log line, at LOG_LEVEL=trace', () => {
    const lines = [...gateway.stdout, ...gateway.stderr];
    expect(gateway.logs().filter((l) => l.event === 'invocation')).toHaveLength(5);
    for (const [what, value] of Object.entries(CANARIES)) {
      const leaks = lines.filter((l) => l.includes(value));
      expect(leaks, `${what} in logs`).toEqual([]);
    }
  });
});
