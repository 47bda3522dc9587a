/**
 * JSONata in a killable worker pool (RELIABILITY G6, `src/compile/jsonata/expression-pool.ts`):
 * the same answers as in process, a runaway loop without guardrails killed at the signal or
 * the cap while this thread's event loop keeps turning, out of memory contained, a bounded
 * queue. Pools here are small and closed after the file, so no worker outlives it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import jsonata from 'jsonata';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createExpressionPool,
  type ExpressionPool,
  type ExpressionPoolOptions,
  POOL_DEFAULTS,
} from '../../src/compile/jsonata/expression-pool.ts';
import { compileJsonata, JSONATA_LIMITS, jsonataOptions } from '../../src/compile/jsonata/jsonata-options.ts';
import { reportFigures } from '../support/report-figures.ts';

/**
 * The longest this thread may go without running a 5 ms timer. In process, a runaway loop
 * (RELIABILITY M1) would hold it for the whole evaluation (≥ 600 ms here); the margin over
 * RELIABILITY G6's 100 ms is for the
 * OS scheduler on a shared 2-core machine (the /livez test holds the 100 ms).
 */
const GAP_MS = 250;

/** RELIABILITY M1: a loop jsonata's guardrails stop in process (D1012), and nothing else can. */
const RUNAWAY_LOOP = '($loop := function($n) { $n > 0 ? $loop($n) : 0 }; $loop(1))';
const NO_GUARDRAILS = {};

const pools: ExpressionPool[] = [];
function pool(options: Partial<ExpressionPoolOptions> = {}): ExpressionPool {
  const created = createExpressionPool(options);
  pools.push(created);
  return created;
}
afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
});

async function outcome(evaluate: () => Promise<unknown>): Promise<{ value: unknown } | { code: unknown }> {
  try {
    return { value: await evaluate() };
  } catch (err) {
    return { code: (err as { code?: unknown }).code };
  }
}

/**
 * The largest gap between 5 ms timer ticks while `work` runs: what a /livez request
 * would wait at most for this thread.
 */
async function maxTimerGap<T>(work: Promise<T>): Promise<{ result: T; gapMs: number }> {
  let last = performance.now();
  let gapMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    gapMs = Math.max(gapMs, now - last);
    last = now;
  }, 5);
  try {
    return { result: await work, gapMs };
  } finally {
    clearInterval(timer);
  }
}

/** Sequences carry jsonata's own `push` guard, a function no copy can keep; nothing else differs. */
function withoutSequenceGuards(value: unknown, seen = new Set<unknown>()): unknown {
  if (value === null || typeof value !== 'object' || seen.has(value)) return value;
  seen.add(value);
  if (Array.isArray(value) && typeof (value as unknown as { push: unknown }).push === 'function') {
    if (Object.hasOwn(value, 'push')) delete (value as unknown as { push?: unknown }).push;
  }
  for (const item of Object.values(value)) withoutSequenceGuards(item, seen);
  return value;
}

function containsFunction(value: unknown, seen = new Set<unknown>()): boolean {
  if (typeof value === 'function') return true;
  if (value === null || typeof value !== 'object' || seen.has(value)) return false;
  seen.add(value);
  return Object.values(value).some((item) => containsFunction(item, seen));
}

describe('the same answers as in process', () => {
  const SUITE = join(import.meta.dirname, '../fixtures/jsonata-test-suite');
  /** Every group but those that time jsonata itself. */
  const GROUPS = readdirSync(join(SUITE, 'groups'))
    .filter((g) => !['performance', 'tail-recursion'].includes(g))
    .sort();
  const datasets = new Map<string, unknown>();
  const dataset = (name: string): unknown => {
    if (!datasets.has(name)) {
      datasets.set(name, JSON.parse(readFileSync(join(SUITE, 'datasets', `${name}.json`), 'utf8')));
    }
    return datasets.get(name);
  };

  interface SuiteCase {
    expr?: string;
    data?: unknown;
    dataset?: string | null;
    bindings?: Record<string, unknown>;
    timelimit?: number;
  }

  function cases(): Array<{ name: string; expr: string; input: unknown; bindings: Record<string, unknown> }> {
    const found = [];
    for (const group of GROUPS) {
      const dir = join(SUITE, 'groups', group);
      for (const file of readdirSync(dir).sort()) {
        if (!file.endsWith('.json')) continue;
        const parsed = JSON.parse(readFileSync(join(dir, file), 'utf8')) as SuiteCase | SuiteCase[];
        for (const [i, c] of (Array.isArray(parsed) ? parsed : [parsed]).entries()) {
          // Clocks and randomness answer differently on every call, wherever they run.
          if (!c.expr || /\$(now|millis|random)\b/.test(c.expr) || c.timelimit !== undefined) continue;
          const input = 'data' in c ? c.data : c.dataset ? dataset(c.dataset) : undefined;
          found.push({ name: `${group}/${file}#${i}`, expr: c.expr, input, bindings: c.bindings ?? {} });
        }
      }
    }
    return found;
  }

  it('for JSONata suite cases: values (prototypes and sequence flags included) and error codes', async () => {
    const workers = pool();
    const all = cases();
    expect(all.length).toBeGreaterThan(300);
    const differences: string[] = [];
    let functions = 0;
    for (const { name, expr, input, bindings } of all) {
      let inProcess: { value: unknown } | { code: unknown };
      try {
        // As sculpt expressions run in process: jsonata with the guardrails and the bounded built-ins.
        inProcess = await outcome(() => compileJsonata(expr).evaluate(input, bindings));
      } catch {
        continue; // does not compile: never reaches a worker (refused at load)
      }
      const isolated = await outcome(() => workers.evaluate(expr, input, bindings));
      if ('value' in inProcess && containsFunction(withoutSequenceGuards(inProcess.value))) {
        // A function (a lambda, a regex) cannot cross threads: refused with a code, never wrong.
        functions++;
        if (!isDeepStrictEqual(isolated, { code: 'W1006' })) differences.push(`${name}: ${expr}`);
        continue;
      }
      if (!isDeepStrictEqual(inProcess, isolated)) {
        differences.push(`${name}: ${expr} → ${JSON.stringify(inProcess)} vs ${JSON.stringify(isolated)}`);
      }
    }
    reportFigures(
      `JSONata suite: ${all.length} cases in a worker and in process, ${functions} answering a function.`,
    );
    expect(differences).toEqual([]);
    expect(functions).toBeLessThan(all.length / 10);
  });

  it('keeps null prototypes, own __proto__ keys and shared references', async () => {
    const workers = pool();
    const value = (await workers.evaluate(
      '{ "__proto__": {"a": 1}, "x": [$.o, $.o] }',
      { o: { k: 1 } },
      {},
    )) as {
      x: [object, object];
    };
    expect(Object.getPrototypeOf(value)).toBe(null);
    expect(Object.keys(value)).toEqual(['__proto__', 'x']);
    expect(Object.getPrototypeOf(Object.getOwnPropertyDescriptor(value, '__proto__')!.value)).toBe(null);
    expect(value.x[0]).toBe(value.x[1]);
    expect(({} as { a?: unknown }).a).toBeUndefined();
  });

  it('reports an error by code and position, never the data in its message', async () => {
    const workers = pool();
    const input = { s: 'canary-4f2c' };
    const inProcess = (await jsonata('$number(s)', jsonataOptions())
      .evaluate(input)
      .catch((err: unknown) => err)) as { code: string; position: number; message: string };
    expect(inProcess.message).toContain('canary'); // why only code and position cross
    const failed = await workers.evaluate('$number(s)', input, {}).catch((err: unknown) => err);
    expect(failed).toMatchObject({ code: 'D3030', position: inProcess.position });
    expect(JSON.stringify(failed)).not.toContain('canary');
  });
});

describe('what cannot cross threads', () => {
  it('a function as the result, or in the input: W1006, and the worker stays usable', async () => {
    const workers = pool({ size: 1 });
    expect(await outcome(() => workers.evaluate('function($x) { $x }', {}, {}))).toEqual({ code: 'W1006' });
    expect(await outcome(() => workers.evaluate('$uppercase', {}, {}))).toEqual({ code: 'W1006' });
    expect(await outcome(() => workers.evaluate('$', { f: () => 1 }, {}))).toEqual({ code: 'W1006' });
    expect(await workers.evaluate('$uppercase("ok")', {}, {})).toBe('OK');
    expect(workers.stats()).toMatchObject({ workers: 1, killed: 0, lost: 0 });
  });
});

describe('a runaway evaluation without guardrails', () => {
  it('ends at the signal with W1001, this thread running its timers meanwhile', async () => {
    const workers = pool({ limits: NO_GUARDRAILS, capMs: 30_000 });
    await workers.evaluate('1', {}, {}); // loaded
    const started = performance.now();
    const { result, gapMs } = await maxTimerGap(
      outcome(() => workers.evaluate(RUNAWAY_LOOP, {}, {}, AbortSignal.timeout(600))),
    );
    const elapsed = performance.now() - started;
    expect(result).toEqual({ code: 'W1001' });
    expect(elapsed).toBeGreaterThanOrEqual(590);
    expect(elapsed).toBeLessThan(1_500);
    expect(gapMs).toBeLessThan(GAP_MS);
    // Replaced: the next evaluation works, on a fresh worker.
    expect(await workers.evaluate('$sum([1, 2])', {}, {})).toBe(3);
    expect(workers.stats()).toMatchObject({ workers: 2, busy: 0, killed: 1 });
  });

  it('ends at the per-evaluation cap with W1002 when no signal is given', async () => {
    const workers = pool({ limits: NO_GUARDRAILS, capMs: 400 });
    await workers.evaluate('1', {}, {});
    const started = performance.now();
    const { result, gapMs } = await maxTimerGap(outcome(() => workers.evaluate(RUNAWAY_LOOP, {}, {})));
    expect(result).toEqual({ code: 'W1002' });
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(gapMs).toBeLessThan(GAP_MS);
    expect(await workers.evaluate('"again"', {}, {})).toBe('again');
  });

  it('with the guardrails on (production), jsonata stops it first: D1012, no kill', async () => {
    const workers = pool();
    expect(POOL_DEFAULTS.capMs).toBeGreaterThan(JSONATA_LIMITS.timeout);
    expect(await outcome(() => workers.evaluate(RUNAWAY_LOOP, {}, {}))).toEqual({ code: 'D1012' });
    expect(workers.stats().killed).toBe(0);
  });

  it('never starts when the signal has already aborted', async () => {
    const workers = pool();
    expect(await outcome(() => workers.evaluate('1', {}, {}, AbortSignal.abort()))).toEqual({
      code: 'W1001',
    });
  });
});

describe('out of memory in a worker', () => {
  it('fails the evaluation with W1003; the pool replaces the worker and goes on', async () => {
    // Guardrails off lets the sequence grow; the heap fills with many small objects (the
    // way the heap limit is caught cleanly — see docs/SECURITY.md for single huge allocations).
    // 32 MiB, the least the settings allow: a loaded worker holds about 14 MiB, so a smaller
    // limit can end the idle worker too while it loads on a busy machine.
    const workers = pool({ limits: NO_GUARDRAILS, heapMb: 32, capMs: 10_000 });
    expect(await outcome(() => workers.evaluate('$count([1..1000000].{"a": $})', {}, {}))).toEqual({
      code: 'W1003',
    });
    expect(workers.stats()).toMatchObject({ lost: 1 });
    expect(await workers.evaluate('$count([1..1000])', {}, {})).toBe(1000);
    expect(workers.stats()).toMatchObject({ workers: 2, busy: 0 });
  });
});

describe('the queue', () => {
  it('is bounded: past it an evaluation fails at once with W1005; waiting ones run when a worker frees', async () => {
    const workers = pool({ size: 1, maxQueue: 2, limits: NO_GUARDRAILS, capMs: 30_000 });
    const stop = new AbortController();
    const running = outcome(() => workers.evaluate(RUNAWAY_LOOP, {}, {}, stop.signal));
    const waiting = [
      outcome(() => workers.evaluate('1 + 1', {}, {})),
      outcome(() => workers.evaluate('"b"', {}, {})),
    ];
    const refusedAt = performance.now();
    expect(await outcome(() => workers.evaluate('3', {}, {}))).toEqual({ code: 'W1005' });
    expect(performance.now() - refusedAt).toBeLessThan(50);
    expect(workers.stats()).toMatchObject({ busy: 1, queued: 2 });
    stop.abort();
    expect(await running).toEqual({ code: 'W1001' });
    expect(await Promise.all(waiting)).toEqual([{ value: 2 }, { value: 'b' }]);
  });

  it('lets a waiting evaluation leave when its signal aborts', async () => {
    const workers = pool({ size: 1, maxQueue: 4, limits: NO_GUARDRAILS, capMs: 30_000 });
    const stop = new AbortController();
    const running = outcome(() => workers.evaluate(RUNAWAY_LOOP, {}, {}, stop.signal));
    const leaving = new AbortController();
    const waiting = outcome(() => workers.evaluate('1', {}, {}, leaving.signal));
    leaving.abort();
    expect(await waiting).toEqual({ code: 'W1001' });
    expect(workers.stats()).toMatchObject({ busy: 1, queued: 0 });
    stop.abort();
    await running;
  });

  it('is emptied by close(): waiting and running evaluations fail with W1004', async () => {
    const workers = createExpressionPool({ size: 1, limits: NO_GUARDRAILS, capMs: 30_000 });
    const running = outcome(() => workers.evaluate(RUNAWAY_LOOP, {}, {}));
    const waiting = outcome(() => workers.evaluate('1', {}, {}));
    await workers.close();
    expect(await running).toEqual({ code: 'W1004' });
    expect(await waiting).toEqual({ code: 'W1004' });
    expect(workers.stats()).toMatchObject({ workers: 0, busy: 0, queued: 0 });
  });
});
