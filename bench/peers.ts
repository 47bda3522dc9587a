/**
 * The peers and comparators of `npm run bench` (run.ts runs this after its own table; alone:
 * `node bench/peers.ts [--quick]`). Every server calls the same bench backend for the same NWS
 * forecast, under the same load, in interleaved rounds; docs/PERFORMANCE.md ("Peers and
 * comparators") says what each is and why.
 *
 * - MCP: Sculptor's MCP face against a server written by hand on the official SDK (both protocol
 *   eras), openapi-mcp-generator's generated server and FastMCP's `from_openapi` for the NWS
 *   description (each skipped with the reason printed when it cannot be prepared), with the size
 *   of the tools/list each hands an agent.
 * - A2T: Sculptor against the lean hand-written handler and against the duty-equal one.
 * - Answer size: Sculptor and the lean handler with the forecast repeated to ≈ 10× and 100×.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type Child, type ReadyMessage, startChild } from './child.ts';
import { pidsNamed, processTree, waitForQuiet } from './cpu.ts';
import { type ExternalServer, freePort, startExternal } from './external-server.ts';
import { FASTMCP_SERVER, prepareFastMcp } from './fastmcp-peer.ts';
import { GENERATOR, prepareGeneratedPeer } from './generated-mcp-peer.ts';
import {
  FACE_INVOCATIONS,
  FORECAST_BODY,
  forecastOnlySculpts,
  HAND_WRITTEN_PATH,
  JSON_POST,
  MCP_FORECAST,
} from './invocations.ts';
import type { LoadSpec } from './load.ts';
import {
  a2tAnswers,
  type Era,
  mcpAnswers,
  mcpRequest,
  openSession,
  post,
  toolsListSize,
} from './mcp-requests.ts';
import { report } from './peers-report.ts';
import { fixed, loadRunner, measureRound, type Round, WARMUP_MAX_SEC, warmUp } from './rounds.ts';
import type { GatewayReady } from './sculptor.ts';

const ROOT = new URL('..', import.meta.url).pathname;
/** The NWS description (57 operations) the generated peers are made from. */
const NWS_DESCRIPTION = path.join(ROOT, 'test/fixtures/specs/nws/api.weather.gov.openapi.json');
/** Installs the peers need, kept between runs (npm ci clears it with node_modules). */
const CACHE_DIR = path.join(ROOT, 'node_modules/.cache/sculptor-bench');
/** Forecast repeats for the answer-size rows: ≈ 133 KB and 1.33 MB against the recorded 13 KB. */
const SIZE_REPEATS = [11, 111];

const FOREIGN_LIMIT_CORES = 0.25;
const MAX_RETRIES = 2;

export interface PeersOptions {
  rounds: number;
  durationSec: number;
  warmupSec: number;
  /** The longest warm-up, while a server's rate still rises (rounds.ts, warmUp). */
  warmupMaxSec: number;
  connections: number;
  /** Reruns allowed in the whole run for rounds during which other processes were busy. */
  reruns: number;
  /** How long to wait at most for the machine to be quiet before the rounds. */
  quietWaitSec: number;
  log: (line: string) => void;
}

type Group = 'mcp' | 'a2t' | 'size';

export interface Scenario {
  key: string;
  label: string;
  group: Group;
  pid: number;
  spec: LoadSpec;
  /** The answer carries the fixture's first period (checked before loading). */
  check(status: number, text: string): boolean;
  /** A peer the bench did not write (generated, or another language): skipped when it answers wrongly. */
  peer?: boolean;
}

export interface Row {
  scenario: Scenario;
  rounds: Round[];
}

/** One request of a scenario, as `status body…`, to say what failing answers were. */
async function sampleAnswer(s: Scenario): Promise<string> {
  try {
    const res = await fetch(s.spec.url, { method: 'POST', headers: s.spec.headers, body: s.spec.body });
    return `${res.status} ${(await res.text()).slice(0, 300)}`;
  } catch (err) {
    return String(err);
  }
}

// ---------------------------------------------------------------- the run

export async function runPeers(options: PeersOptions): Promise<string> {
  const { log } = options;
  const wallStart = performance.now();
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'sculptor-peers-'));
  const stops: Array<() => Promise<void>> = [];
  const started: number[] = [];
  /** The backends and the load generator: every round uses them. */
  const shared: number[] = [];
  const notes: string[] = [];
  try {
    mkdirSync(CACHE_DIR, { recursive: true });
    // Installs first, before anything is measured: they load the machine.
    const [generated, fastmcp] = await Promise.all([
      prepareGeneratedPeer(CACHE_DIR, NWS_DESCRIPTION, log).catch(
        (err: unknown) =>
          ({ skipped: `${GENERATOR.name} could not be prepared: ${String(err).slice(0, 300)}` }) as const,
      ),
      prepareFastMcp(CACHE_DIR, log),
    ]);

    const sculpts = forecastOnlySculpts(path.join(tmp, 'sculpts'));

    const child = async <R extends ReadyMessage>(
      script: string,
      opts: Parameters<typeof startChild>[1] = {},
    ): Promise<Child<R>> => {
      const c = await startChild<R>(script, opts);
      stops.push(() => c.stop());
      started.push(c.process.pid!);
      return c;
    };
    /** A peer that will not start is skipped, the reason printed, rather than ending the run. */
    const external = async (
      name: string,
      server: Promise<ExternalServer>,
    ): Promise<ExternalServer | undefined> => {
      try {
        const s = await server;
        stops.push(() => s.stop());
        started.push(s.process.pid!);
        return s;
      } catch (err) {
        notes.push(`${name} skipped: ${err instanceof Error ? err.message : String(err)}`);
        return undefined;
      }
    };

    log('peers: starting the backends, Sculptor, the hand-written servers and the peers');
    const pid = (c: { process: { pid?: number } }) => c.process.pid!;
    const backend = await child<ReadyMessage & { forecastBytes: number }>('backend.ts');
    shared.push(pid(backend));
    const backendUrl = backend.ready.url!;
    const env = { BENCH_BACKEND_URL: backendUrl };
    const secret = randomBytes(24).toString('hex');
    const gateway = await child<GatewayReady>('sculptor.ts', {
      args: [sculpts],
      env: { ...env, SCULPTOR_SECRET: secret },
    });
    const hand = await child('hand-written.ts', { env });
    const duty = await child('duty-equal.ts', { env });
    const sdk = await child('mcp-sdk-server.ts', { env });
    const sdkLean = await child('mcp-sdk-server.ts', { env: { ...env, BENCH_MCP_STYLE: 'lean' } });
    let generatedServer: ExternalServer | undefined;
    let generatedVersion = '';
    if ('entry' in generated) {
      const jsonBackend = await child('backend.ts', { env: { BENCH_FORECAST_TYPE: 'application/json' } });
      shared.push(pid(jsonBackend));
      notes.push(
        'openapi-mcp-generator is measured against the same backend answering `application/json`: for the ' +
          'forecast\'s recorded `application/geo+json` its server hands the agent "[object Object]".',
      );
      const port = await freePort();
      generatedServer = await external(
        GENERATOR.name,
        startExternal({
          command: process.execPath,
          args: [generated.entry, '--transport=streamable-http'],
          port,
          // The description's `userAgent` key: NWS asks every client for a User-Agent.
          env: {
            PORT: String(port),
            API_BASE_URL: jsonBackend.ready.url!,
            API_KEY_USERAGENT: 'sculptor-bench',
          },
          logFile: path.join(tmp, 'openapi-mcp-generator.log'),
        }),
      );
      generatedVersion = `${GENERATOR.name} ${GENERATOR.version} (MCP SDK ${generated.sdkVersion})`;
    } else notes.push(`openapi-mcp-generator skipped: ${generated.skipped}`);
    let fastmcpServer: ExternalServer | undefined;
    if ('python' in fastmcp) {
      const port = await freePort();
      fastmcpServer = await external(
        'FastMCP',
        startExternal({
          command: fastmcp.python,
          args: [FASTMCP_SERVER, NWS_DESCRIPTION, backendUrl, String(port)],
          port,
          logFile: path.join(tmp, 'fastmcp.log'),
          readyTimeoutMs: 120_000,
        }),
      );
    } else notes.push(`FastMCP skipped: ${fastmcp.skipped}`);
    const sized: Array<{
      repeat: number;
      bytes: number;
      backend: Child;
      gateway: Child<GatewayReady>;
      hand: Child;
    }> = [];
    for (const repeat of SIZE_REPEATS) {
      const b = await child<ReadyMessage & { forecastBytes: number }>('backend.ts', {
        env: { BENCH_FORECAST_REPEAT: String(repeat) },
      });
      shared.push(pid(b));
      const sizedEnv = { BENCH_BACKEND_URL: b.ready.url! };
      sized.push({
        repeat,
        bytes: b.ready.forecastBytes,
        backend: b,
        gateway: await child<GatewayReady>('sculptor.ts', {
          args: [sculpts],
          env: { ...sizedEnv, SCULPTOR_SECRET: secret },
        }),
        hand: await child('hand-written.ts', { env: sizedEnv }),
      });
    }
    const load = await child('load.ts');
    shared.push(pid(load));

    // ------------------------------------------------------------ scenarios
    const common = { connections: options.connections, durationSec: options.durationSec };
    const mcpAt = (url: string) => `${url}/mcp`;
    const sculptorMcp = mcpAt(gateway.ready.url);
    const forecastArgs = { office: 'OKX', x: 33, y: 35 };
    const nwsArgs = { wfo: 'OKX', x: 33, y: 35 };
    interface McpTarget {
      key: string;
      label: string;
      server: { process: { pid?: number } };
      url: string;
      era: Era;
      tool: string;
      args: Record<string, unknown>;
      /** The session's headers, for a server that keeps sessions: each request then gets its own JSON-RPC id. */
      session?: Record<string, string>;
      /** Requests of the sizing run, for a server that answers only a few a second. */
      calibrate?: number;
      peer?: boolean;
    }
    const mcpScenario = (t: McpTarget): Scenario => {
      const request =
        t.era === '2026-07-28' && t.url === sculptorMcp
          ? { headers: MCP_FORECAST.headers, body: MCP_FORECAST.body }
          : mcpRequest(t.era, 'tools/call', { name: t.tool, arguments: t.args }, t.session);
      const body = t.session ? request.body.replace('"id":1,', '"id":"[<id>]",') : request.body;
      return {
        key: t.key,
        label: t.label,
        group: 'mcp',
        pid: pid(t.server),
        spec: {
          ...common,
          method: 'POST',
          url: t.url,
          headers: request.headers,
          body,
          ...(t.session ? { idReplacement: true } : {}),
          ...(t.calibrate ? { calibrate: t.calibrate } : {}),
        },
        check: mcpAnswers,
        ...(t.peer ? { peer: true } : {}),
      };
    };
    const eras: Era[] = ['2026-07-28', '2025-11-25'];
    const stateless = (era: Era) => (era === '2025-11-25' ? `${era}, stateless` : era);
    const scenarios: Scenario[] = [];
    const listSizes: string[][] = [['Server (MCP tools/list for this API)', 'tools', 'characters']];
    const forecastTool = { tool: 'bench_forecast', args: forecastArgs };
    for (const era of eras) {
      scenarios.push(
        mcpScenario({
          key: `sculptor_${era}`,
          label: `Sculptor MCP face (${era})`,
          server: gateway,
          url: sculptorMcp,
          era,
          ...forecastTool,
        }),
        mcpScenario({
          key: `sdk_${era}`,
          label: `Hand-written on the official SDK, lean (${stateless(era)})`,
          server: sdkLean,
          url: mcpAt(sdkLean.ready.url!),
          era,
          ...forecastTool,
        }),
        mcpScenario({
          key: `sdk_idiomatic_${era}`,
          label: `Hand-written on the official SDK, registerTool + zod (${stateless(era)})`,
          server: sdk,
          url: mcpAt(sdk.ready.url!),
          era,
          ...forecastTool,
        }),
      );
    }
    const sizeOf = async (label: string, url: string, era: Era, headers: Record<string, string> = {}) => {
      const size = await toolsListSize(url, era, headers).catch(() => undefined);
      listSizes.push([label, size ? String(size.tools) : '—', size ? String(size.chars) : 'not read']);
    };
    await sizeOf('Sculptor (one sculpt)', sculptorMcp, '2026-07-28');
    await sizeOf('Hand-written on the official SDK, lean', mcpAt(sdkLean.ready.url!), '2026-07-28');
    await sizeOf('Hand-written on the official SDK, registerTool + zod', mcpAt(sdk.ready.url!), '2026-07-28');
    if (generatedServer) {
      const url = mcpAt(generatedServer.url);
      const session = await openSession(url);
      scenarios.push(
        mcpScenario({
          key: 'generated',
          label: `${generatedVersion} (2025-11-25, one session)`,
          server: generatedServer,
          url,
          era: '2025-11-25',
          tool: 'gridpoint_forecast',
          args: nwsArgs,
          session,
          peer: true,
        }),
      );
      await sizeOf(generatedVersion, url, '2025-11-25', session);
    }
    if (fastmcpServer && 'python' in fastmcp) {
      const url = mcpAt(fastmcpServer.url);
      for (const era of eras) {
        const s = mcpScenario({
          key: `fastmcp_${era}`,
          label: `${fastmcp.versions} from_openapi (${stateless(era)})`,
          server: fastmcpServer,
          url,
          era,
          tool: 'gridpoint_forecast',
          args: nwsArgs,
          calibrate: 2 * options.connections,
          peer: true,
        });
        const probe = await post(url, { headers: s.spec.headers!, body: s.spec.body! }).catch(
          () => undefined,
        );
        if (probe && mcpAnswers(probe.status, probe.text)) scenarios.push(s);
        else
          notes.push(
            `FastMCP at ${era} not measured: its answer was ${probe?.status ?? 'none'} ${probe?.text.slice(0, 200) ?? ''}`,
          );
      }
      await sizeOf(`${fastmcp.versions} from_openapi`, url, '2025-11-25');
    }
    const a2t = (key: string, label: string, group: Group, server: Child, url: string): Scenario => ({
      key,
      label,
      group,
      pid: pid(server),
      spec: { ...common, ...JSON_POST, url, body: FORECAST_BODY },
      check: a2tAnswers,
    });
    const a2tPath = FACE_INVOCATIONS.find((f) => f.key === 'a2t')!.path;
    const sculptorInvoke = (g: Child<GatewayReady>) => `${g.ready.url}${a2tPath}`;
    scenarios.push(
      a2t('a2t_sculptor', 'Sculptor A2T POST /tools/{id}:invoke', 'a2t', gateway, sculptorInvoke(gateway)),
      a2t('a2t_hand', 'Lean hand-written Hono handler', 'a2t', hand, `${hand.ready.url}${HAND_WRITTEN_PATH}`),
      a2t(
        'a2t_duty',
        'Duty-equal hand-written (Hono, cockatiel, ajv, prom-client)',
        'a2t',
        duty,
        `${duty.ready.url}${HAND_WRITTEN_PATH}`,
      ),
    );
    for (const s of sized) {
      const kb = `${fixed(s.bytes / 1000, 0)} KB`;
      scenarios.push(
        a2t(
          `size${s.repeat}_sculptor`,
          `Sculptor A2T, forecast ${kb}`,
          'size',
          s.gateway,
          sculptorInvoke(s.gateway),
        ),
        a2t(
          `size${s.repeat}_hand`,
          `Lean hand-written, forecast ${kb}`,
          'size',
          s.hand,
          `${s.hand.ready.url}${HAND_WRITTEN_PATH}`,
        ),
      );
    }

    // A server of ours answering wrongly is a bug; a peer that does is skipped with what it said.
    // A gateway just started on a busy machine may shed its first calls: asked again, a few times.
    for (const s of [...scenarios]) {
      let res: Response;
      let text: string;
      for (let attempt = 1; ; attempt++) {
        res = await fetch(s.spec.url, { method: 'POST', headers: s.spec.headers, body: s.spec.body });
        text = await res.text();
        if (s.check(res.status, text) || attempt === 5 || !text.includes('gateway.overloaded')) break;
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
      if (s.check(res.status, text)) continue;
      const why = `${s.label}: unexpected answer ${res.status} ${text.slice(0, 300)}`;
      if (!s.peer) throw new Error(why);
      notes.push(`skipped ${why}`);
      scenarios.splice(scenarios.indexOf(s), 1);
    }

    // ------------------------------------------------------------ rounds
    // Everything this run started, and Redis: the rest is other people's load.
    const ours = () => [process.pid, ...started, ...pidsNamed('redis-server')];
    const runLoad = loadRunner(load);
    const budget = { reruns: options.reruns };
    log(`peers: waiting (at most ${options.quietWaitSec} s) for the machine to be quiet`);
    await waitForQuiet(0.15, options.quietWaitSec * 1000, ours());
    for (const s of scenarios) {
      const rates = await warmUp(
        runLoad,
        { ...s.spec, key: s.key },
        { minSec: options.warmupSec, maxSec: options.warmupMaxSec },
      );
      log(`peers: warm-up ${s.label}: ${rates.map((r) => r.toFixed(0)).join(' → ')} req/s`);
    }
    const results = new Map<string, Round[]>(scenarios.map((s) => [s.key, []]));
    for (let round = 0; round < options.rounds; round++) {
      const order = scenarios.map((_, i) => scenarios[(i + round) % scenarios.length]!);
      for (const s of order) {
        const r = await measureRound({
          run: runLoad,
          spec: { ...s.spec, key: s.key },
          pid: s.pid,
          // The bench's idle servers count as other load: one still busy after its own round
          // (a collection, a timer) takes CPU from the server measured now; the measured server's own
          // child processes, if any, are its work.
          ours: () => [process.pid, ...processTree(s.pid), ...shared, ...pidsNamed('redis-server')],
          foreignLimit: FOREIGN_LIMIT_CORES,
          maxRetries: MAX_RETRIES,
          budget,
          onRerun: (f) => log(`  (other processes used ${fixed(f, 2)} cores: round run again)`),
        });
        results.get(s.key)!.push(r);
        if (r.non2xx > 0) {
          log(
            `  statuses outside 2xx: ${JSON.stringify(r.failedStatuses)}; a sample answer now: ${await sampleAnswer(s)}`,
          );
        }
        log(
          `peers round ${round + 1}/${options.rounds} ${s.label}: ${fixed(r.rps, 0)} req/s, ` +
            `${fixed(r.cpuUsPerRequest ?? Number.NaN, 0)} µs CPU/request, other load ${fixed(r.foreignCores ?? Number.NaN, 2)} cores` +
            (r.non2xx + r.errors + r.timeouts > 0
              ? `, ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`
              : ''),
        );
      }
    }
    const rows = new Map<string, Row>(
      scenarios.map((s) => [s.key, { scenario: s, rounds: results.get(s.key)! }]),
    );
    return report({
      rows,
      listSizes,
      notes,
      options,
      forecastBytes: backend.ready.forecastBytes,
      sizeRepeats: SIZE_REPEATS,
      wallSec: (performance.now() - wallStart) / 1000,
    });
  } finally {
    await Promise.allSettled(stops.reverse().map((stop) => stop()));
    await rm(tmp, { recursive: true, force: true });
  }
}

/** Round counts for a normal run and for `--quick` / BENCH_QUICK=1 (a smoke run in about a minute). */
export function peersOptions(
  quick: boolean,
  given: { rounds: number; durationSec: number; warmupSec: number; connections: number },
  log: (line: string) => void,
): PeersOptions {
  return quick
    ? {
        rounds: 2,
        durationSec: 1,
        warmupSec: 1,
        warmupMaxSec: 1,
        connections: given.connections,
        reruns: 2,
        quietWaitSec: 5,
        log,
      }
    : { ...given, warmupMaxSec: Math.max(given.warmupSec, WARMUP_MAX_SEC), reruns: 6, quietWaitSec: 30, log };
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      rounds: { type: 'string', default: '7' },
      duration: { type: 'string', default: '2' },
      warmup: { type: 'string', default: '4' },
      connections: { type: 'string', default: '8' },
      quick: { type: 'boolean', default: process.env.BENCH_QUICK === '1' },
    },
  });
  const log = (line: string) => process.stderr.write(`${line}\n`);
  console.log(
    await runPeers(
      peersOptions(
        values.quick,
        {
          rounds: Number(values.rounds),
          durationSec: Number(values.duration),
          warmupSec: Number(values.warmup),
          connections: Number(values.connections),
        },
        log,
      ),
    ),
  );
}
