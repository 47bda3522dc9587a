import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/cache/memory-store.ts';
import { StepCache } from '../../src/cache/step-cache.ts';
import { compileSculpts } from '../../src/compile/compile-sculpts.ts';
import type { CompiledTool } from '../../src/compile/compile-tool.ts';
import { createEngine, type Engine, type InvocationReport } from '../../src/engine/invoke-tool.ts';
import { type BackendClient, createBackendClient } from '../../src/http/backend-client.ts';
import type { SculptorError } from '../../src/errors/sculptor-error.ts';
import { type ShopBackend, startShopBackend } from './shop-backend.ts';

const SHOP = 'test/arazzo/fixtures/shop';
const SECRET = 'arazzo-test-secret-0123456789';

let shop: ShopBackend;
let client: BackendClient;
let tools: CompiledTool[];
const tool = (name: string) => {
  const found = tools.find((t) => t.signature.name === name);
  if (!found) throw new Error(`no tool ${name} (have ${tools.map((t) => t.signature.name).join(', ')})`);
  return found;
};

beforeAll(async () => {
  shop = await startShopBackend();
  client = createBackendClient();
  tools = await compileSculpts(SHOP, { SHOP_URL: shop.url });
});
afterAll(async () => {
  await client?.close();
  await shop?.close();
});

function engine(cache?: StepCache): Engine {
  return createEngine({
    sender: client,
    ...(cache ? { cache } : {}),
    cacheSecret: SECRET,
    allowPrivateEgress: true,
  });
}

async function run(name: string, inputs: Record<string, unknown>, e = engine()) {
  let report: InvocationReport | undefined;
  try {
    const result = await e.invoke(tool(name), inputs, { onReport: (r) => (report = r) });
    return { outputs: Object.fromEntries(result.outputs.map((p) => [p.name, p.value])), report: report! };
  } catch (err) {
    return { error: err as SculptorError, report: report! };
  }
}

describe('an Arazzo description served as tools', () => {
  it('lists every workflow no sculpt wraps as a tool, and the wrapping sculpt under its own name', () => {
    expect(tools.map((t) => t.signature.name).sort()).toEqual([
      'flaky_read',
      'order_and_check',
      'order_pet',
      'reserve_pending_pet',
      'wait_for_job',
    ]);
    // Sent as it is into a required path parameter of a step that always runs: required.
    expect(tool('flaky_read').signature.input_parameters).toEqual([
      expect.objectContaining({ name: 'key', type: 'string', required: true }),
    ]);
    // A goto may skip any step, so nothing is derived: the schema's own `required` only.
    const job = tool('wait_for_job').signature;
    expect(job.input_parameters).toEqual([expect.objectContaining({ name: 'job', required: false })]);
    expect(job.output_parameters.map((p) => [p.name, p.type])).toEqual([
      ['result', 'json'],
      ['polls', 'json'],
    ]);
  });

  it('success criteria and a JSONPath goto: the order is placed, the waiting list skipped', async () => {
    const since = shop.requests.length;
    const { outputs, report } = await run('order_pet', { how_many: 2 });
    expect(outputs).toEqual({ order: expect.stringMatching(/^ord-\d+$/) });
    expect(shop.requests.slice(since).map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /pets?status=available',
      'POST /orders',
    ]);
    // The payload's placeholder filled, the replacement set at its JSON pointer.
    expect(shop.requests.at(-1)!.body).toEqual({ petId: 1, quantity: 2, note: 'for Rex' });
    expect(report.steps.map((s) => [s.id, s.outcome])).toEqual([
      ['find', 'ok'],
      ['order', 'ok'],
    ]);
  });

  it('the default next step and an end action: no pet available, the waiting list joined, nothing ordered', async () => {
    const since = shop.requests.length;
    const { outputs, report } = await run('reserve_pending_pet', { how_many: 1 });
    expect(outputs).toEqual({ waitlist_position: 3 });
    expect(shop.requests.slice(since).map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /pets?status=pending',
      'GET /waitlist',
    ]);
    expect(report.steps.map((s) => s.id)).toEqual(['find', 'waitlist']);
  });

  it('a criterion failing on a 2xx answer is the workflow declaring a failed outcome: tool.error', async () => {
    const { error, report } = await run('order_pet', { how_many: 9 });
    expect(error?.code).toBe('tool.error');
    expect(report.steps.at(-1)).toMatchObject({ id: 'order', outcome: 'tool_error' });
  });

  it('goto loops until a condition holds (a job polled three times)', async () => {
    const { outputs, report } = await run('wait_for_job', { job: 'after-3' });
    expect(outputs).toEqual({ result: 'built', polls: 3 });
    expect(report.steps.map((s) => s.id)).toEqual(['poll', 'poll', 'poll']);
  });

  it('a goto that never ends is stopped by the call budget, not by the deadline', async () => {
    const started = Date.now();
    const { error, report } = await run('wait_for_job', { job: 'never' });
    expect(error?.code).toBe('upstream.call_budget');
    expect(report.steps.length).toBeLessThanOrEqual(21);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('retry: a 503 retried after retryAfter up to retryLimit, then the step succeeds', async () => {
    const { outputs, report } = await run('flaky_read', { key: 'ok-after-2' });
    expect(outputs).toEqual({ value: 'value-ok-after-2' });
    expect(report.steps.map((s) => [s.id, s.status])).toEqual([
      ['read', 503],
      ['read', 503],
      ['read', 200],
    ]);
  });

  it('retry exhausted: the step fails with the error a chain step gets for the same answer', async () => {
    const { error, report } = await run('flaky_read', { key: 'down' });
    expect(error?.code).toBe('upstream.unavailable');
    expect(report.steps).toHaveLength(3); // the first call and retryLimit 2
  });

  it("inputs are checked against the workflow's JSON Schema, each problem named as the caller knows it", async () => {
    const { error } = await run('flaky_read', { key: 'Not Allowed' });
    expect(error?.code).toBe('input.invalid');
    expect(error?.problems).toEqual([expect.objectContaining({ parameter: 'key' })]);
  });

  it('a step that calls another workflow: its outputs as $outputs, its steps traced under it', async () => {
    const { outputs, report } = await run('order_and_check', { quantity: 1 });
    expect(outputs).toEqual({ order_id: expect.stringMatching(/^ord-\d+$/), name: 'Rex' });
    expect(report.steps.map((s) => s.id)).toEqual(['ordering', 'ordering/find', 'ordering/order', 'pet']);
  });

  it('a failing nested workflow fails the step that called it', async () => {
    const { error } = await run('order_and_check', { quantity: 7 });
    expect(error?.code).toBe('tool.error');
  });

  it("the wrapping sculpt's cache policy: the find step is served from the cache the second time", async () => {
    const e = engine(new StepCache(createMemoryStore(), { secret: SECRET }));
    await run('order_pet', { how_many: 1 }, e);
    const since = shop.requests.length;
    const { report } = await run('order_pet', { how_many: 1 }, e);
    expect(report.steps[0]).toMatchObject({ id: 'find', cache: 'hit' });
    expect(shop.requests.slice(since).map((r) => r.path)).toEqual(['/orders']);
  });
});
