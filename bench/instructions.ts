/**
 * Instructions per call, counted by valgrind's callgrind in each server process (every thread: the
 * event loop, the JIT compilers, the garbage collector's helpers), for the A2T call of the bench:
 * Sculptor (bench_forecast alone), the lean hand-written handler and the duty-equal one. CPU time
 * per call on a shared two-core machine drifts by up to 2× between rounds; the count of
 * instructions a server executes for the same calls moves by about 1.5 % between runs at the same
 * load, so it resolves differences the timed rounds cannot. It is not time: a cache miss or a
 * mispredicted branch costs no instruction, so it complements the timed ratios, it does not
 * replace them.
 *
 * Each server runs under `valgrind --tool=callgrind` with counting off; after `--warmup` calls
 * (one connection, so that every run interleaves its work the same way) counting is switched on
 * for `--calls` more, then dumped. The three run at once (each on loopback, its own port), and the
 * other processes' load meanwhile is printed with the table: a server's timers count too, so a
 * loaded machine adds to some servers' counts (watchOtherLoad). A major collection (mark-compact)
 * falls in some windows and not in others, so its share is printed on its own and left out of the
 * ratios.
 *
 * `npm run bench` ends with it (`--no-instructions` leaves it out); alone:
 *
 *   npx node bench/instructions.ts [--warmup 4000] [--calls 1500]   # ≈ 2 min; needs valgrind
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { type Child, type ReadyMessage, startChild } from './child.ts';
import { foreignCores, processTree, snapshot } from './cpu.ts';
import { FORECAST_BODY, forecastOnlySculpts, HAND_WRITTEN_PATH } from './invocations.ts';
import { toolIdFor } from '../src/compile/tool-signature.ts';
import { markdownTable } from './rounds.ts';

/** Functions of V8's mark-compact collector (marking, sweeping, compaction), by name. */
const MAJOR_GC =
  /Marking|Sweep|MarkCompact|Compactor|Evacuat|FreeList|IterateObjectCache|StringTableCleaner|NeedsResetDueToFlushedBytecode/;

interface Counted {
  /** Instructions per call, everything counted. */
  all: number;
  /** Of which the mark-compact collector's. */
  majorGc: number;
}

export interface InstructionOptions {
  /** Calls that warm each server before counting. */
  warmup: number;
  /** Calls counted. */
  calls: number;
}

/** The table of instructions per call, or why nothing was counted. */
export async function countInstructions({ warmup, calls }: InstructionOptions): Promise<string> {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
  } catch {
    return 'Instructions per call: valgrind is not installed (Debian: apt-get install valgrind), nothing counted.';
  }
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'sculptor-instructions-'));
  const backend = await startChild<ReadyMessage>('backend.ts');
  try {
    const env = { BENCH_BACKEND_URL: backend.ready.url! };
    const servers: Server[] = [
      { name: 'Lean hand-written Hono handler', script: 'hand-written.ts', path: HAND_WRITTEN_PATH },
      {
        name: 'Duty-equal hand-written (Hono, cockatiel, ajv, prom-client)',
        script: 'duty-equal.ts',
        path: HAND_WRITTEN_PATH,
      },
      {
        name: 'Sculptor A2T POST /tools/{id}:invoke',
        script: 'sculptor.ts',
        args: [forecastOnlySculpts(path.join(tmp, 'sculpts'))],
        env: { SCULPTOR_SECRET: 'x'.repeat(32), SCULPTOR_SHED_LAG_MS: '0' },
        path: `/tools/${toolIdFor('bench_forecast')}:invoke`,
      },
    ];
    // At once, each on one connection: the three see the same machine.
    const load = watchOtherLoad();
    const results = await Promise.all(
      servers.map((server, i) =>
        count(server, { ...env, ...server.env }, path.join(tmp, `${i}`), warmup, calls),
      ),
    ).finally(load.stop);
    const steady = (r: Counted) => r.all - r.majorGc;
    const lean = steady(results[0]!);
    const duty = steady(results[1]!);
    const k = (n: number) => `${Math.round(n / 1000).toLocaleString('en-US')}k`;
    return [
      `Instructions per call (callgrind, every thread of the server): ${warmup} calls to warm each server, then ${calls} counted, one connection. Mark-compact collections fall in some windows and not in others: the ratios leave them out.`,
      load.summary(),
      '',
      markdownTable([
        ['Server', 'instructions per call', 'of which mark-compact', 'without it, vs lean', 'vs duty-equal'],
        ...servers.map((server, i) => {
          const r = results[i]!;
          return [
            server.name,
            k(r.all),
            k(r.majorGc),
            `${(steady(r) / lean).toFixed(2)}×`,
            `${(steady(r) / duty).toFixed(2)}×`,
          ];
        }),
      ]),
    ].join('\n');
  } finally {
    await backend.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * Other processes' CPU, sampled each second while the servers run. Counts are not independent of
 * it: work a server does per second of wall time (prom-client's default metrics sample the event
 * loop's delay every 10 ms) is more instructions per call when a loaded machine makes every call
 * longer. The same trees counted 7–9 % more per call for the duty-equal handler and Sculptor,
 * and no more for the lean handler, while tests ran beside them.
 */
function watchOtherLoad(): { stop: () => void; summary: () => string } {
  const samples: number[] = [];
  let before = snapshot(processTree(process.pid));
  const timer = setInterval(() => {
    // The tree as it is now, servers started during the second included.
    const ours = processTree(process.pid);
    const after = snapshot(ours);
    const cores = foreignCores(before, after, ours);
    if (cores !== undefined) samples.push(cores);
    before = after;
  }, 1_000);
  return {
    stop: () => clearInterval(timer),
    summary() {
      if (samples.length === 0) return 'Other load: not measured (no /proc).';
      const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
      // No maximum: a server's last second (callgrind writing its dump as it exits) reads as other load.
      const line = `Other load while counting: ${mean.toFixed(2)} cores on average.`;
      return mean > OTHER_LOAD_LIMIT_CORES
        ? `${line} **Compare these counts only with runs at a similar load** (see watchOtherLoad).`
        : line;
    },
  };
}

/** Above this much other load on average, the table says its counts are not comparable with a quiet run's. */
const OTHER_LOAD_LIMIT_CORES = 0.25;

interface Server {
  name: string;
  script: string;
  args?: string[];
  env?: Record<string, string>;
  path: string;
}

/** `count` calls, one at a time, each checked. */
async function call(url: URL, count: number): Promise<void> {
  const pool = new Pool(url.origin, { connections: 1 });
  try {
    for (let i = 0; i < count; i++) {
      const res = await pool.request({
        method: 'POST',
        path: url.pathname,
        headers: { 'content-type': 'application/json' },
        body: FORECAST_BODY,
      });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`${url.pathname} answered ${res.statusCode}: ${text}`);
    }
  } finally {
    await pool.close();
  }
}

async function count(
  server: Server,
  env: Record<string, string>,
  out: string,
  warmup: number,
  calls: number,
): Promise<Counted> {
  let child: Child | undefined;
  try {
    child = await startChild(server.script, {
      args: server.args ?? [],
      env,
      wrapper: [
        'valgrind',
        '--tool=callgrind',
        '--instr-atstart=no',
        `--callgrind-out-file=${out}.callgrind`,
        `--log-file=${out}.valgrind.log`,
      ],
      readyTimeoutMs: 600_000,
      stdout: `${out}.server.log`,
    });
    const pid = String(child.process.pid);
    const url = new URL(server.path, child.ready.url);
    await call(url, warmup);
    execFileSync('callgrind_control', ['-i', 'on', pid], { stdio: 'ignore' });
    await call(url, calls);
    execFileSync('callgrind_control', ['-i', 'off', pid], { stdio: 'ignore' });
    execFileSync('callgrind_control', ['-d', pid], { stdio: 'ignore' });
    return counted(`${out}.callgrind.1`, calls);
  } finally {
    await child?.stop();
  }
}

/** The dump's instructions per call, and the mark-compact collector's part of them. */
function counted(file: string, calls: number): Counted {
  const all = Number(/^totals: (\d+)/m.exec(readFileSync(file, 'utf8'))![1]);
  const report = execFileSync('callgrind_annotate', ['--threshold=100', file], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  let majorGc = 0;
  for (const line of report.split('\n')) {
    const m = /^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*)$/.exec(line);
    if (m && MAJOR_GC.test(m[2]!)) majorGc += Number(m[1]!.replaceAll(',', ''));
  }
  return { all: all / calls, majorGc: majorGc / calls };
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: { warmup: { type: 'string', default: '4000' }, calls: { type: 'string', default: '1500' } },
  });
  console.log(await countInstructions({ warmup: Number(values.warmup), calls: Number(values.calls) }));
}
