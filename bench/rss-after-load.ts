/**
 * Resident memory of Sculptor's single operation and of the lean hand-written handler, each idle
 * after start and then right after a load at 32 connections, one server after the other: what a
 * replica costs to keep, beside what it costs per call (single-op-ab.ts --alloc).
 *
 *   npx node bench/rss-after-load.ts [--duration 15] [--connections 32]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type ReadyMessage, startChild } from './child.ts';
import { BENCH_SCULPTS, FORECAST_BODY, HAND_WRITTEN_PATH, JSON_POST } from './invocations.ts';
import { toolIdFor } from '../src/compile/tool-signature.ts';
import { loadRunner } from './rounds.ts';

const { values } = parseArgs({
  options: { duration: { type: 'string', default: '15' }, connections: { type: 'string', default: '32' } },
});
const rss = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

const backend = await startChild<ReadyMessage>('backend.ts');
const load = await startChild('load.ts');
const env = { BENCH_BACKEND_URL: backend.ready.url! };
const servers = {
  hand: { child: await startChild('hand-written.ts', { env }), path: HAND_WRITTEN_PATH },
  sculptor: {
    child: await startChild('sculptor.ts', {
      args: [BENCH_SCULPTS],
      env: { ...env, SCULPTOR_SECRET: 'x'.repeat(32) },
    }),
    path: `/tools/${toolIdFor('bench_forecast')}:invoke`,
  },
};
const run = loadRunner(load);
try {
  await new Promise((r) => setTimeout(r, 2000));
  for (const [name, { child, path }] of Object.entries(servers)) {
    const idle = rss(child.process.pid!);
    const result = await run({
      url: `${child.ready.url}${path}`,
      ...JSON_POST,
      body: FORECAST_BODY,
      connections: Number(values.connections),
      durationSec: Number(values.duration),
    });
    const after = rss(child.process.pid!);
    console.log(
      `${name}: idle ${idle.toFixed(0)} MB, after ${result.requests} calls at ${values.connections} connections ${after.toFixed(0)} MB (${result.rps.toFixed(0)} req/s, failed ${result.non2xx + result.errors})`,
    );
  }
} finally {
  await Promise.allSettled([
    backend.stop(),
    load.stop(),
    ...Object.values(servers).map((s) => s.child.stop()),
  ]);
}
