/**
 * Interleaved rounds for the peers' part of `npm run bench` (peers.ts): the load child driven
 * over IPC, a round rerun when other processes were busy during it, ratios paired within each
 * round, and the markdown table every section prints. The method is the one docs/PERFORMANCE.md
 * describes for the main table (run.ts).
 */
import type { Child } from './child.ts';
import { foreignCores, snapshot, usedMs } from './cpu.ts';
import type { LoadResult, LoadSpec } from './load.ts';
import { median } from './stats.ts';

export interface Round extends LoadResult {
  /** CPU of the process under test per successful request, µs. */
  cpuUsPerRequest: number | undefined;
  /** Cores other processes on the machine used during the round. */
  foreignCores: number | undefined;
  retries: number;
}

export function loadRunner(load: Child): (spec: LoadSpec) => Promise<LoadResult> {
  let nextId = 0;
  return (spec) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      const onMessage = (message: unknown) => {
        const m = message as { type?: string; id?: number; result?: LoadResult; error?: string };
        if (m.type !== 'result' || m.id !== id) return;
        load.process.off('message', onMessage);
        if (m.result) resolve(m.result);
        else reject(new Error(m.error ?? 'load failed'));
      };
      load.process.on('message', onMessage);
      load.process.send({ type: 'run', id, spec });
    });
}

/** The longest warm-up a full run gives one server (`--quick` keeps its one second). */
export const WARMUP_MAX_SEC = 30;

/** The warm-up's slices after its first run; how much faster a slice must be to count as rising; how many flat slices end it. */
const WARM_SLICE_SEC = 2;
const STILL_WARMING = 1.05;
const FLAT_SLICES = 2;

/**
 * Warms a server until its rate stops rising: `minSec` of load, then slices of 2 s until two in
 * a row are no more than 5 % faster than the best before them, `maxSec` in all. A JIT-compiled
 * server reaches its steady state after a number of calls that grows with the code it runs — the
 * gateway took ≈ 15 s at 8 connections on two cores (915 req/s in its first 2 s, ≈ 2,100 from 12 s
 * on), the one-route handler a few seconds —, so a fixed short warm-up measured the larger program
 * colder than the smaller one. One flat slice is not enough: the gateway's rate rises in steps,
 * and the machine's noise is as large as one step. Returns each run's rate, for the log.
 */
export async function warmUp(
  run: (spec: LoadSpec) => Promise<LoadResult>,
  spec: LoadSpec,
  { minSec, maxSec }: { minSec: number; maxSec: number },
): Promise<number[]> {
  const rates = [(await run({ ...spec, durationSec: minSec })).rps];
  let best = rates[0]!;
  let flat = 0;
  for (let spent = minSec; spent + WARM_SLICE_SEC <= maxSec && flat < FLAT_SLICES; spent += WARM_SLICE_SEC) {
    const rate = (await run({ ...spec, durationSec: WARM_SLICE_SEC })).rps;
    rates.push(rate);
    if (rate > best * STILL_WARMING) flat = 0;
    else flat++;
    best = Math.max(best, rate);
  }
  return rates;
}

/**
 * One measured run of `spec` against the process `pid`: run again (at most `maxRetries` times,
 * `budget.reruns` in the whole bench) while other processes used more than `foreignLimit` cores.
 */
export async function measureRound(options: {
  run: (spec: LoadSpec) => Promise<LoadResult>;
  spec: LoadSpec;
  pid: number;
  ours: () => number[];
  foreignLimit: number;
  maxRetries: number;
  budget: { reruns: number };
  onRerun?: (foreign: number) => void;
}): Promise<Round> {
  for (let retries = 0; ; retries++) {
    const ours = options.ours();
    const before = snapshot(ours);
    const result = await options.run(options.spec);
    const after = snapshot(ours);
    const cpu = usedMs(before, after, options.pid);
    const foreign = foreignCores(before, after, ours);
    const round: Round = {
      ...result,
      cpuUsPerRequest:
        cpu === undefined || result.requests === 0 ? undefined : (1000 * cpu) / result.requests,
      foreignCores: foreign,
      retries,
    };
    if (foreign === undefined || foreign <= options.foreignLimit) return round;
    if (retries >= options.maxRetries || options.budget.reruns <= 0) return round;
    options.budget.reruns--;
    options.onRerun?.(foreign);
  }
}

/**
 * A's figure over B's within each round, then the median of those ratios: a slow stretch of a
 * shared machine lands on both sides of each ratio (see run.ts).
 */
export function pairedRatio(a: Round[], b: Round[], pick: (round: Round) => number | undefined): number {
  const ratios = perRoundRatios(a, b, pick);
  return ratios.length > 0 ? median(ratios) : Number.NaN;
}

export function perRoundRatios(a: Round[], b: Round[], pick: (round: Round) => number | undefined): number[] {
  const ratios: number[] = [];
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = pick(a[i]!);
    const y = pick(b[i]!);
    if (x !== undefined && y !== undefined && y > 0) ratios.push(x / y);
  }
  return ratios;
}

export function markdownTable(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => `| ${r.map((c, i) => (c ?? '').padEnd(widths[i]!)).join(' | ')} |`;
  return [
    line(rows[0]!),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...rows.slice(1).map(line),
  ].join('\n');
}

export const fixed = (n: number, digits: number): string => (Number.isFinite(n) ? n.toFixed(digits) : '—');
