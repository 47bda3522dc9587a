/**
 * The boundary an evaluation cannot cross, drilled on a real gateway process started as the
 * Kubernetes manifest starts it (`NODE_OPTIONS=--max-old-space-size=384`), with the default
 * isolation (evaluator processes):
 * - the worst expressions found so far — `$pad` with a multi-character pad, `$distinct` over the
 *   arrays a backend answers — end within their deadline with a clear error or their answer,
 *   and /livez answers in < 100 ms throughout;
 * - with the string and work limits opened to their maximum, so that nothing but the boundary
 *   stands between `$pad` and a heap far larger than an evaluator's, the evaluator dies of it:
 *   the call fails with `projection.failed` (W1003), the gateway lives, /livez answers, and the
 *   next call works on a fresh evaluator;
 * - a tool whose evaluations keep breaching the budget is suspended (`tool.suspended`, a log
 *   line naming the tool and its file, a metric) while the others answer as before.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayProcess, startGatewayProcess } from '../server/gateway-process.ts';
import { invokeTool } from '../support/start-test-gateway.ts';
import { expectLivezFast, probeLivez, SCHEDULER_RETRIES } from './probe-livez.ts';

const SCULPTS = 'test/hardening/fixtures/boundary';
/** The Kubernetes manifest's setting (deploy/kubernetes/deployment.yaml). */
const KUBERNETES_NODE_OPTIONS = '--max-old-space-size=384';

/** 60 rows of 4,000 numbers (≈ 1.1 MB: what the gateway's own thread does with an answer — read, check, clone to an evaluator — stays well under a /livez probe's 100 ms on a loaded machine), each row differing from the others in its last number only: the worst case for pairwise comparison, which walks all of each. */
let backend: http.Server;
let itemsUrl: string;
beforeAll(async () => {
  const row = Array.from({ length: 4_000 }, (_, i) => i);
  const body = JSON.stringify({ rows: Array.from({ length: 60 }, (_, i) => [...row.slice(0, -1), i]) });
  backend = http.createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
  itemsUrl = `http://127.0.0.1:${(backend.address() as AddressInfo).port}`;
});
afterAll(async () => {
  backend.closeAllConnections();
  await new Promise((resolve) => backend.close(resolve));
});

const alive = (gateway: GatewayProcess) =>
  gateway.child.exitCode === null && gateway.child.signalCode === null;

async function livez(url: string): Promise<number> {
  const res = await fetch(`${url}/livez`, { signal: AbortSignal.timeout(2_000) });
  await res.arrayBuffer();
  return res.status;
}

describe('the drill: a gateway under --max-old-space-size=384, default limits', () => {
  let gateway: GatewayProcess;
  beforeAll(async () => {
    gateway = await startGatewayProcess({
      sculpts: SCULPTS,
      register: false,
      env: { ITEMS_URL: itemsUrl, NODE_OPTIONS: KUBERNETES_NODE_OPTIONS, SCULPTOR_SHED_LAG_MS: '0' },
    });
    // The evaluators load once before anything is measured.
    expect((await invokeTool(gateway.url, 'add', { a: 1, b: 2 })).status).toBe(200);
  });
  afterAll(() => gateway?.kill());

  it(
    '$pad("x", 5,000,000, "0123456789") answers at once; a width past the string limit is refused before it is made',
    SCHEDULER_RETRIES,
    async () => {
      const { results, times } = await probeLivez(gateway.url, () =>
        invokeTool(gateway.url, 'pad_multi', { s: 'x', width: '5000000', pad: '0123456789' }),
      );
      for (const r of results)
        expect(r.body).toEqual({ output_parameters: [{ name: 'v', value: 5_000_000 }] });
      expectLivezFast(times);
      const refused = await invokeTool(gateway.url, 'pad_multi', {
        s: 'x',
        width: '50000000',
        pad: 'é😀0123456789',
      });
      expect(refused.status).toBe(502);
      expect(refused.body.code).toBe('projection.failed');
      expect(refused.body.detail).toMatch(/D9001.*\$pad would make a string of more than/);
      expect(alive(gateway)).toBe(true);
    },
  );

  it(
    '$distinct over 60 backend rows of 4,000 numbers: the answer, /livez fast throughout',
    SCHEDULER_RETRIES,
    async () => {
      const started = performance.now();
      const { results, times } = await probeLivez(gateway.url, () =>
        invokeTool(gateway.url, 'distinct_nested'),
      );
      for (const r of results) {
        // Within the deadline either way: the answer, or the time limit's clear error.
        if (r.status === 200) expect(r.body).toEqual({ output_parameters: [{ name: 'v', value: 60 }] });
        // or the evaluator's cap (W1002) on a machine so loaded that passing the rows takes a second.
        else expect(r.body.detail, JSON.stringify(r.body)).toMatch(/JSONata (D1012|D9003|W1002)/);
      }
      expect(performance.now() - started).toBeLessThan(10_000 + 5_000);
      expectLivezFast(times);
      expect(alive(gateway)).toBe(true);
    },
  );
});

describe('the boundary itself: limits opened wide, an evaluator killed by its heap', () => {
  let gateway: GatewayProcess;
  beforeAll(async () => {
    gateway = await startGatewayProcess({
      sculpts: SCULPTS,
      register: false,
      env: {
        ITEMS_URL: itemsUrl,
        NODE_OPTIONS: KUBERNETES_NODE_OPTIONS,
        SCULPTOR_SHED_LAG_MS: '0',
        // Nothing but the boundary: the largest string and work the settings allow.
        SCULPTOR_JSONATA_MAX_STRING: String(256 * 1024 * 1024),
        SCULPTOR_JSONATA_MAX_WORK: String(2 ** 31),
        SCULPTOR_JSONATA_WORKER_TIMEOUT_MS: '20000',
        // What an evaluator would make here is larger than its heap whatever the machine's speed.
        SCULPTOR_JSONATA_WORKER_HEAP_MB: '128',
        SCULPTOR_TOOL_SUSPEND_BREACHES: '0',
      },
    });
    expect((await invokeTool(gateway.url, 'add', { a: 1, b: 2 })).status).toBe(200);
  });
  afterAll(() => gateway?.kill());

  it('$uppercase of a 200,000,000-character $pad: the call fails clearly, the gateway lives, the next call works', async () => {
    const probes: number[] = [];
    let probing = true;
    const probe = (async () => {
      while (probing) {
        probes.push(await livez(gateway.url).catch(() => 0));
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const bomb = await invokeTool(gateway.url, 'pad_upper', { s: 'x', width: '200000000', pad: 'ab' });
    probing = false;
    await probe;
    expect(bomb.status, JSON.stringify(bomb.body)).toBe(502);
    expect(bomb.body.code).toBe('projection.failed');
    // The evaluator ran out of heap: W1003 (W1004 if the kernel ended it first).
    expect(bomb.body.detail).toMatch(/JSONata W100[34]/);
    expect(alive(gateway)).toBe(true);
    expect(probes.length).toBeGreaterThan(0);
    expect(probes.every((status) => status === 200)).toBe(true);
    expect(await livez(gateway.url)).toBe(200);
    expect(await invokeTool(gateway.url, 'add', { a: 40, b: 2 })).toMatchObject({
      status: 200,
      body: { output_parameters: [{ name: 'v', value: 42 }] },
    });
  });
});

describe('a tool that keeps breaching its budget is suspended, alone', () => {
  let gateway: GatewayProcess;
  beforeAll(async () => {
    gateway = await startGatewayProcess({
      sculpts: SCULPTS,
      register: false,
      env: {
        ITEMS_URL: itemsUrl,
        SCULPTOR_SHED_LAG_MS: '0',
        SCULPTOR_TOOL_SUSPEND_BREACHES: '3',
        SCULPTOR_TOOL_SUSPEND_WINDOW_MS: '60000',
        SCULPTOR_TOOL_SUSPEND_MS: '60000',
      },
    });
  });
  afterAll(() => gateway?.kill());

  it('three breaches, then 503 tool.suspended without evaluating; another tool answers; a log line and a metric say so', async () => {
    const bad = { s: 'x', width: '50000000', pad: 'ab' };
    for (let i = 0; i < 3; i++) {
      const breach = await invokeTool(gateway.url, 'pad_multi', bad);
      expect(breach.status).toBe(502);
      expect(breach.body.detail).toMatch(/D9001/);
    }
    const suspended = await invokeTool(gateway.url, 'pad_multi', { s: 'x', width: '3', pad: 'ab' });
    expect(suspended.status).toBe(503);
    expect(suspended.body.code).toBe('tool.suspended');
    expect(suspended.body.retryable).toBe(true);
    expect(suspended.body.detail).toMatch(/'pad_multi' is suspended for \d+ s/);
    expect(await invokeTool(gateway.url, 'add', { a: 1, b: 2 })).toMatchObject({ status: 200 });

    const line = gateway.logs().find((entry) => entry.event === 'tool_suspended');
    expect(line).toMatchObject({ tool: 'pad_multi', breaches: 3, suspended_ms: 60_000 });
    expect(String(line?.file)).toMatch(/boundary\/pad_multi\.v1\.sculpt\.yaml$/);
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(metrics).toMatch(/sculptor_tool_suspensions_total\{tool="pad_multi",version="1"\} 1/);
  });
});
