/**
 * `npm run bench -- --profile <target>`: one server under load with
 * `node --cpu-prof`, then where its CPU went: the top functions by self time
 * and self time grouped by area (a package, a src/ folder, Node internals,
 * GC). Targets: `sculptor` (the single-operation sculpt), `hand` (the
 * hand-written handler), `chain`, `chain_cached`.
 */
import type { ChildProcess } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { toolIdFor } from '../src/compile/tool-signature.ts';
import { startChild } from './child.ts';
import { startCliGateway } from './cli-gateway.ts';
import { foreignCores, snapshot } from './cpu.ts';
import { warmUp } from './rounds.ts';
import {
  ALL_FACE_INVOCATIONS,
  BENCH_SCULPTS,
  chainBody,
  FORECAST_BODY,
  HAND_WRITTEN_PATH,
  JSON_POST,
} from './invocations.ts';
import type { LoadResult, LoadSpec } from './load.ts';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface ProfileSummary {
  totalMs: number;
  /** Milliseconds not idle. */
  busyMs: number;
  functions: Array<{ name: string; where: string; area: string; selfMs: number }>;
  /** Self time by the area of the frame itself. */
  areas: Array<{ area: string; selfMs: number }>;
  /**
   * Self time by component: time in Node internals and native code is
   * charged to the nearest caller in a package or in src/ (a socket write
   * to undici or to @hono/node-server), so each component shows what it costs.
   */
  components: Array<{ area: string; selfMs: number }>;
}

const UNATTRIBUTED = new Set(['node: internals', '(native)']);

const ROOT = path.resolve(new URL('..', import.meta.url).pathname);
const REGISTER = path.join(ROOT, 'src/telemetry/register.ts');

/** The area a frame belongs to: a package, a src/ or bench/ folder, node internals or a VM pseudo-frame. */
export function areaOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node: internals';
  const file = url.startsWith('file://') ? new URL(url).pathname : url;
  const nm = file.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = file.slice(nm + '/node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  const rel = path.relative(ROOT, file);
  if (!rel.startsWith('..')) {
    const parts = rel.split(path.sep);
    return parts.length > 2 ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  return file;
}

/**
 * `window`: only samples taken within it count (µs on the profile's clock,
 * CLOCK_MONOTONIC, the clock of `process.hrtime`), so that start-up (ajv, yaml,
 * swagger-parser) and the warm-up's JIT compilation stay out of a per-request figure.
 */
export function summarize(
  profile: CpuProfile,
  top = 25,
  window: { fromUs: number; toUs: number } = { fromUs: -Infinity, toUs: Infinity },
): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map<number, number>();
  for (const n of profile.nodes) for (const child of n.children ?? []) parentOf.set(child, n.id);
  const componentOf = (id: number): string => {
    const own = areaOf(byId.get(id)!.callFrame.url, byId.get(id)!.callFrame.functionName);
    if (!UNATTRIBUTED.has(own)) return own;
    for (let up = parentOf.get(id); up !== undefined; up = parentOf.get(up)) {
      const { url, functionName } = byId.get(up)!.callFrame;
      const area = areaOf(url, functionName);
      if (!UNATTRIBUTED.has(area) && area !== '(root)') return area;
    }
    return own;
  };
  const components = new Map<string, number>();
  const self = new Map<number, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at < window.fromUs || at > window.toUs) return;
    self.set(id, (self.get(id) ?? 0) + delta);
  });
  const functions = new Map<string, { name: string; where: string; area: string; selfMs: number }>();
  const areas = new Map<string, number>();
  let totalUs = 0;
  let idleUs = 0;
  for (const [id, us] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    totalUs += us;
    if (functionName === '(idle)') idleUs += us;
    const area = areaOf(url, functionName);
    areas.set(area, (areas.get(area) ?? 0) + us);
    const component = componentOf(id);
    components.set(component, (components.get(component) ?? 0) + us);
    const file = url.startsWith('file://') ? path.relative(ROOT, new URL(url).pathname) : url;
    const where = url ? `${file}:${lineNumber + 1}` : '';
    const key = `${functionName}@${where}`;
    const entry = functions.get(key) ?? { name: functionName || '(anonymous)', where, area, selfMs: 0 };
    entry.selfMs += us / 1000;
    functions.set(key, entry);
  }
  return {
    totalMs: totalUs / 1000,
    busyMs: (totalUs - idleUs) / 1000,
    functions: [...functions.values()]
      .filter((f) => f.name !== '(idle)')
      .sort((a, b) => b.selfMs - a.selfMs)
      .slice(0, top),
    areas: byArea(areas),
    components: byArea(components),
  };
}

function byArea(totals: Map<string, number>): Array<{ area: string; selfMs: number }> {
  return [...totals.entries()]
    .filter(([area]) => area !== '(idle)')
    .map(([area, us]) => ({ area, selfMs: us / 1000 }))
    .sort((a, b) => b.selfMs - a.selfMs);
}

export interface Profiled {
  target: string;
  summary: ProfileSummary;
  requests: number;
}

/**
 * Where the CPU per request of `b` differs from `a`'s, by component: the gap
 * between two servers doing the same job, measured in one session.
 */
export function formatComparison(a: Profiled, b: Profiled): string {
  const perRequest = (p: Profiled) =>
    new Map(p.summary.components.map((c) => [c.area, (1000 * c.selfMs) / p.requests]));
  const ma = perRequest(a);
  const mb = perRequest(b);
  const areas = [...new Set([...ma.keys(), ...mb.keys()])]
    .map((area) => ({ area, a: ma.get(area) ?? 0, b: mb.get(area) ?? 0 }))
    .filter((r) => Math.max(r.a, r.b) >= 1)
    .sort((x, y) => y.b - y.a - (x.b - x.a));
  const total = (m: Map<string, number>) => [...m.values()].reduce((s, v) => s + v, 0);
  return [
    `### Gap by component: ${b.target} − ${a.target}, CPU µs per request`,
    '',
    `| Component | ${a.target} | ${b.target} | difference |`,
    '|---|---:|---:|---:|',
    ...areas.map((r) => `| ${r.area} | ${r.a.toFixed(1)} | ${r.b.toFixed(1)} | ${(r.b - r.a).toFixed(1)} |`),
    `| **total** | ${total(ma).toFixed(1)} | ${total(mb).toFixed(1)} | ${(total(mb) - total(ma)).toFixed(1)} |`,
  ].join('\n');
}

export function formatSummary(summary: ProfileSummary, requests: number): string {
  const pct = (ms: number) => `${((100 * ms) / summary.busyMs).toFixed(1)}%`;
  const perReq = (ms: number) => `${((1000 * ms) / requests).toFixed(1)}`;
  const lines = [
    `CPU busy ${summary.busyMs.toFixed(0)} ms for ${requests} requests: ${perReq(summary.busyMs)} µs of CPU per request.`,
    '',
    '| Component (Node internals and native code charged to their nearest caller) | self ms | share | µs/request |',
    '|---|---:|---:|---:|',
    ...summary.components.map(
      (a) => `| ${a.area} | ${a.selfMs.toFixed(0)} | ${pct(a.selfMs)} | ${perReq(a.selfMs)} |`,
    ),
    '',
    '| Function (self time) | where | area | self ms | share |',
    '|---|---|---|---:|---:|',
    ...summary.functions.map(
      (f) => `| ${f.name} | ${f.where} | ${f.area} | ${f.selfMs.toFixed(0)} | ${pct(f.selfMs)} |`,
    ),
  ];
  return lines.join('\n');
}

/**
 * V8's default is one sample per millisecond: under a millisecond per request,
 * too coarse to place the small items the single-operation gap is made of.
 */
const SAMPLING_INTERVAL_US = 250;

/** Microseconds on CLOCK_MONOTONIC, the clock V8 stamps profile samples with. */
function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

export const PROFILE_TARGETS = [
  'bare',
  'hand',
  'sculptor',
  'sculptor_lite',
  'sculptor_mcp',
  'sculptor_mcp2025',
  'chain',
  'chain_cached',
  'hand_tel',
  'sculptor_tel',
];

export async function profileTarget(
  target: string,
  options: {
    durationSec: number;
    warmupSec: number;
    /** The longest warm-up, while the server's rate still rises (rounds.ts, warmUp). */
    warmupMaxSec: number;
    connections: number;
    dir: string;
    /** The bench's own processes (load generator, backend, Redis…): the rest is other load. */
    ours: number[];
  },
  runLoad: (spec: LoadSpec) => Promise<LoadResult>,
  backend: { url: string; otlpUrl: string },
): Promise<{ text: string; profiled: Profiled; foreignCores: number | undefined }> {
  const env = {
    BENCH_BACKEND_URL: backend.url,
    SCULPTOR_SECRET: 'bench-profile-secret-0123456789',
    REDIS_URL: process.env.REDIS_URL || 'redis://127.0.0.1:6379',
  };
  // The production telemetry set-up, as in the table's telemetry scenarios.
  const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: backend.otlpUrl, LOG_LEVEL: 'info' };
  const profileDir = path.join(options.dir, `${target}-${Date.now()}`);
  const execArgv = [
    '--cpu-prof',
    `--cpu-prof-dir=${profileDir}`,
    `--cpu-prof-interval=${SAMPLING_INTERVAL_US}`,
  ];
  let server: { url: string; process: ChildProcess; stop(): Promise<void> };
  let tool = 'bench_forecast';
  if (target === 'bare') {
    const child = await startChild('bare-proxy.ts', { env, execArgv });
    server = { url: child.ready.url!, process: child.process, stop: child.stop };
  } else if (target === 'hand' || target === 'hand_tel') {
    const telemetry = target === 'hand_tel';
    const child = await startChild('hand-written.ts', {
      env: telemetry ? { ...env, ...otel, BENCH_TELEMETRY: '1', OTEL_SERVICE_NAME: 'hand-written' } : env,
      execArgv: telemetry ? [...execArgv, '--import', REGISTER] : execArgv,
      ...(telemetry ? { stdout: path.join(options.dir, 'hand-written.log') } : {}),
    });
    server = { url: child.ready.url!, process: child.process, stop: child.stop };
  } else if (target === 'sculptor_tel') {
    server = await startCliGateway(
      BENCH_SCULPTS,
      { ...env, ...otel },
      path.join(options.dir, 'gateway.log'),
      {
        execArgv,
      },
    );
  } else {
    const named = {
      sculptor: 'bench_forecast',
      sculptor_lite: 'bench_forecast',
      sculptor_mcp: 'bench_forecast',
      sculptor_mcp2025: 'bench_forecast',
      chain: 'bench_chain',
      chain_cached: 'bench_chain_cached',
    }[target];
    if (!named) throw new Error(`Unknown profile target '${target}' (${PROFILE_TARGETS.join(', ')}).`);
    tool = named;
    const child = await startChild('sculptor.ts', { args: [BENCH_SCULPTS], env, execArgv });
    server = { url: child.ready.url!, process: child.process, stop: child.stop };
  }
  const common = { key: target, connections: options.connections, durationSec: options.durationSec };
  // A face other than A2T: its own path, headers and body (invocations.ts).
  const face = ALL_FACE_INVOCATIONS.find((f) => target === `sculptor_${f.key}`);
  const spec: LoadSpec =
    target.startsWith('hand') || target === 'bare'
      ? { ...common, ...JSON_POST, url: `${server.url}${HAND_WRITTEN_PATH}`, body: FORECAST_BODY }
      : face
        ? {
            ...common,
            method: 'POST',
            headers: face.headers,
            url: `${server.url}${face.path}`,
            body: face.body,
          }
        : {
            ...common,
            ...JSON_POST,
            url: `${server.url}/tools/${toolIdFor(tool)}:invoke`,
            body: tool === 'bench_forecast' ? FORECAST_BODY : chainBody(tool),
          };
  // A profile cannot start late: start-up and the warm-up are in it too, and
  // only the samples taken during the measured run are counted.
  await warmUp(runLoad, spec, { minSec: options.warmupSec, maxSec: options.warmupMaxSec });
  const ours = [...options.ours, server.process.pid!];
  const before = snapshot(ours);
  const fromUs = monotonicUs();
  const result = await runLoad(spec);
  const toUs = monotonicUs();
  const foreign = foreignCores(before, snapshot(ours), ours);
  await server.stop();
  const files = (await readdir(profileDir)).filter((f) => f.endsWith('.cpuprofile'));
  if (files.length !== 1) throw new Error(`Expected one profile in ${profileDir}, found ${files.length}.`);
  const file = path.join(profileDir, files[0]!);
  const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
  const summary = summarize(profile, 25, { fromUs, toUs });
  const requests = result.requests;
  const text = [
    `### ${target}: ${result.rps.toFixed(0)} req/s, p50 ${result.p50Ms.toFixed(2)} ms under the profiler (${options.connections} connections, ${options.durationSec} s after ${options.warmupSec} s warm-up; other load ${foreign?.toFixed(2) ?? '—'} cores)`,
    `Profile: ${file}`,
    '',
    formatSummary(summary, requests),
  ].join('\n');
  return { text, profiled: { target, summary, requests }, foreignCores: foreign };
}
