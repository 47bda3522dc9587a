/**
 * A/B of the single-operation scenario across trees: servers doing the same
 * job, all running at once, loaded in turn, rounds rotated, CPU µs per request
 * of each server process (from /proc) and req/s. Each variant is a server:
 * the hand-written handler or the gateway of a given tree (a `git archive`
 * export with node_modules linked), with telemetry off or with the production
 * set-up (as in bench/run.ts). Its results are in docs/PERFORMANCE.md.
 *
 *   node bench/single-op-ab.ts [--rounds 9 --duration 4 --warmup 15 --connections 8] \
 *     name=kind:tree[:KEY=value,…] …
 *   kinds: bare (the node:http floor), hand, hand_tel, duty (bench/duty-equal.ts), sculptor,
 *   sculptor_tel; a gateway kind
 *   may name a face of invocations.ts's ALL_FACE_INVOCATIONS: sculptor_lite, sculptor_mcp,
 *   sculptor_tel_lite, sculptor_tel_mcp (default A2T), or sculptor_mcp2025 (the 2025-11-25 era);
 *   each is sent with its face's headers. sdk_mcp and sdk_mcp2025: the MCP face's comparator, the
 *   lean hand-written server on the official SDK (bench/mcp-sdk-server.ts), sent the same call.
 *   `BENCH_NODE_FLAGS=--flag --flag` among a variant's KEY=value pairs starts that server with
 *   those node flags after production's.
 *
 * The first variant is the baseline of the ratios; per-round ratios pair
 * variants measured within the same round. On a shared two-core machine the same server's CPU
 * per request drifts by up to 2× within minutes: many short rounds (`--rounds 20 --duration 1`)
 * resolve smaller differences than a few long ones. Each row also shows the server's system
 * CPU and read/write system calls per request (`/proc/<pid>/io`). Every server starts with the
 * node flags production starts with (PRODUCTION_NODE_FLAGS), as in the main bench.
 *
 *   --idle S every measurement after S seconds with no load (servers idle, as in a long rotation)
 *   --alloc  bytes allocated per request, and where (bench/alloc-sampler.ts)
 *   --gc     what the collector did per request during the rounds (bench/gc-trace.ts)
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { once } from 'node:events';
import { openSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { PRODUCTION_NODE_FLAGS, type ReadyMessage, startChild } from './child.ts';
import { foreignCores, pidsNamed, processSyscalls, snapshot, usedMs } from './cpu.ts';
import { GC_TRACE_FLAGS, gcPerCall, traceMark } from './gc-trace.ts';
import { allocationSamplerEnv, readAllocation } from './memory.ts';
import { ALL_FACE_INVOCATIONS, FORECAST_BODY, HAND_WRITTEN_PATH, JSON_POST } from './invocations.ts';
import type { LoadResult, LoadSpec } from './load.ts';
import { median } from './stats.ts';

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    rounds: { type: 'string', default: '9' },
    duration: { type: 'string', default: '4' },
    warmup: { type: 'string', default: '15' },
    connections: { type: 'string', default: '8' },
    idle: { type: 'string', default: '0' },
    // Bytes allocated per request instead of trusting CPU alone (bench/alloc-sampler.ts); the
    // sampler's own cost inflates CPU per request, so read the CPU of a run without it.
    alloc: { type: 'boolean', default: false },
    // The collector's work per request (its pauses are inside the CPU figure, and the trace costs little).
    gc: { type: 'boolean', default: false },
  },
});
const log = (line: string) => process.stderr.write(`${line}\n`);
const gcFlags = args.gc ? GC_TRACE_FLAGS : [];

interface Server {
  process: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

/** A bench child of another tree (its own child.ts protocol: `ready`, then `stop`). */
async function forkTree(
  script: string,
  argv: string[],
  env: Record<string, string>,
  execArgv: string[],
  stdout?: string,
): Promise<Server> {
  const child = fork(script, argv, {
    execPath: process.execPath,
    execArgv: [
      ...PRODUCTION_NODE_FLAGS,
      ...(env.BENCH_NODE_FLAGS ? env.BENCH_NODE_FLAGS.split(' ') : []),
      ...execArgv,
    ],
    env: { ...process.env, ...env },
    stdio: ['ignore', stdout ? openSync(stdout, 'w') : 2, 'inherit', 'ipc'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.on('message', (m: { type?: string; url?: string; error?: string }) => {
      if (m.type === 'ready') resolve(m.url!);
      if (m.type === 'failed') reject(new Error(m.error));
    });
    child.once('exit', (code) => reject(new Error(`${script} exited (${code})`)));
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.send({ type: 'stop' });
    await exited;
  };
  return { process: child, url, stop };
}

/** `node --import ./src/telemetry/register.ts src/cli/main.ts serve` in a tree, as bench/cli-gateway.ts does. */
async function cliGateway(tree: string, env: Record<string, string>, logFile: string): Promise<Server> {
  const child = spawn(
    process.execPath,
    [
      ...PRODUCTION_NODE_FLAGS,
      ...gcFlags,
      '--import',
      './src/telemetry/register.ts',
      'src/cli/main.ts',
      'serve',
      path.join(tree, 'bench/sculpts/'),
    ],
    {
      cwd: tree,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env },
      stdio: ['ignore', openSync(logFile, 'w'), 'inherit'],
    },
  );
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  };
  for (let i = 0; i < 600; i++) {
    for (const line of readFileSync(logFile, 'utf8').split('\n')) {
      if (!line.includes('"serving"')) continue;
      const entry = JSON.parse(line) as { url?: string; tracing?: boolean };
      if (entry.tracing !== true) throw new Error(`${tree}: the gateway started without tracing`);
      return { process: child, url: entry.url!, stop };
    }
    await sleep(100);
  }
  await stop();
  throw new Error(`${tree}: the gateway did not log 'serving'`);
}

interface Variant {
  name: string;
  /** The server's stdout: its log lines (telemetry kinds) and the collector's trace (--gc). */
  stdout: string;
  server: Server;
  spec: LoadSpec;
}

async function main(): Promise<void> {
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'sculptor-ab-'));
  const backend = await startChild<ReadyMessage & { otlpUrl: string }>('backend.ts');
  const load = await startChild('load.ts');
  const servers: Server[] = [];
  try {
    const env = {
      BENCH_BACKEND_URL: backend.ready.url!,
      SCULPTOR_SECRET: 'single-op-ab-secret-0123456789abcdef',
      REDIS_URL: process.env.REDIS_URL || 'redis://127.0.0.1:6379',
    };
    const otel = {
      OTEL_EXPORTER_OTLP_ENDPOINT: backend.ready.otlpUrl,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      LOG_LEVEL: 'info',
    };
    const variants: Variant[] = [];
    for (const arg of positionals) {
      const [name, rest] = splitOnce(arg, '=');
      const [kind = '', tree = '', extras = ''] = rest.split(':');
      const extra = Object.fromEntries(
        extras
          .split(',')
          .filter(Boolean)
          .map((kv) => splitOnce(kv, '=')),
      );
      if (args.alloc) {
        // Applies to every kind: `extra` is each server's last word on its environment.
        Object.assign(
          extra,
          allocationSamplerEnv(
            path.join(tmp, `${name}.alloc.json`),
            extra.NODE_OPTIONS ?? process.env.NODE_OPTIONS,
          ),
        );
      }
      const root = path.resolve(tree);
      const gatewayKind = kind.startsWith('sculptor_tel')
        ? 'sculptor_tel'
        : kind.startsWith('sculptor')
          ? 'sculptor'
          : kind.startsWith('sdk_')
            ? 'sdk'
            : kind;
      const faceKey = gatewayKind === kind ? 'a2t' : kind.slice(gatewayKind.length + 1);
      const face = ALL_FACE_INVOCATIONS.find((f) => f.key === faceKey);
      if (!face)
        throw new Error(
          `${arg}: no face '${faceKey}' (${ALL_FACE_INVOCATIONS.map((f) => f.key).join(', ')})`,
        );
      const invokeUrl = (url: string) => `${url}${face.path}`;
      let body = FORECAST_BODY;
      let headers: Record<string, string> = JSON_POST.headers;
      let server: Server;
      let url: string;
      const stdout = path.join(tmp, `${name}.log`);
      if (kind === 'bare' || kind === 'duty') {
        server = await forkTree(
          path.join(root, kind === 'bare' ? 'bench/bare-proxy.ts' : 'bench/duty-equal.ts'),
          [],
          { ...env, ...extra },
          gcFlags,
          args.gc ? stdout : undefined,
        );
        url = `${server.url}${HAND_WRITTEN_PATH}`;
      } else if (kind === 'hand' || kind === 'hand_tel') {
        const tel = kind === 'hand_tel';
        server = await forkTree(
          path.join(root, 'bench/hand-written.ts'),
          [],
          {
            ...env,
            ...(tel ? { ...otel, BENCH_TELEMETRY: '1', OTEL_SERVICE_NAME: 'hand-written' } : {}),
            ...extra,
          },
          [...gcFlags, ...(tel ? ['--import', path.join(root, 'src/telemetry/register.ts')] : [])],
          tel || args.gc ? stdout : undefined,
        );
        url = `${server.url}${HAND_WRITTEN_PATH}`;
      } else if (gatewayKind === 'sculptor') {
        server = await forkTree(
          path.join(root, 'bench/sculptor.ts'),
          [path.join(root, 'bench/sculpts/')],
          { ...env, ...extra },
          gcFlags,
          args.gc ? stdout : undefined,
        );
        url = invokeUrl(server.url);
        body = face.body;
        headers = face.headers;
      } else if (gatewayKind === 'sdk' && face.path === '/mcp') {
        // The MCP face's comparator: the lean hand-written server on the official SDK (bench/mcp-sdk-server.ts).
        server = await forkTree(
          path.join(root, 'bench/mcp-sdk-server.ts'),
          [],
          { ...env, BENCH_MCP_STYLE: 'lean', ...extra },
          gcFlags,
          args.gc ? stdout : undefined,
        );
        url = invokeUrl(server.url);
        body = face.body;
        headers = face.headers;
      } else if (gatewayKind === 'sculptor_tel') {
        server = await cliGateway(root, { ...env, ...otel, ...extra }, stdout);
        url = invokeUrl(server.url);
        body = face.body;
        headers = face.headers;
      } else {
        throw new Error(
          `${arg}: kind must be bare, hand, hand_tel, duty, sculptor[_face], sculptor_tel[_face] or sdk_mcp[2025]`,
        );
      }
      servers.push(server);
      const res = await fetch(url, { method: 'POST', headers, body });
      const text = await res.text();
      if (res.status !== 200 || !text.includes('"temperature"'))
        throw new Error(`${name}: ${res.status} ${text}`);
      const spec: LoadSpec = {
        key: name,
        method: 'POST',
        headers,
        url,
        body,
        connections: Number(args.connections),
        durationSec: Number(args.duration),
      };
      variants.push({ name, stdout, server, spec });
      log(`${name}: ${kind} of ${root} ${JSON.stringify(extra)}, pid ${server.process.pid}`);
    }

    let nextId = 0;
    const runLoad = (spec: LoadSpec): Promise<LoadResult> =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        const onMessage = (m: { type?: string; id?: number; result?: LoadResult; error?: string }) => {
          if (m.type !== 'result' || m.id !== id) return;
          load.process.off('message', onMessage);
          if (m.result) resolve(m.result);
          else reject(new Error(m.error ?? 'load failed'));
        };
        load.process.on('message', onMessage);
        load.process.send({ type: 'run', id, spec });
      });
    const ours = [
      process.pid,
      backend.process.pid!,
      load.process.pid!,
      ...variants.map((v) => v.server.process.pid!),
      ...pidsNamed('redis-server'),
    ];
    for (const v of variants) await runLoad({ ...v.spec, durationSec: Number(args.warmup) });
    // The collections of the measured rounds only: a warm-up's compilations and heap growth are not a call's.
    const marks = new Map(args.gc ? variants.map((v) => [v.name, traceMark(v.stdout)]) : []);
    const calls = new Map(variants.map((v) => [v.name, 0]));

    const rounds = new Map<
      string,
      Array<{
        cpu: number;
        rps: number;
        foreign: number;
        reads: number;
        writes: number;
        systemUs: number;
        faults: number;
      }>
    >(variants.map((v) => [v.name, []]));
    for (let r = 0; r < Number(args.rounds); r++) {
      const order = variants.map((_, i) => variants[(i + r) % variants.length]!);
      const line: string[] = [];
      for (const v of order) {
        // Every server sits idle this long before its load, as in a run of many servers in turn.
        if (Number(args.idle) > 0) await sleep(1000 * Number(args.idle));
        const before = snapshot(ours);
        const ioBefore = processSyscalls(v.server.process.pid!);
        const result = await runLoad(v.spec);
        calls.set(v.name, calls.get(v.name)! + result.requests);
        const ioAfter = processSyscalls(v.server.process.pid!);
        const after = snapshot(ours);
        const cpu = (1000 * (usedMs(before, after, v.server.process.pid!) ?? Number.NaN)) / result.requests;
        const foreign = foreignCores(before, after, ours) ?? Number.NaN;
        const perRequest = (pick: (io: NonNullable<typeof ioAfter>) => number) =>
          ioBefore && ioAfter ? (pick(ioAfter) - pick(ioBefore)) / result.requests : Number.NaN;
        const io = {
          reads: perRequest((x) => x.reads),
          writes: perRequest((x) => x.writes),
          systemUs: 1000 * perRequest((x) => x.systemMs),
          faults: perRequest((x) => x.minorFaults),
        };
        rounds.get(v.name)!.push({ cpu, rps: result.rps, foreign, ...io });
        const failed = result.non2xx + result.errors + result.timeouts;
        line.push(
          `${v.name} ${cpu.toFixed(0)} µs (system ${io.systemUs.toFixed(0)}; syscalls ${io.reads.toFixed(1)} r ${io.writes.toFixed(1)} w; page faults ${io.faults.toFixed(2)}) ${result.rps.toFixed(0)} req/s (other ${foreign.toFixed(2)})${failed ? ` ${failed} failed` : ''}`,
        );
      }
      log(`round ${r + 1}: ${line.join(' | ')}`);
    }

    const first = variants[0]!.name;
    const base = rounds.get(first)!;
    const rows = [
      '| variant | CPU µs/req (median) | min–max | CPU vs first | req/s (median) | req/s vs first | per-round CPU ratio vs first (median) | system µs/req | syscalls/req (read + write) | other load, max |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ];
    for (const v of variants) {
      const xs = rounds.get(v.name)!;
      const cpu = median(xs.map((x) => x.cpu));
      const rps = median(xs.map((x) => x.rps));
      const paired = median(xs.map((x, i) => x.cpu / base[i]!.cpu));
      rows.push(
        `| ${v.name} | ${cpu.toFixed(0)} | ${Math.min(...xs.map((x) => x.cpu)).toFixed(0)}–${Math.max(...xs.map((x) => x.cpu)).toFixed(0)} | ` +
          `${(cpu / median(base.map((x) => x.cpu))).toFixed(2)} | ${rps.toFixed(0)} | ${(rps / median(base.map((x) => x.rps))).toFixed(2)} | ` +
          `${paired.toFixed(2)} | ${median(xs.map((x) => x.systemUs)).toFixed(0)} | ` +
          `${median(xs.map((x) => x.reads)).toFixed(1)} + ${median(xs.map((x) => x.writes)).toFixed(1)} | ` +
          `${Math.max(...xs.map((x) => x.foreign)).toFixed(2)} |`,
      );
    }
    console.log(rows.join('\n'));
    if (args.gc) {
      console.log(
        [
          '',
          '| variant | calls | young collections per 1,000 calls | promoted KiB/call | full collections per 10,000 calls | collector pauses µs/call |',
          '|---|---:|---:|---:|---:|---:|',
          ...variants.map((v) => {
            const gc = gcPerCall(v.stdout, marks.get(v.name)!, calls.get(v.name)!);
            return `| ${v.name} | ${gc.calls} | ${gc.youngPer1000.toFixed(1)} | ${gc.promotedKiB.toFixed(2)} | ${gc.fullPer10000.toFixed(1)} | ${gc.pauseUs.toFixed(1)} |`;
          }),
        ].join('\n'),
      );
    }
  } finally {
    await Promise.allSettled([...servers.map((s) => s.stop()), backend.stop(), load.stop()]);
  }
  if (args.alloc)
    console.log(
      allocationTable(
        tmp,
        positionals.map((arg) => splitOnce(arg, '=')[0]),
      ),
    );
}

/** Bytes allocated per request by each server (bench/alloc-sampler.ts wrote them as it exited). */
function allocationTable(dir: string, names: string[]): string {
  const rows = [
    '',
    '| variant | requests sampled | allocated KiB/request | largest sites (KiB/request) |',
    '|---|---:|---:|---|',
  ];
  for (const name of names) {
    try {
      const alloc = readAllocation(path.join(dir, `${name}.alloc.json`));
      const kib = (bytes: number) => (bytes / 1024).toFixed(1);
      // The sampler kept BENCH_ALLOC_SITES sites (its default 25); the table shows six unless asked.
      const sites = alloc.sites
        .slice(0, Number(process.env.BENCH_ALLOC_SITES ?? 6))
        .map((s) => `${s.site} ${kib(s.bytesPerRequest)}`)
        .join('; ');
      rows.push(`| ${name} | ${alloc.requests} | ${kib(alloc.bytesPerRequest)} | ${sites} |`);
    } catch {
      rows.push(`| ${name} | — | — | no sample (fewer than BENCH_ALLOC_FROM requests?) |`);
    }
  }
  return rows.join('\n');
}

await main();

/** `a=b=c` → ['a', 'b=c']: values such as NODE_OPTIONS=--max-semi-space-size=16 keep their own '='. */
function splitOnce(text: string, separator: string): [string, string] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, ''] : [text.slice(0, at), text.slice(at + separator.length)];
}
