/**
 * Only the start-up and catalog parts of `npm run bench`, for work on them:
 * the full bench takes minutes and its other scenarios fight for the cores.
 * With `--trees`, the same measurements for several source trees (e.g. a
 * copy of the tree before a change and the tree after), interleaved run by
 * run and round by round, so the machine's other load hits each alike.
 *
 *   node bench/startup.ts [--runs 3] [--github-sculpts 1000]
 *   node bench/startup.ts --descriptions   (only the large descriptions' load: GitHub, Stripe, Stripe-like)
 *   node bench/startup.ts --catalog [--catalog-tools 10000] [--rounds 5] [--duration 5]
 *   node bench/startup.ts --trees /tmp/before,. --catalog
 *   node bench/startup.ts --trees .+,.   (node flags per tree after `+`, instead of production's;
 *                                          `.+` alone: node's defaults, `.`: production's flags)
 *
 * Each tree must hold `bench/sculptor.ts` and `src/` (and see node_modules).
 * Start-up runs in a fresh process per run (`node --expose-gc`); the catalog
 * gateways all run at once, one per tree, and each round walks every page at
 * 8 connections, then at 1, reporting CPU per request of each gateway.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { type Child, startChild } from './child.ts';
import { foreignCores, snapshot, usedMs } from './cpu.ts';
import { descriptionTableRows, measureDescriptions } from './descriptions.ts';
import { writeCatalogSculpts, writeGithubSculpts } from './generate.ts';
import type { LoadResult, LoadSpec } from './load.ts';
import { loadRunner } from './rounds.ts';
import type { GatewayReady } from './sculptor.ts';
import { median } from './stats.ts';

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    'github-sculpts': { type: 'string', default: '1000' },
    'catalog-tools': { type: 'string', default: '10000' },
    /** Also load the catalog (GET /tools?pageLimit=100, every page in turn). */
    catalog: { type: 'boolean', default: false },
    /** Skip the start-up runs (catalog only). */
    'no-startup': { type: 'boolean', default: false },
    /** Only the large descriptions' load time and memory (GitHub, Stripe, generated Stripe-like). */
    descriptions: { type: 'boolean', default: false },
    rounds: { type: 'string', default: '5' },
    duration: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '4' },
    connections: { type: 'string', default: '8' },
    /** Comma-separated source trees to compare, each optionally `+flag+flag` (node flags); default: this one. */
    trees: { type: 'string' },
    /** Extra node flags for the gateways, comma-separated (e.g. --cpu-prof,--cpu-prof-dir=/tmp/p). */
    'node-flags': { type: 'string' },
  },
});
const MB = 1024 * 1024;
const HERE = path.resolve(new URL('..', import.meta.url).pathname);
const trees = (args.trees ?? '.').split(',').map((spec) => {
  const [dir, ...flags] = spec.split('+');
  return `${path.resolve(dir === '.' || dir === '' ? HERE : dir!)}${flags.map((f) => `+${f}`).join('')}`;
});
/** A tree's directory and its own node flags: with a `+`, they replace PRODUCTION_NODE_FLAGS. */
const treeOf = (tree: string) => {
  const [dir, ...flags] = tree.split('+');
  return { dir: dir!, flags: flags.filter(Boolean), productionFlags: !tree.includes('+') };
};
const extraFlags = args['node-flags']?.split(',') ?? [];
const log = (line: string) => process.stderr.write(`${line}\n`);
const fixed = (n: number, digits: number) => (Number.isFinite(n) ? n.toFixed(digits) : '—');
const scriptOf = (tree: string, name: string) =>
  pathToFileURL(path.join(treeOf(tree).dir, 'bench', name)).href;

async function main(): Promise<void> {
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'sculptor-startup-'));
  const children: Child[] = [];
  try {
    const secret = randomBytes(24).toString('hex');
    const descriptions = await measureDescriptions(tmp, Number(args.runs), log);
    console.log(
      `\nLarge descriptions, each in a fresh process, median of ${args.runs}: time, RSS after, peak RSS, heap used`,
    );
    for (const row of descriptionTableRows(descriptions)) console.log(row.join(' | '));
    if (!args['no-startup'] && !args.descriptions) {
      const githubDir = path.join(tmp, 'github');
      const github = await writeGithubSculpts(githubDir, Number(args['github-sculpts']));
      const runs = new Map<string, GatewayReady[]>(trees.map((t) => [t, []]));
      for (let i = 0; i < Number(args.runs); i++) {
        for (const tree of i % 2 === 0 ? trees : [...trees].reverse()) {
          const gw = await startChild<GatewayReady>(scriptOf(tree, 'sculptor.ts'), {
            args: [githubDir],
            env: { SCULPTOR_SECRET: secret },
            execArgv: ['--expose-gc', ...extraFlags, ...treeOf(tree).flags],
            productionFlags: treeOf(tree).productionFlags,
            readyTimeoutMs: 120_000,
          });
          await gw.stop();
          runs.get(tree)!.push(gw.ready);
          log(`start-up run ${i + 1} ${tree}: ${startupLine(gw.ready)}`);
        }
      }
      console.log(
        `\nStart-up: ${github.sculpts} sculpts over the GitHub REST description, median of ${args.runs}`,
      );
      for (const [tree, ready] of runs) {
        const m = (f: (r: GatewayReady) => number) => median(ready.map(f));
        console.log(
          `${tree}: ${fixed(m((r) => r.startMs) / 1000, 2)} s, RSS after start ${fixed(m((r) => r.rssBytes) / MB, 0)} MB, ` +
            `peak RSS ${fixed(m((r) => r.maxRssBytes) / MB, 0)} MB, heap used ${fixed(m((r) => r.heapUsedBytes) / MB, 0)} MB`,
        );
      }
    }
    if (args.catalog && !args.descriptions) await catalog(tmp, secret, children);
  } finally {
    await Promise.allSettled(children.map((c) => c.stop()));
    await rm(tmp, { recursive: true, force: true });
  }
}

function startupLine(r: GatewayReady): string {
  return (
    `${fixed(r.startMs / 1000, 2)} s, RSS ${fixed(r.rssBytes / MB, 0)} MB, ` +
    `peak ${fixed(r.maxRssBytes / MB, 0)} MB, heap ${fixed(r.heapUsedBytes / MB, 0)} MB`
  );
}

async function catalog(tmp: string, secret: string, children: Child[]): Promise<void> {
  const dir = path.join(tmp, 'catalog');
  await writeCatalogSculpts(dir, Number(args['catalog-tools']));
  const gateways: Array<{ tree: string; gw: Child<GatewayReady>; pages: string[] }> = [];
  for (const tree of trees) {
    const gw = await startChild<GatewayReady>(scriptOf(tree, 'sculptor.ts'), {
      args: [dir],
      env: { SCULPTOR_SECRET: secret, BENCH_BACKEND_URL: 'http://127.0.0.1:9' },
      execArgv: ['--expose-gc', ...extraFlags, ...treeOf(tree).flags],
      productionFlags: treeOf(tree).productionFlags,
      readyTimeoutMs: 300_000,
    });
    children.push(gw);
    log(`catalog gateway ${tree}: ${startupLine(gw.ready)}`);
    gateways.push({ tree, gw, pages: await catalogPages(gw.ready.url) });
  }
  const load = await startChild(scriptOf(HERE, 'load.ts'));
  children.push(load);
  const runLoad = loadRunner(load);
  const ours = [process.pid, load.process.pid!, ...gateways.map((g) => g.gw.process.pid!)];
  const connections = Number(args.connections);
  const kinds = [connections, 1];
  for (const g of gateways) {
    for (const c of kinds) {
      await runLoad(spec(g, c, Number(args.warmup)));
    }
  }
  const results = new Map<string, Array<LoadResult & { cpuUs: number; foreign: number }>>();
  for (let round = 0; round < Number(args.rounds); round++) {
    const order = round % 2 === 0 ? gateways : [...gateways].reverse();
    for (const c of kinds) {
      for (const g of order) {
        const before = snapshot(ours);
        const r = await runLoad(spec(g, c, Number(args.duration)));
        const after = snapshot(ours);
        const cpu = usedMs(before, after, g.gw.process.pid!) ?? Number.NaN;
        const foreign = foreignCores(before, after, ours) ?? Number.NaN;
        const key = `${g.tree} c${c}`;
        const row = { ...r, cpuUs: (1000 * cpu) / r.requests, foreign };
        results.set(key, [...(results.get(key) ?? []), row]);
        log(
          `round ${round + 1} ${key}: ${fixed(r.rps, 0)} req/s, p50 ${fixed(r.p50Ms, 2)} ms, p99 ${fixed(r.p99Ms, 2)} ms, ` +
            `${fixed(row.cpuUs, 0)} µs CPU/req, other load ${fixed(foreign, 2)} cores` +
            (r.non2xx + r.errors > 0 ? `, ${r.non2xx} non-2xx, ${r.errors} errors` : ''),
        );
      }
    }
  }
  console.log(
    `\nCatalog: GET /tools?pageLimit=100 over ${gateways[0]?.gw.ready.tools} tools, medians of ${args.rounds} rounds`,
  );
  for (const [key, rows] of results) {
    const m = (f: (r: (typeof rows)[number]) => number) => median(rows.map(f));
    console.log(
      `${key}: ${fixed(
        m((r) => r.rps),
        0,
      )} req/s, p50 ${fixed(
        m((r) => r.p50Ms),
        2,
      )} ms, p99 ${fixed(
        m((r) => r.p99Ms),
        2,
      )} ms ` +
        `(by round ${rows.map((r) => fixed(r.p99Ms, 1)).join(' / ')}), CPU ${fixed(
          m((r) => r.cpuUs),
          0,
        )} µs/req, ` +
        `other load ≤ ${fixed(Math.max(...rows.map((r) => r.foreign)), 2)} cores, failed ${rows.reduce((n, r) => n + r.non2xx + r.errors, 0)}`,
    );
  }
}

function spec(
  g: { tree: string; gw: Child<GatewayReady>; pages: string[] },
  connections: number,
  durationSec: number,
): LoadSpec {
  return { key: `${g.tree} c${connections}`, url: g.gw.ready.url, paths: g.pages, connections, durationSec };
}

/** Every page of the full listing, by following `next` cursors (paths below the gateway URL). */
async function catalogPages(url: string): Promise<string[]> {
  const pages: string[] = [];
  let next: string | null = '/tools?pageLimit=100';
  while (next !== null) {
    pages.push(next);
    const body = (await (await fetch(`${url}${next}`)).json()) as { paging: { next: string | null } };
    next =
      body.paging.next === null
        ? null
        : `/tools?pageLimit=100&pageCursor=${encodeURIComponent(body.paging.next)}`;
  }
  return pages;
}

await main();
