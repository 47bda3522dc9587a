/**
 * Resident memory of Sculptor's single operation and of the lean hand-written handler, each idle
 * after start and then right after a load at 32 connections, one server after the other: what a
 * replica costs to keep, beside what it costs per call (single-op-ab.ts --alloc). The gateway
 * serves bench_forecast alone, the one tool the handler implements; the memory of its JSONata
 * evaluator processes, if it started any, is counted too (their own pages, not those they share
 * with the gateway's binary).
 *
 *   npx node bench/rss-after-load.ts [--duration 15] [--connections 32]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type ReadyMessage, startChild } from './child.ts';
import { processTree } from './cpu.ts';
import { FORECAST_BODY, forecastOnlySculpts, HAND_WRITTEN_PATH, JSON_POST } from './invocations.ts';
import { toolIdFor } from '../src/compile/tool-signature.ts';
import { loadRunner } from './rounds.ts';

const { values } = parseArgs({
  options: { duration: { type: 'string', default: '15' }, connections: { type: 'string', default: '32' } },
});
const MB = 1024 * 1024;
const rss = (pid: number) =>
  (Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024) / MB;

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

const tmp = mkdtempSync(path.join(os.tmpdir(), 'sculptor-rss-'));
const backend = await startChild<ReadyMessage>('backend.ts');
const load = await startChild('load.ts');
const env = { BENCH_BACKEND_URL: backend.ready.url! };
const servers = {
  hand: { child: await startChild('hand-written.ts', { env }), path: HAND_WRITTEN_PATH },
  sculptor: {
    child: await startChild('sculptor.ts', {
      args: [forecastOnlySculpts(path.join(tmp, 'sculpts'))],
      env: { ...env, SCULPTOR_SECRET: 'x'.repeat(32) },
    }),
    path: `/tools/${toolIdFor('bench_forecast')}:invoke`,
  },
};
const run = loadRunner(load);
try {
  await new Promise((r) => setTimeout(r, 2000));
  for (const [name, { child, path: route }] of Object.entries(servers)) {
    const pid = child.process.pid!;
    const idle = rss(pid);
    const result = await run({
      url: `${child.ready.url}${route}`,
      ...JSON_POST,
      body: FORECAST_BODY,
      connections: Number(values.connections),
      durationSec: Number(values.duration),
    });
    const after = rss(pid);
    const helpers = childrenMemory(pid);
    console.log(
      `${name}: idle ${idle.toFixed(0)} MB, after ${result.requests} calls at ${values.connections} connections ${after.toFixed(0)} MB (${result.rps.toFixed(0)} req/s, failed ${result.non2xx + result.errors}); child processes ${helpers.count}, ${helpers.mb.toFixed(0)} MB of their own`,
    );
  }
} finally {
  await Promise.allSettled([
    backend.stop(),
    load.stop(),
    ...Object.values(servers).map((s) => s.child.stop()),
  ]);
  rmSync(tmp, { recursive: true, force: true });
}
