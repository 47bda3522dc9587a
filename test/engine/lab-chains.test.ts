import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/cache/memory-store.ts';
import { StepCache } from '../../src/cache/step-cache.ts';
import { compileSculpts } from '../../src/compile/compile-sculpts.ts';
import type { CompiledTool } from '../../src/compile/compile-tool.ts';
import { toolIdFor } from '../../src/compile/tool-signature.ts';
import { createEngine, type Engine, type InvocationReport } from '../../src/engine/invoke-tool.ts';
import { type BackendClient, createBackendClient } from '../../src/http/backend-client.ts';
import { runSculptTests } from '../../src/testing/index.ts';
import { invoke, startTestGateway } from '../support/start-test-gateway.ts';
import { BIG_ID, type LabBackend, startLabBackend } from './lab-backend.ts';
import { reportFigures } from '../support/report-figures.ts';

export const LAB_SCULPTS = 'test/engine/fixtures/lab';
const SECRET = 'lab-test-secret-0123456789';

let lab: LabBackend;
let client: BackendClient;
let tools: CompiledTool[];
const tool = (name: string) => tools.find((t) => t.signature.name === name)!;

beforeAll(async () => {
  lab = await startLabBackend();
  client = createBackendClient();
  tools = await compileSculpts(LAB_SCULPTS, { LAB_URL: lab.url, LAB_API_KEY: 'alice' });
});
afterAll(async () => {
  await client?.close();
  await lab?.close();
});

function engine(cache?: StepCache): Engine {
  return createEngine({ sender: client, ...(cache ? { cache } : {}), cacheSecret: SECRET });
}

async function run(
  e: Engine,
  name: string,
  inputs: Record<string, unknown> = {},
): Promise<{ outputs: Record<string, unknown>; report: InvocationReport; ms: number }> {
  let report: InvocationReport | undefined;
  const started = performance.now();
  const result = await e.invoke(tool(name), inputs, {
    onReport: (r) => {
      report = r;
    },
  });
  return {
    outputs: Object.fromEntries(result.outputs.map((p) => [p.name, p.value])),
    report: report!,
    ms: performance.now() - started,
  };
}

describe('independent steps run concurrently', () => {
  it('two 300 ms steps that read nothing of each other take one delay; the join waits', async () => {
    const DELAY = 300;
    const timings: number[] = [];
    await run(engine(), 'parallel_pair', { ms: 1 }); // warm up: connections, JIT
    for (let i = 0; i < 3; i++) {
      const since = lab.requests.length;
      const { outputs, report, ms } = await run(engine(), 'parallel_pair', { ms: DELAY });
      timings.push(ms);
      // Deterministic whatever order left and right finish in.
      expect(outputs).toEqual({ names: 'left+right' });
      const [left, right, joined] = lab.requests.slice(since);
      expect([left!.path, right!.path].sort()).toEqual([`/slow/left?ms=${DELAY}`, `/slow/right?ms=${DELAY}`]);
      // Both were asked before either answered …
      expect(Math.max(left!.at, right!.at)).toBeLessThan(Math.min(left!.doneAt!, right!.doneAt!));
      // … and the step reading both started after both answered.
      expect(joined!.path).toBe('/slow/left%2Bright?ms=1');
      expect(joined!.at).toBeGreaterThanOrEqual(Math.max(left!.doneAt!, right!.doneAt!));
      expect(report.steps.map((s) => s.id)).toEqual(['left', 'right', 'joined']);
      // One delay plus overhead: run one after the other, they could not take less than 2 × DELAY.
      expect(ms).toBeGreaterThanOrEqual(DELAY);
      expect(ms).toBeLessThan(DELAY * 2);
    }
    const shown = timings.map((t) => t.toFixed(0)).join(', ');
    reportFigures(`[chain] parallel_pair, 2 × ${DELAY} ms steps: ${shown} ms`);
  });
});

describe('the drain (RELIABILITY J1)', () => {
  it('stops the invocations in flight as gateway.draining, at once, and refuses later ones the same way', async () => {
    const drain = new AbortController();
    const drained = createEngine({ sender: client, cacheSecret: SECRET, drain: drain.signal });
    const slowCalls = () => lab.requests.filter((r) => r.path.startsWith('/slow/')).length;
    const before = slowCalls();
    const inFlight = Array.from({ length: 5 }, () =>
      drained.invoke(tool('parallel_pair'), { ms: 2000 }).then(
        () => 'answered',
        (err: { code?: string }) => err.code,
      ),
    );
    // Each invocation has its two independent slow calls at the backend (a bounded wait).
    for (let i = 0; i < 300 && slowCalls() < before + 10; i++) await new Promise((r) => setTimeout(r, 10));
    expect(slowCalls()).toBe(before + 10);

    const t0 = performance.now();
    drain.abort(new Error('the gateway is stopping'));
    expect(await Promise.all(inFlight)).toEqual(Array(5).fill('gateway.draining'));
    // Stopped by the drain, not answered by the backend 2 s later; the joining step never ran.
    expect(performance.now() - t0).toBeLessThan(1500);
    expect(slowCalls()).toBe(before + 10);
    await expect(drained.invoke(tool('parallel_pair'), { ms: 1 })).rejects.toMatchObject({
      code: 'gateway.draining',
      retryable: true,
    });
  });
});

describe('integers above 2^53 pass from one step to the next unchanged', () => {
  it('the id step 1 reads is step 2 path parameter, digit for digit', async () => {
    expect(Number(BIG_ID).toString()).not.toBe(BIG_ID); // what a JSON.parse would have made of it
    const since = lab.requests.length;
    const { outputs } = await run(engine(), 'account_balance');
    expect(lab.requests.slice(since).map((r) => r.path)).toEqual([
      '/accounts/latest',
      `/accounts/${BIG_ID}/balance`,
    ]);
    expect(outputs).toEqual({ account_id: BIG_ID, cents: 1250 });
  });

  it('and through the A2T face over HTTP', async () => {
    const gateway = await startTestGateway(LAB_SCULPTS, { LAB_URL: lab.url, LAB_API_KEY: 'alice' });
    try {
      const since = lab.requests.length;
      const res = await invoke(gateway.url, `/tools/${toolIdFor('account_balance')}:invoke`, {
        name: 'account_balance',
        input_parameters: [],
      });
      expect(res.status).toBe(200);
      expect(res.body.output_parameters).toEqual([
        { name: 'account_id', value: BIG_ID },
        { name: 'cents', value: 1250 },
      ]);
      expect(lab.requests.at(-1)!.path).toBe(`/accounts/${BIG_ID}/balance`);
      expect(lab.requests.length - since).toBe(2);
    } finally {
      await gateway.close();
    }
  });
});

describe('what is cached', () => {
  it('a 500 is never cached: the next invocation asks the backend again, then its 200 is kept', async () => {
    const cache = new StepCache(createMemoryStore(), { secret: SECRET });
    const e = engine(cache);
    const calls = () => lab.requests.filter((r) => r.path === '/flaky').length;
    const before = calls();
    await expect(run(e, 'flaky_status')).rejects.toMatchObject({ code: 'upstream.error' });
    const ok = await run(e, 'flaky_status');
    expect(ok.outputs).toEqual({ answer: { ok: true } });
    expect(ok.report.steps[0]!.cache).toBe('miss');
    const hit = await run(e, 'flaky_status');
    expect(hit.report.steps[0]!.cache).toBe('hit');
    expect(calls() - before).toBe(2);
    // The 500 was loaded, judged uncacheable and not stored; only the 200 was.
    expect(cache.stats()).toMatchObject({ uncacheable: 1, loadFailures: 0, stored: 1 });
  });
});

describe('when', () => {
  it('a step whose when is false is reported skipped and calls nothing', async () => {
    const result = await runSculptTests(['test/cases/tools/shop']);
    const [withPrices, without] = result.files[0]!.cases;
    expect(withPrices!.report!.steps.map((s) => `${s.id}:${s.outcome}`)).toEqual([
      'orders:ok',
      'products:ok',
    ]);
    expect(without!.report!.steps.map((s) => `${s.id}:${s.outcome}`)).toEqual([
      'orders:ok',
      'products:skipped',
    ]);
    expect(without!.calls.map((c) => c.path)).toEqual(['/api/orders?status=open']);
  });
});
