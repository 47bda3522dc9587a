/**
 * The memory part of `npm run bench`: what Sculptor's single operation costs in memory beside the
 * lean hand-written handler, with a verdict per target — the bytes a call allocates (V8's
 * sampling heap profiler, bench/alloc-sampler.ts, every object counted, garbage included), once
 * the server is warm and, beside it, while it warms, and
 * the resident memory of each server idle after start and right after a load at 32 connections
 * (`rss-after-load.ts` runs that part alone). The gateway serves bench_forecast alone, the one
 * tool the handler implements; the memory of its JSONata evaluator processes, if it started any,
 * is counted too (their own pages, not those they share with the gateway's binary).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { toolIdFor } from '../src/compile/tool-signature.ts';
import { type Child, type ReadyMessage, startChild } from './child.ts';
import { processTree } from './cpu.ts';
import { FORECAST_BODY, forecastOnlySculpts, HAND_WRITTEN_PATH, JSON_POST } from './invocations.ts';
import type { LoadResult, LoadSpec } from './load.ts';
import { fixed, loadRunner, markdownTable, WARMUP_MAX_SEC, warmUp } from './rounds.ts';

export const MAX_ALLOCATED_KIB = 60;
export const MAX_RSS_RATIO = 1.2;

const ALLOC_SAMPLER = new URL('alloc-sampler.ts', import.meta.url).pathname;

/**
 * The environment that preloads bench/alloc-sampler.ts into a server, writing `file` as it exits;
 * `nodeOptions` are the server's own NODE_OPTIONS, kept.
 */
export function allocationSamplerEnv(
  file: string,
  nodeOptions = process.env.NODE_OPTIONS ?? '',
): { NODE_OPTIONS: string; BENCH_ALLOC_FILE: string } {
  return { NODE_OPTIONS: `${nodeOptions} --import=${ALLOC_SAMPLER}`.trim(), BENCH_ALLOC_FILE: file };
}

const MB = 1024 * 1024;

/** What bench/alloc-sampler.ts wrote as its server exited. */
export interface AllocationReport {
  requests: number;
  bytesPerRequest: number;
  sites: Array<{ site: string; bytesPerRequest: number }>;
}

export function readAllocation(file: string): AllocationReport {
  return JSON.parse(readFileSync(file, 'utf8')) as AllocationReport;
}

export interface ResidentMemory {
  idleMb: number;
  afterMb: number;
  load: LoadResult;
  /** The gateway's child processes (JSONata evaluators), their own pages. */
  helpers: { count: number; mb: number };
}

export interface MemoryOptions {
  /** Seconds of load while the allocation is sampled (sampling starts at the 2,000th call). */
  allocSec: number;
  /** Seconds of load before the resident memory is read, and at how many connections. */
  rssSec: number;
  rssConnections: number;
}

export function memoryOptions(quick: boolean): MemoryOptions {
  return quick
    ? { allocSec: 6, rssSec: 3, rssConnections: 32 }
    : { allocSec: 10, rssSec: 15, rssConnections: 32 };
}

type ServerName = 'hand' | 'sculptor';
const LABELS: Record<ServerName, string> = {
  hand: 'Lean hand-written Hono handler',
  sculptor: 'Sculptor A2T',
};

type Servers = Record<ServerName, { child: Child; url: string }>;

/**
 * Runs `measure` with a backend, a load generator and the two servers (started in a fresh
 * directory, `extraEnv` each one's last word on its environment), and stops them all after.
 */
async function withServers<T>(
  extraEnv: (name: ServerName, dir: string) => Record<string, string>,
  measure: (servers: Servers, run: (spec: LoadSpec) => Promise<LoadResult>, dir: string) => Promise<T>,
): Promise<T> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sculptor-memory-'));
  const backend = await startChild<ReadyMessage>('backend.ts');
  const load = await startChild('load.ts');
  const started: Child[] = [];
  try {
    const env = { BENCH_BACKEND_URL: backend.ready.url! };
    const hand = await startChild('hand-written.ts', { env: { ...env, ...extraEnv('hand', dir) } });
    started.push(hand);
    const sculptor = await startChild('sculptor.ts', {
      args: [forecastOnlySculpts(path.join(dir, 'sculpts'))],
      env: { ...env, SCULPTOR_SECRET: 'x'.repeat(32), ...extraEnv('sculptor', dir) },
    });
    started.push(sculptor);
    const servers: Servers = {
      hand: { child: hand, url: `${hand.ready.url}${HAND_WRITTEN_PATH}` },
      sculptor: { child: sculptor, url: `${sculptor.ready.url}/tools/${toolIdFor('bench_forecast')}:invoke` },
    };
    return await measure(servers, loadRunner(load), dir);
  } finally {
    await Promise.allSettled([backend.stop(), load.stop(), ...started.map((c) => c.stop())]);
    rmSync(dir, { recursive: true, force: true });
  }
}

const forecastCall = (url: string, connections: number, durationSec: number): LoadSpec => ({
  url,
  ...JSON_POST,
  body: FORECAST_BODY,
  connections,
  durationSec,
});

/** Resident memory of each server idle after start, then right after `durationSec` at `connections`, one after the other. */
export function residentMemory(
  durationSec: number,
  connections: number,
): Promise<Record<ServerName, ResidentMemory>> {
  return withServers(
    () => ({}),
    async (servers, run) => {
      await new Promise((r) => setTimeout(r, 2000));
      const measured = {} as Record<ServerName, ResidentMemory>;
      for (const name of ['hand', 'sculptor'] as const) {
        const { child, url } = servers[name];
        const pid = child.process.pid!;
        const idleMb = rss(pid);
        const result = await run(forecastCall(url, connections, durationSec));
        measured[name] = { idleMb, afterMb: rss(pid), load: result, helpers: childrenMemory(pid) };
      }
      return measured;
    },
  );
}

const allocFile = (dir: string, name: ServerName, window: 'warm' | 'cold') =>
  path.join(dir, `${name}.${window}.alloc.json`);

/** Bytes allocated per call by each server: from its 2,000th call (cold), and once warm. */
interface Allocation {
  cold: AllocationReport;
  warm: AllocationReport;
}

/** Sends a message to a bench child's allocation sampler and waits for its answer. */
function tellSampler(child: Child, message: { type: string; file?: string }): Promise<void> {
  return new Promise((resolve) => {
    const onMessage = (m: unknown) => {
      if ((m as { type?: string }).type !== 'alloc-done') return;
      child.process.off('message', onMessage);
      resolve();
    };
    child.process.on('message', onMessage);
    child.process.send(message);
  });
}

/**
 * Bytes allocated per call by each server at 8 connections, in two windows of `durationSec`:
 * from its 2,000th call, when the compiler is still at work on it (what it allocates as it warms
 * is counted per call), and after it was warmed as the main table's servers are, until its rate
 * stopped rising (warmUp) — the figure per call the targets read, as the CPU figures are taken.
 */
function allocatedPerCall(durationSec: number): Promise<Record<ServerName, Allocation>> {
  return withServers(
    (name, dir) => allocationSamplerEnv(allocFile(dir, name, 'warm')),
    async (servers, run, dir) => {
      for (const name of ['hand', 'sculptor'] as const) {
        const { child, url } = servers[name];
        await run(forecastCall(url, 8, durationSec));
        await tellSampler(child, { type: 'alloc-close', file: allocFile(dir, name, 'cold') });
        await warmUp(run, forecastCall(url, 8, 0), { minSec: 4, maxSec: WARMUP_MAX_SEC });
        await tellSampler(child, { type: 'alloc-open' });
        await run(forecastCall(url, 8, durationSec));
      }
      // Each sampler writes its warm window's file as its server exits.
      await Promise.all(Object.values(servers).map((s) => s.child.stop()));
      const read = (name: ServerName, window: 'warm' | 'cold') => {
        try {
          return readAllocation(allocFile(dir, name, window));
        } catch {
          throw new Error(
            `${name} wrote no ${window} allocation sample: fewer than 2,000 calls in ${durationSec} s? Give the memory part more time.`,
          );
        }
      };
      const both = (name: ServerName) => ({ cold: read(name, 'cold'), warm: read(name, 'warm') });
      return { hand: both('hand'), sculptor: both('sculptor') };
    },
  );
}

/** The memory section of `npm run bench`: a table of both servers and a verdict per target. */
export async function runMemory(options: MemoryOptions, log: (line: string) => void): Promise<string> {
  log(`memory: allocation per call, ${options.allocSec} s of load for each server`);
  const allocated = await allocatedPerCall(options.allocSec);
  log(`memory: resident memory after ${options.rssSec} s at ${options.rssConnections} connections`);
  const resident = await residentMemory(options.rssSec, options.rssConnections);
  const kib = (name: ServerName, window: 'warm' | 'cold' = 'warm') =>
    allocated[name][window].bytesPerRequest / 1024;
  const rows = (['hand', 'sculptor'] as const).map((name) => [
    LABELS[name],
    fixed(kib(name), 1),
    String(allocated[name].warm.requests),
    `${fixed(kib(name, 'cold'), 1)} (${allocated[name].cold.requests} calls)`,
    fixed(resident[name].idleMb, 0),
    fixed(resident[name].afterMb, 0),
    `${resident[name].load.requests} (${fixed(resident[name].load.rps, 0)} req/s, ${resident[name].load.non2xx + resident[name].load.errors} failed)`,
    `${resident[name].helpers.count}, ${fixed(resident[name].helpers.mb, 0)} MB`,
  ]);
  const ratio = resident.sculptor.afterMb / resident.hand.afterMb;
  const verdict = (met: boolean) => (met ? 'met' : 'NOT met');
  return [
    '',
    `Memory: bytes allocated per call (V8's sampling heap profiler, garbage included, ${options.allocSec} s at 8 connections once the server's rate stopped rising; and before, from its 2,000th call, while it warmed) and resident memory idle after start and right after ${options.rssSec} s at ${options.rssConnections} connections (fresh servers, one after the other); Sculptor serves bench_forecast alone.`,
    '',
    markdownTable([
      [
        'Server',
        'allocated KiB/call, warm',
        'calls sampled',
        'KiB/call from the 2,000th call, warming',
        'idle RSS MB',
        'RSS after load MB',
        'calls in the load',
        'child processes',
      ],
      ...rows,
    ]),
    '',
    markdownTable([
      ['Target', 'Measured', 'Verdict'],
      [
        `Allocation ≤ ${MAX_ALLOCATED_KIB} KiB per call`,
        `${fixed(kib('sculptor'), 1)} KiB warm (the handler ${fixed(kib('hand'), 1)}); ${fixed(kib('sculptor', 'cold'), 1)} while warming (the handler ${fixed(kib('hand', 'cold'), 1)})`,
        verdict(kib('sculptor') <= MAX_ALLOCATED_KIB),
      ],
      [
        `RSS after load ≤ ${MAX_RSS_RATIO}× the handler's`,
        `${fixed(ratio, 2)}× (${fixed(resident.sculptor.afterMb, 0)} against ${fixed(resident.hand.afterMb, 0)} MB)`,
        verdict(ratio <= MAX_RSS_RATIO),
      ],
    ]),
  ].join('\n');
}

function rss(pid: number): number {
  return (Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024) / MB;
}

/** The pages a process holds of its own (private clean + dirty), in MB, for each process below pid. */
function childrenMemory(pid: number): { count: number; mb: number } {
  let count = 0;
  let kb = 0;
  for (const child of processTree(pid).slice(1)) {
    let rollup: string;
    try {
      rollup = readFileSync(`/proc/${child}/smaps_rollup`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    for (const field of ['Private_Clean', 'Private_Dirty']) {
      kb += Number(new RegExp(`${field}:\\s+(\\d+)`).exec(rollup)?.[1] ?? 0);
    }
    count++;
  }
  return { count, mb: kb / 1024 };
}
