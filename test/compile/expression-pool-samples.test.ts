/**
 * The sample sculpts' tests (sculpts/, test/cases/tools/) through the engine with every
 * JSONata evaluation in the worker pool (SCULPTOR_JSONATA_ISOLATION=worker, fast path off so
 * none stays in process): the same outcomes and backend calls as in process. Both switches
 * are read when compile-expression.ts loads: each mode is a fresh copy of the modules.
 */
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type * as ExpressionPoolModule from '../../src/compile/expression-pool.ts';
import type * as TestingModule from '../../src/testing/index.ts';

const ROOTS = ['sculpts', 'test/cases/tools'];

interface Mode {
  testing: typeof TestingModule;
  pool: typeof ExpressionPoolModule;
}

async function load(env: Record<string, string>): Promise<Mode> {
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  vi.resetModules();
  try {
    return {
      testing: await import('../../src/testing/index.ts'),
      pool: await import('../../src/compile/expression-pool.ts'),
    };
  } finally {
    vi.unstubAllEnvs();
    vi.resetModules();
  }
}

type Run = Awaited<ReturnType<typeof TestingModule.runSculptTests>>;
let inProcess: Mode;
let isolated: Mode;
let runs: { inProcess: Run; isolated: Run };

beforeAll(async () => {
  inProcess = await load({});
  isolated = await load({ SCULPTOR_JSONATA_ISOLATION: 'worker', SCULPTOR_JSONATA_FAST_PATH: 'false' });
  runs = {
    inProcess: await inProcess.testing.runSculptTests(ROOTS),
    isolated: await isolated.testing.runSculptTests(ROOTS),
  };
});

afterAll(async () => {
  await isolated?.pool.closeSharedExpressionPool();
  await inProcess?.pool.closeSharedExpressionPool();
});

it('pass with every evaluation in a worker, with the same outcomes and backend calls', () => {
  expect(runs.isolated.passed, isolated.testing.formatSculptTestRun(runs.isolated)).toBe(true);
  const summary = (run: Run) =>
    run.files.map((f) => ({
      file: f.file,
      cases: f.cases.map((c) => ({ name: c.name, actual: c.actual, calls: c.calls })),
    }));
  expect(summary(runs.isolated)).toStrictEqual(summary(runs.inProcess));
  expect(runs.isolated.totals.cases).toBeGreaterThanOrEqual(18);
  // The workers did the evaluating; the in-process copy never started one.
  expect(isolated.pool.sharedExpressionPool().stats()).toMatchObject({ workers: 2, killed: 0, lost: 0 });
  expect(inProcess.pool.sharedExpressionPool().stats().workers).toBe(0);
});
