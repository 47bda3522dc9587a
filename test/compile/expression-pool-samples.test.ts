/**
 * The sample sculpts' tests (sculpts/, test/cases/tools/) through the engine with every
 * JSONata evaluation in the worker pool (SCULPTOR_JSONATA_ISOLATION=worker, fast path off so
 * none stays in process): the same outcomes and backend calls as in process
 * (SCULPTOR_JSONATA_ISOLATION=off). Both switches
 * are read when compile-expression.ts loads: each mode is a fresh copy of the modules.
 */
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type * as ExpressionPoolModule from '../../src/compile/jsonata/expression-pool.ts';
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
      pool: await import('../../src/compile/jsonata/expression-pool.ts'),
    };
  } finally {
    vi.unstubAllEnvs();
    vi.resetModules();
  }
}

type Run = Awaited<ReturnType<typeof TestingModule.runSculptTests>>;
let inProcess: Mode;
let isolated: Mode;
let processes: Mode;
let runs: { inProcess: Run; isolated: Run; processes: Run };

beforeAll(async () => {
  inProcess = await load({ SCULPTOR_JSONATA_ISOLATION: 'off' });
  isolated = await load({ SCULPTOR_JSONATA_ISOLATION: 'worker', SCULPTOR_JSONATA_FAST_PATH: 'false' });
  processes = await load({ SCULPTOR_JSONATA_ISOLATION: 'process', SCULPTOR_JSONATA_FAST_PATH: 'false' });
  runs = {
    inProcess: await inProcess.testing.runSculptTests(ROOTS),
    isolated: await isolated.testing.runSculptTests(ROOTS),
    processes: await processes.testing.runSculptTests(ROOTS),
  };
  // Three runs of every sample, two of them starting their evaluators: a loaded machine's time.
}, 90_000);

afterAll(async () => {
  await processes?.pool.closeSharedExpressionPool();
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

it('pass with every evaluation in an evaluator process (the default), with the same outcomes and backend calls', () => {
  expect(runs.processes.passed, processes.testing.formatSculptTestRun(runs.processes)).toBe(true);
  const summary = (run: Run) =>
    run.files.map((f) => ({
      file: f.file,
      cases: f.cases.map((c) => ({ name: c.name, actual: c.actual, calls: c.calls })),
    }));
  expect(summary(runs.processes)).toStrictEqual(summary(runs.inProcess));
  expect(processes.pool.sharedExpressionPool().stats()).toMatchObject({ workers: 2, killed: 0, lost: 0 });
});
