/**
 * RELIABILITY G6 over real HTTP: with SCULPTOR_JSONATA_ISOLATION=worker, a runaway loop (RELIABILITY M1),
 * injected WITHOUT jsonata's guardrails into the worker path, ends at the tool's deadline and
 * /livez keeps answering in < 100 ms throughout (in process, that loop never yields: nothing
 * would answer). The switch is read when compile-expression.ts loads, so this file loads a
 * fresh copy of the gateway's modules with it set; the shared pool is swapped for one whose
 * workers run without guardrails (the production pool cannot be told to).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type * as ExpressionPoolModule from '../../src/compile/jsonata/expression-pool.ts';
import type * as TestGatewayModule from '../support/start-test-gateway.ts';
import { expectLivezFast, probeLivez as probeLivezAt, SCHEDULER_RETRIES } from './probe-livez.ts';

const SCULPTS = 'test/hardening/fixtures/jsonata-isolation';
const DEADLINE_MS = 1_000;

let support: typeof TestGatewayModule;
let pool: ExpressionPoolModule.ExpressionPool;
let gateway: Awaited<ReturnType<typeof TestGatewayModule.startTestGateway>>;

beforeAll(async () => {
  vi.stubEnv('SCULPTOR_JSONATA_ISOLATION', 'worker');
  vi.resetModules();
  vi.doMock('../../src/compile/jsonata/expression-pool.ts', async (importOriginal) => {
    const original = await importOriginal<typeof ExpressionPoolModule>();
    // Guardrails off, and a cap far past the deadline: only the deadline can stop the loop.
    pool = original.createExpressionPool({ limits: {}, capMs: 60_000 });
    return { ...original, sharedExpressionPool: () => pool };
  });
  try {
    support = await import('../support/start-test-gateway.ts');
    // Shedding off: a lag caused by a busy machine must not turn these answers into 503s.
    gateway = await support.startTestGateway(SCULPTS, {}, { shedLagMs: 0 });
  } finally {
    vi.doUnmock('../../src/compile/jsonata/expression-pool.ts');
    vi.unstubAllEnvs();
    vi.resetModules();
  }
});

afterAll(async () => {
  await gateway?.close();
  await pool?.close();
});

const invokeTool = (name: string, inputs: Record<string, unknown>) =>
  support.invokeTool(gateway.url, name, inputs);

/** One run of `work` (each takes the whole deadline, ample for the probes), /livez probed throughout. */
const probeLivez = async <T>(work: () => Promise<T>) => {
  const { results, times } = await probeLivezAt(gateway.url, work);
  expect(results).toHaveLength(1);
  return { result: results[0]!, times };
};

describe('SCULPTOR_JSONATA_ISOLATION=worker, a runaway loop without guardrails', () => {
  it('evaluates ordinary projections in the workers', async () => {
    const answer = await invokeTool('sum_inputs', { a: 2, b: 40 });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ output_parameters: [{ name: 'total', value: 42 }] });
  });

  it(
    'in a step: 504 upstream.timeout at the deadline, /livez answering < 100 ms throughout',
    SCHEDULER_RETRIES,
    async () => {
      const killed = pool.stats().killed;
      const started = performance.now();
      const { result, times } = await probeLivez(() => invokeTool('runaway_params', { start: 1 }));
      const elapsed = performance.now() - started;
      expect(result.status).toBe(504);
      expect(result.body.code).toBe('upstream.timeout');
      expect(elapsed).toBeGreaterThanOrEqual(DEADLINE_MS - 20);
      expect(elapsed).toBeLessThan(DEADLINE_MS + 1_000);
      expectLivezFast(times);
      expect(pool.stats().killed).toBe(killed + 1);
      expect(gateway.reports.at(-1)?.steps[0]?.errorCode).toBe('projection.failed');
    },
  );

  it(
    'in the output projection: 504 upstream.timeout at the deadline, /livez < 100 ms',
    SCHEDULER_RETRIES,
    async () => {
      const started = performance.now();
      const { result, times } = await probeLivez(() => invokeTool('runaway_output', { start: 1 }));
      const elapsed = performance.now() - started;
      // The deadline's kill (JSONata W1001) is reported as the deadline, as for a step.
      expect(result.status).toBe(504);
      expect(result.body.code).toBe('upstream.timeout');
      expect(elapsed).toBeGreaterThanOrEqual(DEADLINE_MS - 20);
      expect(elapsed).toBeLessThan(DEADLINE_MS + 1_000);
      expectLivezFast(times);
    },
  );

  it('keeps serving after the kills: workers replaced, none busy', async () => {
    expect((await invokeTool('sum_inputs', { a: 1, b: 1 })).body).toEqual({
      output_parameters: [{ name: 'total', value: 2 }],
    });
    expect(pool.stats()).toMatchObject({ workers: 2, busy: 0, queued: 0 });
    expect(pool.stats().killed).toBeGreaterThanOrEqual(2);
  });
});
