/**
 * `npm run bench`: Sculptor against a hand-written handler, side by side, in
 * one run on this machine. See docs/PERFORMANCE.md for the method.
 *
 * Every server runs in a child process of its own and autocannon in another,
 * so no two of them share an event loop. Each load scenario gets a warm-up,
 * then `rounds` rounds of `duration` seconds, the scenarios interleaved
 * within each round (so a slow minute of the machine hits them all); the
 * table shows the median of the rounds, and each ratio is the median of the
 * ratios within each round (pairedRatio).
 *
 *   npm run bench [-- --rounds 7 --duration 2 --warmup 4 --connections 8 --quick]
 *   npm run bench -- --profile hand,sculptor   (CPU profiles instead of the table)
 *   npm run bench -- --peers-only | --no-peers  (only, or without, the peers of peers.ts)
 *   npm run bench -- --memory-only | --no-memory (only, or without, the memory part of memory.ts)
 *   npm run bench -- --no-instructions          (without the instruction counts of instructions.ts)
 *   BENCH_QUICK=1 npm run bench                 (the same as --quick)
 */
import { type ChildProcess, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { toolIdFor } from '../src/compile/tool-signature.ts';
import { type Child, PRODUCTION_NODE_FLAGS, type ReadyMessage, startChild } from './child.ts';
import { type CliGateway, startCliGateway } from './cli-gateway.ts';
import { foreignCores, pidsNamed, snapshot, usedMs, waitForQuiet } from './cpu.ts';
import { type DescriptionRow, descriptionTableRows, measureDescriptions } from './descriptions.ts';
import { type GithubSculpts, writeCatalogSculpts, writeGithubSculpts } from './generate.ts';
import {
  BENCH_SCULPTS,
  chainBody,
  FACE_INVOCATIONS,
  type FaceInvocation,
  FORECAST_BODY,
  HAND_WRITTEN_PATH,
  JSON_POST,
  SLOW_MS,
  SLOW_PREFIX,
} from './invocations.ts';
import type { LoadResult, LoadSpec } from './load.ts';
import { countInstructions } from './instructions.ts';
import { memoryOptions, runMemory } from './memory.ts';
import { peersOptions, runPeers } from './peers.ts';
import { loadRunner, WARMUP_MAX_SEC, warmUp } from './rounds.ts';
import { formatComparison, type Profiled, profileTarget } from './profile.ts';
import type { GatewayReady } from './sculptor.ts';
import { median } from './stats.ts';

const { values: args } = parseArgs({
  options: {
    // Many short rounds rather than a few long ones: the machine's drift lasts minutes, and a
    // ratio is taken within each round (pairedRatio).
    rounds: { type: 'string', default: '7' },
    duration: { type: 'string', default: '2' },
    warmup: { type: 'string', default: '4' },
    connections: { type: 'string', default: '8' },
    'catalog-tools': { type: 'string', default: '10000' },
    'github-sculpts': { type: 'string', default: '1000' },
    /** A smoke run: 1 round of 2 s, 1 s warm-ups, 1,000 catalog tools; the peers 2 rounds of 1 s. */
    quick: { type: 'boolean', default: process.env.BENCH_QUICK === '1' },
    /** Only the peers and comparators (peers.ts), or everything but them. */
    'peers-only': { type: 'boolean', default: false },
    'no-peers': { type: 'boolean', default: false },
    /** Leave out the bytes allocated per call and the resident memory after load (memory.ts). */
    'no-memory': { type: 'boolean', default: false },
    'memory-only': { type: 'boolean', default: false },
    /** Leave out the instructions per call counted under callgrind (instructions.ts). */
    'no-instructions': { type: 'boolean', default: false },
    /** Profile mode instead of the table: targets to profile, comma-separated (sculptor, hand, chain, chain_cached). */
    profile: { type: 'string' },
  },
});
const quick = args.quick;
const ROUNDS = quick ? 1 : Number(args.rounds);
const DURATION = quick ? 2 : Number(args.duration);
const WARMUP = quick ? 1 : Number(args.warmup);
/** A server whose rate still rises is warmed longer, up to this (rounds.ts, warmUp). */
const WARMUP_MAX = quick ? WARMUP : Math.max(WARMUP, WARMUP_MAX_SEC);
const CONNECTIONS = Number(args.connections);
const CATALOG_TOOLS = quick ? 1_000 : Number(args['catalog-tools']);
const GITHUB_SCULPTS = Number(args['github-sculpts']);
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const ROOT = new URL('..', import.meta.url).pathname;

const MB = 1024 * 1024;
const log = (line: string) => process.stderr.write(`${line}\n`);
const fixed = (n: number, digits: number) => (Number.isFinite(n) ? n.toFixed(digits) : '—');

interface Scenario {
  key: string;
  label: string;
  /** Ratios are taken against this scenario's medians. */
  baseline?: string;
  /** The process under test: its CPU per request is reported. */
  pid: number;
  spec: LoadSpec;
  /** What a correct answer looks like (checked once before loading). */
  check(body: unknown): boolean;
}

interface Round extends LoadResult {
  /** CPU of the process under test per successful request, µs. */
  cpuUsPerRequest: number | undefined;
  /** Cores other processes on the machine used during the round. */
  foreignCores: number | undefined;
  /** Earlier attempts discarded because other processes were busy. */
  retries: number;
}

interface Row {
  scenario: Scenario;
  rounds: Round[];
  rps: number;
  p50Ms: number;
  p99Ms: number;
  cpuUsPerRequest: number;
  failures: number;
}

/**
 * A round during which other processes used more than this many cores is run
 * again: twice at most, and no more than MAX_RERUNS times in a whole run, to
 * keep it within minutes on a busy machine.
 */
const FOREIGN_LIMIT_CORES = 0.25;
const MAX_RETRIES = 2;
const MAX_RERUNS = 6;

type Telemetry = 'landed' | 'uncommitted' | 'absent';

function telemetryState(): Telemetry {
  if (!existsSync(new URL('../src/telemetry/register.ts', import.meta.url))) return 'absent';
  try {
    execFileSync('git', ['ls-files', '--error-unmatch', 'src/telemetry/register.ts'], {
      cwd: ROOT,
      stdio: 'ignore',
    });
    return 'landed';
  } catch {
    return 'uncommitted';
  }
}

function gitState(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: ROOT,
      encoding: 'utf8',
    }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter(Boolean).length;
    return dirty === 0
      ? `commit ${head}, src/ clean`
      : `commit ${head} + ${dirty} uncommitted change(s) under src/`;
  } catch {
    return 'not a git checkout';
  }
}

async function main(): Promise<void> {
  const wallStart = performance.now();
  const children: Array<{ stop(): Promise<void> }> = [];
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'sculptor-bench-'));
  const cleanup = async () => {
    await Promise.allSettled(children.map((c) => c.stop()));
    await rm(tmp, { recursive: true, force: true });
  };
  process.once('SIGINT', () => void cleanup().finally(() => process.exit(130)));
  try {
    const telemetry = telemetryState();
    const machine = machineLines();
    for (const line of machine) log(line);
    // A smoke run checks that everything runs, not what it measures: it does not wait long.
    const quietWaitSec = quick ? 5 : 60;
    log(`waiting (at most ${quietWaitSec} s) for the machine to be quiet`);
    const quiet = await waitForQuiet(0.15, quietWaitSec * 1000);
    machine.push(`Other load when the bench started: ${fixed(quiet ?? Number.NaN, 2)} cores.`);

    // Generated sculpt folders.
    const catalogDir = path.join(tmp, 'catalog');
    const githubDir = path.join(tmp, 'github');
    log(`generating ${CATALOG_TOOLS} catalog sculpts and ${GITHUB_SCULPTS} GitHub sculpts in ${tmp}`);
    const github = await writeGithubSculpts(githubDir, GITHUB_SCULPTS);
    await writeCatalogSculpts(catalogDir, CATALOG_TOOLS);

    const secret = randomBytes(24).toString('hex');
    const backend = await startChild<ReadyMessage & { otlpUrl: string }>('backend.ts');
    children.push(backend);
    const backendUrl = backend.ready.url!;
    const env = { BENCH_BACKEND_URL: backendUrl, SCULPTOR_SECRET: secret };

    // Start-up over the large document, alone on the machine, in fresh processes.
    const startups: GatewayReady[] = [];
    for (let i = 0; i < Math.max(1, ROUNDS); i++) {
      log(`start-up with ${GITHUB_SCULPTS} GitHub sculpts, run ${i + 1}`);
      const gw = await startChild<GatewayReady>('sculptor.ts', {
        args: [githubDir],
        env: { SCULPTOR_SECRET: secret },
        execArgv: ['--expose-gc'],
        readyTimeoutMs: 120_000,
      });
      startups.push(gw.ready);
      await gw.stop();
    }

    log('loading the large descriptions, each in fresh processes');
    const descriptions = await measureDescriptions(tmp, Math.max(1, ROUNDS), log);

    log(`starting the catalog gateway (${CATALOG_TOOLS} tools)`);
    const catalogGw = await startChild<GatewayReady>('sculptor.ts', {
      args: [catalogDir],
      env,
      execArgv: ['--expose-gc'],
      readyTimeoutMs: 300_000,
    });
    children.push(catalogGw);

    log('starting the bare node:http proxy, the hand-written handler, the gateway and the load generator');
    const bare = await startChild('bare-proxy.ts', { env });
    children.push(bare);
    const hand = await startChild('hand-written.ts', { env });
    children.push(hand);
    const gateway = await startChild<GatewayReady>('sculptor.ts', {
      args: [BENCH_SCULPTS],
      env: { ...env, REDIS_URL },
    });
    children.push(gateway);
    // The same sculpts over the same backend, answering SLOW_MS late, for the chain scenarios.
    const slowGateway = await startChild<GatewayReady>('sculptor.ts', {
      args: [BENCH_SCULPTS],
      env: { ...env, BENCH_BACKEND_URL: `${backendUrl}${SLOW_PREFIX}`, REDIS_URL },
    });
    children.push(slowGateway);
    let withTelemetry: { hand: Child; gateway: CliGateway } | undefined;
    if (telemetry === 'landed') {
      log(
        'starting both again with the production telemetry set-up (OTLP traces to a loopback sink, metrics, logs)',
      );
      const otel = {
        OTEL_EXPORTER_OTLP_ENDPOINT: backend.ready.otlpUrl,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
        LOG_LEVEL: 'info',
      };
      const telHand = await startChild('hand-written.ts', {
        env: { ...env, ...otel, BENCH_TELEMETRY: '1', OTEL_SERVICE_NAME: 'hand-written' },
        execArgv: ['--import', new URL('../src/telemetry/register.ts', import.meta.url).pathname],
        stdout: path.join(tmp, 'hand-written.log'),
      });
      children.push(telHand);
      const telGateway = await startCliGateway(
        BENCH_SCULPTS,
        { ...env, ...otel, REDIS_URL },
        path.join(tmp, 'gateway.log'),
      );
      children.push(telGateway);
      withTelemetry = { hand: telHand, gateway: telGateway };
    }
    const load = await startChild('load.ts');
    children.push(load);

    const scenarios = await defineScenarios({
      backend,
      bare,
      hand,
      gateway,
      slowGateway,
      catalog: catalogGw,
      ...(withTelemetry ? { telemetry: withTelemetry } : {}),
    });
    for (const s of scenarios) await checkScenario(s);

    // Everything the bench runs, Redis included: the rest is other people's load.
    const ours = [
      process.pid,
      ...[backend, bare, hand, gateway, slowGateway, catalogGw, load].map((c) => c.process.pid!),
      ...(withTelemetry ? [withTelemetry.hand.process.pid!, withTelemetry.gateway.process.pid!] : []),
      ...pidsNamed('redis-server'),
    ];
    const runLoad = loadRunner(load);
    let reruns = 0;
    const measure = async (s: Scenario, durationSec: number): Promise<Round> => {
      for (let retries = 0; ; retries++) {
        const before = snapshot(ours);
        const result = await runLoad({ ...s.spec, key: s.key, durationSec });
        const after = snapshot(ours);
        const cpu = usedMs(before, after, s.pid);
        const foreign = foreignCores(before, after, ours);
        const round: Round = {
          ...result,
          cpuUsPerRequest:
            cpu === undefined || result.requests === 0 ? undefined : (1000 * cpu) / result.requests,
          foreignCores: foreign,
          retries,
        };
        if (foreign === undefined || foreign <= FOREIGN_LIMIT_CORES) return round;
        if (retries >= MAX_RETRIES || reruns >= MAX_RERUNS) return round;
        reruns++;
        log(`  (other processes used ${fixed(foreign, 2)} cores: round run again)`);
      }
    };

    // The 1-connection scenarios reuse servers the others have warmed: a short run sizes their rounds.
    for (const s of scenarios) {
      const spec = { ...s.spec, key: s.key };
      if (s.key.endsWith('_c1')) await runLoad({ ...spec, durationSec: 1 });
      else {
        const rates = await warmUp(runLoad, spec, { minSec: WARMUP, maxSec: WARMUP_MAX });
        log(`warm-up ${s.label}: ${rates.map((r) => fixed(r, 0)).join(' → ')} req/s`);
      }
    }
    const results = new Map<string, Round[]>(scenarios.map((s) => [s.key, []]));
    for (let round = 0; round < ROUNDS; round++) {
      // Rotated each round, so no scenario always follows the same one.
      const order = scenarios.map((_, i) => scenarios[(i + round) % scenarios.length]!);
      for (const s of order) {
        const r = await measure(s, DURATION);
        results.get(s.key)!.push(r);
        if (r.non2xx > 0) log(`  a sample answer now: ${await sampleAnswer(s)}`);
        log(
          `round ${round + 1}/${ROUNDS} ${s.label}: ${fixed(r.rps, 0)} req/s, p50 ${fixed(r.p50Ms, 3)} ms, ` +
            `p99 ${fixed(r.p99Ms, 3)} ms, ${fixed(r.cpuUsPerRequest ?? Number.NaN, 0)} µs CPU/request, ` +
            `other load ${fixed(r.foreignCores ?? Number.NaN, 2)} cores` +
            (r.non2xx + r.errors + r.timeouts > 0 ? `, ${r.non2xx} non-2xx, ${r.errors} errors` : ''),
        );
      }
    }

    const rows: Row[] = scenarios.map((scenario) => {
      const rounds = results.get(scenario.key)!;
      return {
        scenario,
        rounds,
        rps: median(rounds.map((r) => r.rps)),
        p50Ms: median(rounds.map((r) => r.p50Ms)),
        p99Ms: median(rounds.map((r) => r.p99Ms)),
        cpuUsPerRequest: median(
          rounds.flatMap((r) => (r.cpuUsPerRequest === undefined ? [] : [r.cpuUsPerRequest])),
        ),
        failures: rounds.reduce((n, r) => n + r.non2xx + r.errors + r.timeouts, 0),
      };
    });
    const wallSec = (performance.now() - wallStart) / 1000;
    console.log(
      report({
        machine,
        rows,
        startups,
        descriptions,
        catalogStart: catalogGw.ready,
        github,
        wallSec,
        telemetry,
      }),
    );
  } finally {
    await cleanup();
  }
}

function machineLines(): string[] {
  const cpus = os.cpus();
  return [
    `Sculptor: ${gitState()}`,
    `CPU: ${cpus[0]?.model.trim() ?? 'unknown'} × ${cpus.length} (available parallelism ${os.availableParallelism()})`,
    `Memory: ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB; OS: ${os.type()} ${os.release()} ${os.arch()}`,
    `Node ${process.version} (servers started with ${PRODUCTION_NODE_FLAGS.join(' ')}); load average at start ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
    `Method: ${ROUNDS} round(s) × ${DURATION} s per scenario after a warm-up of ${WARMUP} s, longer (≤ ${WARMUP_MAX} s) while the server's rate still rose, ${CONNECTIONS} connections, ` +
      `no pipelining; medians of the rounds, and each ratio the median of its per-round ratios; a round is run again (at most ${MAX_RETRIES} times, ${MAX_RERUNS} in all) ` +
      `when other processes used more than ${FOREIGN_LIMIT_CORES} cores during it.`,
  ];
}

const FIRST_PERIOD = (
  JSON.parse(readFileSync(new URL('fixtures/nws-forecast-okx.json', import.meta.url), 'utf8')) as {
    properties: { periods: Array<{ temperature: number; shortForecast: string }> };
  }
).properties.periods[0]!;

/** The fixture's first forecast period, as every forecast tool must answer it. */
function expectedForecast(value: unknown): boolean {
  const outputs = (value as { output_parameters?: Array<{ name: string; value: unknown }> })
    .output_parameters;
  const get = (name: string) => outputs?.find((o) => o.name === name)?.value;
  return (
    get('temperature') === FIRST_PERIOD.temperature && get('short_forecast') === FIRST_PERIOD.shortForecast
  );
}

/** A face's answer carries the fixture's first period. */
const faceAnswers = (face: FaceInvocation) => (body: unknown) => {
  const { temperature, shortForecast } = face.read(body);
  return temperature === FIRST_PERIOD.temperature && shortForecast === FIRST_PERIOD.shortForecast;
};

async function defineScenarios(servers: {
  backend: Child;
  bare: Child;
  hand: Child;
  gateway: Child<GatewayReady>;
  slowGateway: Child<GatewayReady>;
  catalog: Child<GatewayReady>;
  telemetry?: { hand: Child; gateway: CliGateway };
}): Promise<Scenario[]> {
  const invoke = (gatewayUrl: string, tool: string) => `${gatewayUrl}/tools/${toolIdFor(tool)}:invoke`;
  const common = { connections: CONNECTIONS, durationSec: DURATION };
  const pid = (c: { process: ChildProcess }) => c.process.pid!;
  const gatewayUrl = servers.gateway.ready.url;
  const forecast = (url: string) => ({ ...common, ...JSON_POST, url, body: FORECAST_BODY });
  /** The single operation through each face (A2T first), each against the hand-written handler. */
  const faceScenarios = (gateway: string, keyPrefix: string, label: string, baseline: string): Scenario[] =>
    FACE_INVOCATIONS.map((face) => ({
      key: face.key === 'a2t' ? keyPrefix : `${keyPrefix}_${face.key}`,
      label: face.key === 'a2t' ? label : `${label}, ${face.label}`,
      baseline,
      pid: pid(servers.gateway),
      spec: {
        ...common,
        method: 'POST',
        headers: face.headers,
        url: `${gateway}${face.path}`,
        body: face.body,
      },
      check: faceAnswers(face),
    }));
  const scenarios: Scenario[] = [
    {
      key: 'direct',
      label: 'Direct: the backend alone (GET forecast, 13 KB JSON)',
      pid: pid(servers.backend),
      spec: { ...common, url: `${servers.backend.ready.url}/gridpoints/OKX/33,35/forecast` },
      check: (body) => (body as { properties?: { periods?: unknown[] } }).properties?.periods?.length === 14,
    },
    {
      key: 'bare',
      label: 'Bare node:http proxy, same duties, no framework (floor)',
      baseline: 'direct',
      pid: pid(servers.bare),
      spec: forecast(`${servers.bare.ready.url}${HAND_WRITTEN_PATH}`),
      check: expectedForecast,
    },
    {
      key: 'hand',
      label: 'Hand-written Hono handler (lean)',
      baseline: 'bare',
      pid: pid(servers.hand),
      spec: forecast(`${servers.hand.ready.url}${HAND_WRITTEN_PATH}`),
      check: expectedForecast,
    },
    ...faceScenarios(gatewayUrl, 'sculptor', 'Sculptor, single operation', 'hand'),
  ];
  if (servers.telemetry) {
    scenarios.push(
      {
        key: 'hand_tel',
        label: 'Hand-written, telemetry on',
        baseline: 'hand',
        pid: pid(servers.telemetry.hand),
        spec: forecast(`${servers.telemetry.hand.ready.url}${HAND_WRITTEN_PATH}`),
        check: expectedForecast,
      },
      ...faceScenarios(
        servers.telemetry.gateway.url,
        'sculptor_tel',
        'Sculptor, single operation, telemetry on',
        'hand_tel',
      ).map((s) => ({ ...s, pid: pid(servers.telemetry!.gateway) })),
    );
  }
  const chainSpec = (url: string, tool: string) => ({
    ...common,
    ...JSON_POST,
    url: invoke(url, tool),
    body: chainBody(tool),
  });
  const slow = servers.slowGateway;
  scenarios.push(
    {
      key: 'chain',
      label: 'Sculptor, 3-step chain, uncached',
      baseline: 'hand',
      pid: pid(servers.gateway),
      spec: chainSpec(gatewayUrl, 'bench_chain'),
      check: expectedForecast,
    },
    {
      key: 'chain_cached',
      label: 'Sculptor, 3-step chain, steps 1–2 cached (Redis)',
      baseline: 'chain',
      pid: pid(servers.gateway),
      spec: chainSpec(gatewayUrl, 'bench_chain_cached'),
      check: expectedForecast,
    },
    {
      key: 'chain_slow',
      label: `Sculptor, 3-step chain, uncached, backend answering in ${SLOW_MS} ms`,
      pid: pid(slow),
      spec: chainSpec(slow.ready.url, 'bench_chain'),
      check: expectedForecast,
    },
    {
      key: 'chain_slow_cached',
      label: `Sculptor, 3-step chain, steps 1–2 cached (Redis), backend answering in ${SLOW_MS} ms`,
      baseline: 'chain_slow',
      pid: pid(slow),
      spec: chainSpec(slow.ready.url, 'bench_chain_cached'),
      check: expectedForecast,
    },
  );
  const catalogUrl = servers.catalog.ready.url;
  const pages = await catalogPages(catalogUrl);
  scenarios.push({
    key: 'catalog',
    label: `Catalog: GET /tools?pageLimit=100, ${servers.catalog.ready.tools} tools (all ${pages.length} pages in turn)`,
    pid: pid(servers.catalog),
    spec: { ...common, url: catalogUrl, paths: pages },
    check: (body) => (body as { items?: unknown[] }).items?.length === 100,
  });
  // Latency without queueing: one connection, one request at a time. Under CONNECTIONS
  // connections a saturated server's p50 is mostly the queue (connections ÷ req/s).
  const oneConnection = ['bare', 'hand', 'sculptor', 'catalog'];
  for (const key of oneConnection) {
    const s = scenarios.find((x) => x.key === key)!;
    scenarios.push({
      ...s,
      key: `${key}_c1`,
      label: `${s.label}, 1 connection`,
      baseline: s.baseline && oneConnection.includes(s.baseline) ? `${s.baseline}_c1` : undefined,
      spec: { ...s.spec, connections: 1 },
    });
  }
  return scenarios;
}

/** Every page of the full listing, by following `next` cursors (paths below the gateway URL). */
async function catalogPages(catalogUrl: string): Promise<string[]> {
  const pages: string[] = [];
  let next: string | null = '/tools?pageLimit=100';
  while (next !== null) {
    pages.push(next);
    const res = await fetch(`${catalogUrl}${next}`);
    const body = (await res.json()) as { paging: { next: string | null } };
    next =
      body.paging.next === null
        ? null
        : `/tools?pageLimit=100&pageCursor=${encodeURIComponent(body.paging.next)}`;
  }
  return pages;
}

/** One request of a scenario, as `status body…`, to say what failing answers were. */
async function sampleAnswer(s: Scenario): Promise<string> {
  const target = s.spec.paths ? `${s.spec.url}${s.spec.paths[0]}` : s.spec.url;
  try {
    const res = await fetch(target, {
      method: s.spec.method ?? 'GET',
      headers: s.spec.headers ?? {},
      ...(s.spec.body !== undefined ? { body: s.spec.body } : {}),
    });
    return `${res.status} ${(await res.text()).slice(0, 300)}`;
  } catch (err) {
    return String(err);
  }
}

/**
 * A scenario's answer is checked before loading. A gateway just started on a busy machine may
 * shed its first calls (`gateway.overloaded`, retryable) while its event loop catches up: such
 * an answer is asked again, a few times a second apart, before the bench gives up.
 */
async function checkScenario(s: Scenario): Promise<void> {
  const target = s.spec.paths ? `${s.spec.url}${s.spec.paths[0]}` : s.spec.url;
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(target, {
      method: s.spec.method ?? 'GET',
      headers: s.spec.headers ?? {},
      ...(s.spec.body !== undefined ? { body: s.spec.body } : {}),
    });
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (res.status === 200 && s.check(body)) return;
    if (attempt < 5 && text.includes('gateway.overloaded')) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      continue;
    }
    throw new Error(`${s.label}: unexpected answer ${res.status} ${text.slice(0, 500)}`);
  }
}

/**
 * A's figure over B's within each round, then the median of those ratios. Each round measures
 * every scenario once, a few minutes apart at most, so a slow stretch of a shared machine lands on
 * both sides of a ratio; the ratio of two medians may pair figures from different stretches (one
 * run on 2026-11-26 printed 0.91× for a face whose per-round ratios were 0.96, 0.74 and 0.70).
 */
function pairedRatio(a: Row, b: Row, pick: (round: Round) => number | undefined): number {
  const ratios: number[] = [];
  for (let i = 0; i < Math.min(a.rounds.length, b.rounds.length); i++) {
    const x = pick(a.rounds[i]!);
    const y = pick(b.rounds[i]!);
    if (x !== undefined && y !== undefined && y > 0) ratios.push(x / y);
  }
  return ratios.length > 0 ? median(ratios) : Number.NaN;
}

function report(data: {
  machine: string[];
  rows: Row[];
  startups: GatewayReady[];
  /** Large descriptions loaded alone. */
  descriptions: DescriptionRow[];
  catalogStart: GatewayReady;
  github: GithubSculpts;
  wallSec: number;
  telemetry: Telemetry;
}): string {
  const { rows } = data;
  const byKey = new Map(rows.map((r) => [r.scenario.key, r]));
  const rpsRatio = (row: Row, base: string | undefined) => {
    const b = base === undefined ? undefined : byKey.get(base);
    return b
      ? `${fixed(
          pairedRatio(row, b, (r) => r.rps),
          2,
        )}×`
      : '—';
  };
  const cpuRatio = (row: Row, base: string | undefined) => {
    const b = base === undefined ? undefined : byKey.get(base);
    return b
      ? `${fixed(
          pairedRatio(row, b, (r) => r.cpuUsPerRequest),
          2,
        )}×`
      : '—';
  };
  const direct = byKey.get('direct');
  const table = [
    [
      'Scenario',
      'req/s',
      'p50 ms',
      'p99 ms',
      'CPU µs/req',
      'req/s vs baseline',
      'CPU/req vs baseline',
      'req/s vs direct',
      'req/s by round',
      'other load',
      'failed',
    ],
    ...rows.map((r) => [
      r.scenario.label,
      fixed(r.rps, 0),
      fixed(r.p50Ms, 2),
      fixed(r.p99Ms, 2),
      fixed(r.cpuUsPerRequest, 0),
      r.scenario.baseline ? `${rpsRatio(r, r.scenario.baseline)} ${baselineName(r.scenario.baseline)}` : '—',
      r.scenario.baseline ? cpuRatio(r, r.scenario.baseline) : '—',
      direct && r !== direct && !r.scenario.key.startsWith('catalog') && !r.scenario.key.endsWith('_c1')
        ? rpsRatio(r, 'direct')
        : '—',
      r.rounds.map((x) => fixed(x.rps, 0)).join(' / '),
      `${fixed(Math.max(...r.rounds.map((x) => x.foreignCores ?? 0)), 2)}` +
        (r.rounds.some((x) => x.retries > 0)
          ? ` (${r.rounds.reduce((n, x) => n + x.retries, 0)} rerun)`
          : ''),
      String(r.failures),
    ]),
  ];
  if (data.telemetry !== 'landed') {
    const why =
      data.telemetry === 'absent'
        ? 'not run: src/telemetry has not landed'
        : 'not run: src/telemetry is in the tree but not committed yet';
    table.push(['Hand-written and Sculptor, telemetry on', why, '', '', '', '', '', '', '', '', '']);
  }

  const startMs = median(data.startups.map((s) => s.startMs));
  const rss = median(data.startups.map((s) => s.rssBytes));
  const maxRss = median(data.startups.map((s) => s.maxRssBytes));
  const startTable = [
    [
      'Start-up (fresh process; startGateway to listening)',
      'time',
      'RSS after start',
      'peak RSS',
      'heap used',
    ],
    [
      `${data.github.sculpts} sculpts over the GitHub REST description (${data.github.getOperations} GET + ${data.github.otherOperations} other operations; median of ${data.startups.length})`,
      `${fixed(startMs / 1000, 2)} s`,
      `${fixed(rss / MB, 0)} MB`,
      `${fixed(maxRss / MB, 0)} MB`,
      `${fixed(median(data.startups.map((s) => s.heapUsedBytes)) / MB, 0)} MB`,
    ],
    [
      `${data.catalogStart.tools} sculpts over the 3-operation bench document (the catalog above)`,
      `${fixed(data.catalogStart.startMs / 1000, 2)} s`,
      `${fixed(data.catalogStart.rssBytes / MB, 0)} MB`,
      `${fixed(data.catalogStart.maxRssBytes / MB, 0)} MB`,
      `${fixed(data.catalogStart.heapUsedBytes / MB, 0)} MB`,
    ],
    ...descriptionTableRows(data.descriptions),
  ];

  const sculptor = byKey.get('sculptor');
  const hand = byKey.get('hand');
  const chain = byKey.get('chain');
  const cached = byKey.get('chain_cached');
  const catalog = byKey.get('catalog');
  const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
  const targets: string[][] = [['Target', 'Measured', 'Verdict']];
  const pairs: Array<[Row | undefined, Row | undefined, string]> = FACE_INVOCATIONS.flatMap((face) => {
    const suffix = face.key === 'a2t' ? '' : `_${face.key}`;
    const how = face.key === 'a2t' ? '' : ` (${face.label})`;
    return [
      [byKey.get(`sculptor${suffix}`), hand, how] as [Row | undefined, Row | undefined, string],
      [byKey.get(`sculptor_tel${suffix}`), byKey.get('hand_tel'), `${how}, telemetry on`] as [
        Row | undefined,
        Row | undefined,
        string,
      ],
    ];
  });
  for (const [s, h, suffix] of pairs) {
    if (!s || !h) continue;
    const r = pairedRatio(s, h, (x) => x.rps);
    targets.push([
      `Single operation ≥ 0.90× hand-written req/s${suffix}`,
      `${fixed(r, 2)}× (CPU per request ${fixed(
        pairedRatio(s, h, (x) => x.cpuUsPerRequest),
        2,
      )}× hand-written's)`,
      verdict(r >= 0.9),
    ]);
  }
  // The MCP face against A2T itself, same run.
  const mcp = byKey.get('sculptor_mcp');
  if (mcp && sculptor) {
    targets.push([
      'MCP tools/call ≥ 0.90× A2T :invoke req/s',
      `${fixed(
        pairedRatio(mcp, sculptor, (x) => x.rps),
        2,
      )}× (CPU per request ${fixed(
        pairedRatio(mcp, sculptor, (x) => x.cpuUsPerRequest),
        2,
      )}× A2T's)`,
      verdict(pairedRatio(mcp, sculptor, (x) => x.rps) >= 0.9),
    ]);
  }
  const p50Pairs: Array<[Row | undefined, Row | undefined, string]> = [
    [byKey.get('sculptor_c1'), byKey.get('hand_c1'), '1 connection'],
    [sculptor, hand, `${CONNECTIONS} connections`],
  ];
  for (const [s, h, how] of p50Pairs) {
    if (!s || !h) continue;
    const d = s.p50Ms - h.p50Ms;
    targets.push([
      `Single operation p50 ≤ hand-written p50 + 0.5 ms (${how})`,
      `${d >= 0 ? '+' : ''}${fixed(d, 2)} ms (${fixed(s.p50Ms, 2)} vs ${fixed(h.p50Ms, 2)} ms)`,
      verdict(d <= 0.5),
    ]);
  }
  for (const [uncached, withCache, how] of [
    [chain, cached, 'backend answering at once'],
    [byKey.get('chain_slow'), byKey.get('chain_slow_cached'), `backend answering in ${SLOW_MS} ms`],
  ] as const) {
    if (!uncached || !withCache) continue;
    const r = pairedRatio(withCache, uncached, (x) => x.rps);
    targets.push([
      `Chain with cached steps ≥ 2× uncached chain (req/s; ${how})`,
      `${fixed(r, 2)}×`,
      verdict(r >= 2),
    ]);
  }
  for (const [row, how] of [
    [byKey.get('catalog_c1'), '1 connection'],
    [catalog, `${CONNECTIONS} connections`],
  ] as const) {
    if (!row) continue;
    targets.push([
      `GET /tools with ${data.catalogStart.tools} tools: p99 < 10 ms (${how})`,
      `${fixed(row.p99Ms, 2)} ms`,
      verdict(row.p99Ms < 10),
    ]);
  }
  targets.push([
    `Start-up with ${data.github.sculpts} sculpts < 5 s`,
    `${fixed(startMs / 1000, 2)} s`,
    verdict(startMs < 5_000),
  ]);
  targets.push([
    `Start-up with ${data.github.sculpts} sculpts < 300 MB resident`,
    `${fixed(rss / MB, 0)} MB after start, ${fixed(maxRss / MB, 0)} MB peak`,
    verdict(rss < 300 * MB && maxRss < 300 * MB),
  ]);

  return [
    '',
    ...data.machine,
    '',
    markdownTable(table),
    '',
    markdownTable(startTable),
    '',
    markdownTable(targets),
    '',
    `The GitHub description ships as ${fixed(data.github.shippedBytes / MB, 1)} MB of pretty-printed JSON; the start-up ` +
      `sculpts read it minified (${fixed(data.github.writtenBytes / MB, 1)} MB), as they did when the loader's cap was 10 MiB, ` +
      'so that figure compares with earlier runs; the "Load" rows read the descriptions as published.',
    `Bench wall time: ${fixed(data.wallSec, 0)} s.`,
  ].join('\n');
}

function baselineName(key: string): string {
  return (
    {
      direct: 'direct',
      bare: 'bare proxy',
      hand: 'hand-written',
      hand_c1: 'hand-written, 1 connection',
      bare_c1: 'bare proxy, 1 connection',
      hand_tel: 'hand-written with telemetry',
      chain: 'uncached chain',
      chain_slow: 'uncached chain',
    }[key] ?? key
  );
}

function markdownTable(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [
    line(rows[0]!),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...rows.slice(1).map(line),
  ].join('\n');
}

async function profileMain(targets: string[]): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'sculptor-profile-'));
  const backend = await startChild<ReadyMessage & { otlpUrl: string }>('backend.ts');
  const load = await startChild('load.ts');
  try {
    for (const line of machineLines()) log(line);
    const runLoad = loadRunner(load);
    const profiled = new Map<string, Profiled>();
    const ours = [process.pid, backend.process.pid!, load.process.pid!, ...pidsNamed('redis-server')];
    for (const target of targets) {
      // A profile taken while other processes were busy is taken again, once.
      for (let attempt = 1; ; attempt++) {
        log(`profiling ${target}`);
        await waitForQuiet(0.15, 60_000, ours);
        const run = await profileTarget(
          target,
          {
            durationSec: Math.max(DURATION, 10),
            warmupSec: WARMUP,
            warmupMaxSec: WARMUP_MAX,
            connections: CONNECTIONS,
            dir,
            ours,
          },
          runLoad,
          { url: backend.ready.url!, otlpUrl: backend.ready.otlpUrl },
        );
        if (attempt < 2 && (run.foreignCores ?? 0) > FOREIGN_LIMIT_CORES) {
          log(`  other processes used ${fixed(run.foreignCores!, 2)} cores: profiling ${target} again`);
          continue;
        }
        profiled.set(target, run.profiled);
        console.log(`\n${run.text}`);
        break;
      }
    }
    // Each against its hand-written counterpart, and telemetry on against off.
    const pairs = [
      ['bare', 'hand'],
      ['hand', 'sculptor'],
      ['hand', 'sculptor_lite'],
      ['hand', 'chain'],
      ['hand', 'chain_cached'],
      ['hand_tel', 'sculptor_tel'],
      ['hand', 'hand_tel'],
      ['sculptor', 'sculptor_tel'],
    ];
    for (const [a, b] of pairs) {
      const pa = profiled.get(a!);
      const pb = profiled.get(b!);
      if (pa && pb) console.log(`\n${formatComparison(pa, pb)}`);
    }
  } finally {
    await Promise.allSettled([backend.stop(), load.stop()]);
  }
}

if (args.profile) await profileMain(args.profile.split(','));
else if (args['memory-only']) console.log(await runMemory(memoryOptions(quick), log));
else {
  if (!args['peers-only']) await main();
  if (!args['no-peers']) {
    const given = { rounds: ROUNDS, durationSec: DURATION, warmupSec: WARMUP, connections: CONNECTIONS };
    console.log(await runPeers(peersOptions(quick, given, log)));
  }
  if (!args['no-memory']) console.log(await runMemory(memoryOptions(quick), log));
  if (!args['no-instructions']) {
    console.log(
      await countInstructions(quick ? { warmup: 1000, calls: 300 } : { warmup: 4000, calls: 1500 }),
    );
  }
}
