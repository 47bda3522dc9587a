/**
 * The sample sculpts with the JSONata fast path on and off (SCULPTOR_JSONATA_FAST_PATH, read
 * when compile-expression.ts loads: each mode is a fresh copy of the modules).
 *
 * - Every sculpt test file (sculpts/, test/cases/tools/) runs through the engine both ways,
 *   with the same outcomes and the same backend calls.
 * - Every expression evaluation those runs make is recorded, then evaluated again both ways:
 *   the same answers, prototypes included.
 * - The bench's sculpts (bench/sculpts/) over the bench's recorded bodies: the fast path
 *   answers every one of their expressions, and jsonata gives the same answers.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type * as CompileExpressionModule from '../../src/compile/compile-expression.ts';
import type * as CompileSculptsModule from '../../src/compile/compile-sculpts.ts';
import type * as FastPathModule from '../../src/compile/fast-path.ts';
import type * as TestingModule from '../../src/testing/index.ts';
import { reportFigures } from '../support/report-figures.ts';

const ROOTS = ['sculpts', 'test/cases/tools'];
const REPO = join(import.meta.dirname, '../..');
const at = () => ({ file: 'replayed', line: 1, column: 1 });

interface Mode {
  testing: typeof TestingModule;
  compileSculpts: typeof CompileSculptsModule.compileSculpts;
  compileExpression: typeof CompileExpressionModule.compileExpression;
  fastPath: typeof FastPathModule;
}

interface Evaluation {
  source: string;
  input: unknown;
  bindings: Record<string, unknown>;
}

/** Every evaluation the engine asks for while the fast-path-on mode runs the sculpt tests. */
const recorded: Evaluation[] = [];
let recording = true;

function remember(source: string, input: unknown, bindings: Record<string, unknown>): void {
  if (!recording) return;
  // `steps` fills in as steps finish: keep what this evaluation saw.
  const steps = bindings.steps as Record<string, unknown> | undefined;
  recorded.push({ source, input, bindings: steps ? { ...bindings, steps: { ...steps } } : bindings });
}

async function load(fastPath: boolean, record: boolean): Promise<Mode> {
  vi.stubEnv('SCULPTOR_JSONATA_FAST_PATH', String(fastPath));
  // The fast path against jsonata, both in this process: where jsonata runs is another test's
  // (expression-pool-samples.test.ts).
  vi.stubEnv('SCULPTOR_JSONATA_ISOLATION', 'off');
  vi.resetModules();
  if (record) {
    vi.doMock('../../src/compile/compile-expression.ts', async (importOriginal) => {
      const original = await importOriginal<typeof CompileExpressionModule>();
      const compileExpression: typeof original.compileExpression = (source, where) => {
        const compiled = original.compileExpression(source, where);
        return {
          ...compiled,
          // The engine asks evaluateSync first and evaluate when it bails: record both.
          evaluate: (input, bindings) => {
            remember(source, input, bindings);
            return compiled.evaluate(input, bindings);
          },
          evaluateSync: (input, bindings) => {
            remember(source, input, bindings);
            return compiled.evaluateSync(input, bindings);
          },
        };
      };
      return { ...original, compileExpression };
    });
  }
  try {
    return {
      testing: await import('../../src/testing/index.ts'),
      compileSculpts: (await import('../../src/compile/compile-sculpts.ts')).compileSculpts,
      compileExpression: (await import('../../src/compile/compile-expression.ts')).compileExpression,
      fastPath: await import('../../src/compile/fast-path.ts'),
    };
  } finally {
    vi.doUnmock('../../src/compile/compile-expression.ts');
    vi.unstubAllEnvs();
    vi.resetModules();
  }
}

async function outcome(evaluate: () => Promise<unknown>): Promise<{ value: unknown } | { code: unknown }> {
  try {
    return { value: await evaluate() };
  } catch (err) {
    return { code: (err as { code?: unknown }).code };
  }
}

type Run = Awaited<ReturnType<typeof TestingModule.runSculptTests>>;

let on: Mode;
let off: Mode;
let runs: { on: Run; off: Run };
beforeAll(async () => {
  on = await load(true, true);
  off = await load(false, false);
  runs = { on: await on.testing.runSculptTests(ROOTS), off: await off.testing.runSculptTests(ROOTS) };
  recording = false;
});

describe('the switch', () => {
  it('is read when compile-expression.ts loads: on in one copy of the modules, off in the other', () => {
    expect(on.compileExpression('$inputs.x', at).fastPath).toBe(true);
    expect(on.compileExpression('$sum($inputs.x)', at).fastPath).toBe(false);
    expect(off.compileExpression('$inputs.x', at).fastPath).toBe(false);
  });
});

describe('the sculpt tests, fast path on and off', () => {
  it('pass both ways, with the same outcomes and backend calls', () => {
    expect(runs.on.passed, on.testing.formatSculptTestRun(runs.on)).toBe(true);
    expect(runs.off.passed, off.testing.formatSculptTestRun(runs.off)).toBe(true);
    const summary = (run: Run) =>
      run.files.map((f) => ({
        file: f.file,
        cases: f.cases.map((c) => ({ name: c.name, actual: c.actual, calls: c.calls })),
      }));
    expect(summary(runs.on)).toStrictEqual(summary(runs.off));
    expect(runs.on.totals.cases).toBeGreaterThanOrEqual(18);
  });

  it('evaluate every expression the runs evaluated to the same answers both ways', async () => {
    expect(recorded.length).toBeGreaterThan(40);
    let answered = 0;
    const differences: string[] = [];
    for (const { source, input, bindings } of recorded) {
      const fast = on.compileExpression(source, at);
      const slow = off.compileExpression(source, at);
      const a = await outcome(() => fast.evaluate(input, bindings));
      const b = await outcome(() => slow.evaluate(input, bindings));
      if (!isDeepStrictEqual(a, b))
        differences.push(`${source}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
      const path = on.fastPath.compileFastPath(fast.ast);
      if (path && path(input, bindings) !== on.fastPath.BAIL) answered += 1;
    }
    reportFigures(
      `Sample sculpts: ${recorded.length} evaluations recorded; the fast path answered ${answered} itself, ` +
        `jsonata the other ${recorded.length - answered}; same answers both ways.`,
    );
    expect(differences).toEqual([]);
    expect(answered).toBeGreaterThan(20);
  });
});

describe('the bench sculpts over the bench fixtures', () => {
  const fixture = (name: string) =>
    JSON.parse(readFileSync(join(REPO, 'bench/fixtures', name), 'utf8')) as unknown;
  const bodies: Record<string, unknown> = {
    geocode: fixture('open-meteo-search-new-york.json'),
    point: fixture('nws-point-nyc.json'),
    gridpoint_forecast: fixture('nws-forecast-okx.json'),
  };
  const inputs: Record<string, Record<string, unknown>> = {
    bench_forecast: { office: 'OKX', x: 33, y: 35 },
    bench_chain: { place: 'New York' },
    bench_chain_cached: { place: 'New York' },
  };

  /** Runs each tool's expressions as the engine would, each backend answering its fixture. */
  async function simulate(mode: Mode) {
    const env = { BENCH_BACKEND_URL: 'http://127.0.0.1:9' };
    const tools = await mode.compileSculpts(join(REPO, 'bench/sculpts'), env);
    const trace: Array<{ tool: string; source: string; value: unknown; fast: boolean }> = [];
    const run = async (
      tool: string,
      expression: CompileExpressionModule.CompiledExpression,
      input: unknown,
      b: Record<string, unknown>,
    ) => {
      const path = mode.fastPath.compileFastPath(expression.ast);
      const fast = path !== undefined && path(input, b) !== mode.fastPath.BAIL;
      const value = await expression.evaluate(input, b);
      trace.push({ tool, source: expression.source, value, fast });
      return value;
    };
    const outputs: Record<string, unknown> = {};
    for (const tool of tools) {
      const name = tool.signature.name;
      const toolInputs = inputs[name] ?? {};
      const steps: Record<string, unknown> = {};
      for (const step of tool.steps) {
        const b = { inputs: toolInputs, steps };
        if (step.params) await run(name, step.params, toolInputs, b);
        const body = bodies[step.operation.operationId ?? ''];
        steps[step.id] = step.result ? await run(name, step.result, body, b) : body;
      }
      outputs[name] = await run(name, tool.output, toolInputs, { inputs: toolInputs, steps });
    }
    return { trace, outputs };
  }

  it('are answered by the fast path, exactly as jsonata answers them', async () => {
    const withFastPath = await simulate(on);
    const without = await simulate(off);
    expect(withFastPath.trace.map((t) => t.value)).toStrictEqual(without.trace.map((t) => t.value));
    expect(withFastPath.trace.filter((t) => !t.fast).map((t) => `${t.tool}: ${t.source}`)).toEqual([]);
    expect(withFastPath.trace.length).toBe(12);
    const answer = { temperature: 22, short_forecast: 'Sunny' };
    expect({ ...(withFastPath.outputs.bench_forecast as object) }).toEqual(answer);
    expect({ ...(withFastPath.outputs.bench_chain as object) }).toEqual({ place: 'New York', ...answer });
    expect(withFastPath.trace.find((t) => t.source.includes('"point"'))?.value).toStrictEqual(
      Object.assign(Object.create(null) as object, { point: '40.71427,-74.00597' }),
    );
  });
});
