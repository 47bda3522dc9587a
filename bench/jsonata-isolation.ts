/**
 * The cost of JSONata worker isolation (RELIABILITY G6, SCULPTOR_JSONATA_ISOLATION=worker):
 * µs per evaluation in process against in a worker of the pool, for a few representative
 * expressions over the bench's recorded answers. docs/PERFORMANCE.md records a run.
 *
 *   npx node bench/jsonata-isolation.ts [--seconds 2]
 *
 * Columns, per evaluation:
 * - `latency`: one evaluation at a time, wall clock (what an invocation waits);
 * - `main CPU`: the main thread's busy time (event-loop utilization): what the gateway's
 *   own thread pays, the figure its throughput depends on;
 * - `process CPU`: all threads (the worker's evaluation and both sides' copying included);
 * - `16 at once`: wall clock per evaluation with 16 in flight (throughput of the pool).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import jsonata from 'jsonata';
import { compileExpression } from '../src/compile/compile-expression.ts';
import { createExpressionPool } from '../src/compile/jsonata/expression-pool.ts';
import { jsonataOptions } from '../src/compile/jsonata/jsonata-options.ts';

const { values: args } = parseArgs({ options: { seconds: { type: 'string', default: '2' } } });
const SECONDS = Number(args.seconds);

const fixture = (name: string) =>
  JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', name), 'utf8')) as Record<string, unknown>;
const geocoded = fixture('open-meteo-search-new-york.json');
const forecast = fixture('nws-forecast-okx.json') as { properties: { periods: unknown[] } };
const weatherSculpt = readFileSync(
  join(import.meta.dirname, '../sculpts/weather/lookup_weather_by_city.v1.sculpt.yaml'),
  'utf8',
);
/** The weather sample's output projection, as written in its sculpt. */
const weatherOutput = weatherSculpt.slice(weatherSculpt.indexOf('output: |') + 'output: |'.length);

interface Case {
  name: string;
  source: string;
  input: unknown;
  bindings: Record<string, unknown>;
}

const CASES: Case[] = [
  {
    name: 'weather output (sample sculpt, 14 periods bound)',
    source: weatherOutput,
    input: { city: 'New York' },
    bindings: {
      inputs: { city: 'New York' },
      steps: {
        geocode: (geocoded.results as unknown[])[0],
        point: {},
        forecast: forecast.properties.periods,
      },
    },
  },
  {
    name: 'forecast result $.properties.periods (13 KB in)',
    source: '$.properties.periods',
    input: forecast,
    bindings: { inputs: {}, steps: {} },
  },
  {
    name: 'small: { "total": $sum([$inputs.a, $inputs.b]) }',
    source: '{ "total": $sum([$inputs.a, $inputs.b]) }',
    input: { a: 2, b: 40 },
    bindings: { inputs: { a: 2, b: 40 }, steps: {} },
  },
];

interface Figures {
  latencyUs: number;
  mainCpuUs: number;
  processCpuUs: number;
  concurrentUs: number;
}

async function measure(evaluate: () => Promise<unknown>, isolated: boolean): Promise<Figures> {
  for (let i = 0; i < 500; i++) await evaluate(); // warm-up
  let n = 0;
  const elu0 = performance.eventLoopUtilization();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  while (performance.now() - t0 < SECONDS * 1000) {
    await evaluate();
    n++;
  }
  const wall = performance.now() - t0;
  const elu = performance.eventLoopUtilization(elu0);
  const cpu = process.cpuUsage(cpu0);
  let m = 0;
  const t1 = performance.now();
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (performance.now() - t1 < SECONDS * 1000) {
        await evaluate();
        m++;
      }
    }),
  );
  const concurrentWall = performance.now() - t1;
  return {
    latencyUs: (wall * 1000) / n,
    // In process everything runs on this thread; with workers, this thread's busy time is the
    // event loop's active time (it idles while a worker evaluates).
    mainCpuUs: isolated ? (elu.active * 1000) / n : (cpu.user + cpu.system) / n,
    processCpuUs: (cpu.user + cpu.system) / n,
    concurrentUs: (concurrentWall * 1000) / m,
  };
}

const fmt = (us: number) => us.toFixed(us < 10 ? 2 : 1).padStart(8);
const pool = createExpressionPool();
const at = () => ({ file: 'bench', line: 1, column: 1 });
console.log(`node ${process.version}, ${SECONDS} s per figure; µs per evaluation`);
console.log(`${'expression'.padEnd(52)} ${'mode'.padEnd(22)} latency main CPU proc CPU 16 at once`);
try {
  for (const c of CASES) {
    const compiled = compileExpression(c.source, at);
    const plain = jsonata(c.source, jsonataOptions());
    const modes: Array<[string, () => Promise<unknown>, boolean?]> = [
      [
        compiled.fastPath ? 'in process, fast path' : 'in process (jsonata)',
        () => compiled.evaluate(c.input, c.bindings),
      ],
      ...(compiled.fastPath
        ? ([['in process, jsonata', () => plain.evaluate(c.input, c.bindings)]] as Array<
            [string, () => Promise<unknown>]
          >)
        : []),
      ['worker pool (2)', () => pool.evaluate(c.source, c.input, c.bindings), true],
    ];
    for (const [mode, evaluate, isolated = false] of modes) {
      const f = await measure(evaluate, isolated);
      console.log(
        `${c.name.padEnd(52)} ${mode.padEnd(22)}${fmt(f.latencyUs)} ${fmt(f.mainCpuUs)} ${fmt(f.processCpuUs)} ${fmt(f.concurrentUs)}`,
      );
    }
  }
} finally {
  await pool.close();
}
