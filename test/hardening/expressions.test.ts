/**
 * Over real HTTP: sculpt expressions that freeze or crash an unbounded JSONata evaluator
 * answer within their deadline with a clear error, /livez answers every
 * probe in < 100 ms while they run, and resident memory comes back near where it started — with
 * the default isolation (evaluator processes), and with SCULPTOR_JSONATA_ISOLATION=off (in the
 * gateway's own thread) in a gateway process of its own (the switch is read at start), each case
 * in both. Also what bounding those turned up: `&`
 * doubling a string until `$length` exhausted the heap, one RE2 search taking seconds on a long
 * text, `$encodeUrlComponent` of a long text holding hundreds of MiB, an in-process evaluation
 * overrunning the invocation's deadline. With SCULPTOR_TEST_VERBOSE=1 it prints the figures
 * docs/SECURITY.md quotes.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayProcess, startGatewayProcess } from '../server/gateway-process.ts';
import { invokeTool, startTestGateway } from '../support/start-test-gateway.ts';
import { reportFigures } from '../support/report-figures.ts';
import { expectLivezFast, probeLivez, rssOf, SCHEDULER_RETRIES } from './probe-livez.ts';

const SCULPTS = 'test/hardening/fixtures/expressions';
/** "Back near its start": what a refused evaluation may leave resident, garbage not yet collected included. */
const RSS_SLACK_MIB = 64;

/** The figures docs/SECURITY.md quotes, printed only when asked for. */
const report = (line: string): void => reportFigures(`[expressions] ${line}`);
/**
 * This process's RSS after a full collection: what the evaluations kept, not garbage V8 has
 * yet to collect (an unbounded `$pad` to 100,000,000 characters kept 1.9 GB after the run). `gc` is exposed at run time.
 */
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;
const retainedRss = (): number => {
  collect();
  return process.memoryUsage().rss;
};
const mib = (bytes: number) => `${bytes >= 0 ? '+' : ''}${(bytes / 2 ** 20).toFixed(0)} MiB`;

/**
 * A backend answering 10,000 numbers, the most an answer's array may hold; `/slow-items` after
 * 950 ms, so late_loop's loop holds the event loop 50 ms before its 1 s deadline.
 */
const SLOW_MS = 950;
let items: http.Server;
let itemsUrl: string;
beforeAll(async () => {
  const body = JSON.stringify({ items: Array.from({ length: 10_000 }, (_, i) => (i * 7919) % 10_007) });
  items = http.createServer((req, res) => {
    req.resume();
    const answer = () => res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    if (req.url === '/slow-items') {
      const timer = setTimeout(answer, SLOW_MS);
      res.on('close', () => clearTimeout(timer));
    } else answer();
  });
  await new Promise<void>((resolve) => items.listen(0, '127.0.0.1', resolve));
  itemsUrl = `http://127.0.0.1:${(items.address() as AddressInfo).port}`;
});
afterAll(async () => {
  items.closeAllConnections();
  await new Promise((resolve) => items.close(resolve));
});

interface Finding {
  id: string;
  what: string;
  tool: string;
  inputs?: Record<string, unknown>;
  /** The answer: 200 with this output, or 502 projection.failed with a detail naming the limit. */
  output?: unknown;
  detail?: RegExp;
}

const STRING_LIMIT = (fn: string) => new RegExp(`\\${fn} would make a string of more than \\d+ characters`);
const FINDINGS: Finding[] = [
  {
    id: 'regex',
    what: '/^(\\w+\\s?){1,50}$/ on 30 "a" and "!" answers false at once (RE2)',
    tool: 'regex_words',
    inputs: { s: `${'a'.repeat(30)}!` },
    output: { output_parameters: [{ name: 'v', value: false }] },
  },
  {
    id: 'split-sort',
    what: '$sort of 100,000 $split items is refused before it runs, naming the limit',
    tool: 'split_sort',
    detail: /\$split would handle more than 10000 items/,
  },
  {
    id: 'pad',
    what: '$pad to 100,000,000 characters is refused at once',
    tool: 'pad_huge',
    detail: STRING_LIMIT('$pad'),
  },
  {
    id: 'pad-bigger',
    what: '$pad to 200,000,000 characters is refused',
    tool: 'pad_bigger',
    detail: STRING_LIMIT('$pad'),
  },
  {
    id: '&',
    what: '`&` doubling a string 28 times is refused at 5 Mi characters',
    tool: 'concat_doubling',
    detail: /& would make a string of more than \d+ characters/,
  },
  {
    id: 'RE2',
    what: 'one RE2 search of 50,000 characters past its step limit is refused before it runs',
    tool: 'regex_long',
    detail: /regular expression would take more than \d+ steps/,
  },
  {
    id: 'encode',
    what: '$encodeUrlComponent of 1,000,000 "€" is refused naming the limit',
    tool: 'encode_url',
    detail: STRING_LIMIT('$encodeUrlComponent'),
  },
];

/** A gateway under test: its URL, and its resident memory (this process, or the child's). */
interface Target {
  url: string;
  rss(): number;
  /** Still running (a child that aborted has an exit code). */
  alive(): boolean;
}

/**
 * Each finding, repeated while /livez is probed: every answer as expected and within 1 s,
 * every probe in < 100 ms, the process alive and its RSS back near its start.
 */
function findings(mode: string, target: () => Target): void {
  it.each(FINDINGS)(
    '$id: $what; /livez < 100 ms throughout, RSS back near its start',
    SCHEDULER_RETRIES,
    async (finding) => {
      const { url, rss, alive } = target();
      const rssBefore = rss();
      const { results, times } = await probeLivez(url, async () => {
        const started = performance.now();
        const answer = await invokeTool(url, finding.tool, finding.inputs);
        return { ...answer, ms: performance.now() - started };
      });
      for (const answer of results) {
        if (finding.output !== undefined) {
          expect(answer.status).toBe(200);
          expect(answer.body).toEqual(finding.output);
        } else {
          expect(answer.status).toBe(502);
          expect(answer.body.code).toBe('projection.failed');
          expect(answer.body.detail, JSON.stringify(answer.body)).toMatch(finding.detail!);
        }
        expect(answer.ms).toBeLessThan(1000);
      }
      expectLivezFast(times);
      const grew = rss() - rssBefore;
      const ms = results.map((r) => r.ms).sort((a, b) => a - b);
      report(
        `${mode} ${finding.id} (${finding.tool}): ${results[0]!.status} in ${ms[0]!.toFixed(0)}–${ms.at(-1)!.toFixed(0)} ms over ${results.length} runs; /livez ${times.length} probes, slowest ${times[0]!.toFixed(0)} ms; RSS ${mib(grew)}`,
      );
      expect(alive()).toBe(true);
      expect(grew).toBeLessThan(RSS_SLACK_MIB * 2 ** 20);
    },
  );
}

describe('the default: evaluator processes', () => {
  let gateway: Awaited<ReturnType<typeof startTestGateway>>;
  beforeAll(async () => {
    gateway = await startTestGateway(SCULPTS, { ITEMS_URL: itemsUrl }, { shedLagMs: 0 });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  findings('in evaluator processes', () => ({
    url: gateway.url,
    rss: retainedRss,
    alive: () => true,
  }));

  it('a legitimate $sort of a 10,000-item backend array answers', async () => {
    const result = await invokeTool(gateway.url, 'sort_items');
    expect(result.status).toBe(200);
    expect(result.body).toEqual({ output_parameters: [{ name: 'v', value: 0 }] });
  });

  it(
    'an evaluation in process ends at the invocation deadline: 504, not 250 ms after it',
    SCHEDULER_RETRIES,
    async () => {
      const started = performance.now();
      const { results, times } = await probeLivez(gateway.url, () => invokeTool(gateway.url, 'late_loop'));
      const elapsed = performance.now() - started;
      // The engine's own measure: without the HTTP round trip a loaded machine adds to `elapsed`.
      const engineMs = gateway.reports.findLast((r) => r.tool === 'late_loop')?.durationMs;
      report(
        `late_loop: 1000 ms deadline, ended after ${engineMs?.toFixed(0)} ms in the engine, answered after ${elapsed.toFixed(0)} ms; /livez ${times.length} probes, slowest ${times[0]?.toFixed(0)} ms`,
      );
      expect(results).toHaveLength(1); // one run takes the whole deadline, ample for the probes
      expect(results[0]!.status).toBe(504);
      expect(results[0]!.body.code).toBe('upstream.timeout');
      // jsonata's 250 ms alone would have run the loop from 950 ms to 1,200 ms.
      expect(engineMs).toBeGreaterThanOrEqual(1000 - 20);
      expect(engineMs).toBeLessThan(1000 + 100);
      expect(elapsed).toBeLessThan(1000 + 500);
      expectLivezFast(times);
    },
  );
});

describe('SCULPTOR_JSONATA_ISOLATION=off', () => {
  let gateway: GatewayProcess;
  beforeAll(async () => {
    gateway = await startGatewayProcess({
      sculpts: SCULPTS,
      register: false,
      env: {
        ITEMS_URL: itemsUrl,
        SCULPTOR_JSONATA_ISOLATION: 'off',
        // Each finding is invoked again and again: suspension would answer the sixth.
        SCULPTOR_TOOL_SUSPEND_BREACHES: '0',
        SCULPTOR_SHED_LAG_MS: '0',
      },
    });
    // The expressions' first evaluation, before anything is measured (a loaded machine may take its time).
    await invokeTool(gateway.url, 'regex_words', { s: 'warm up' });
  });
  afterAll(() => gateway?.kill());

  findings('in the gateway’s thread', () => ({
    url: gateway.url,
    rss: () => rssOf(gateway.child.pid!),
    alive: () => gateway.child.exitCode === null && gateway.child.signalCode === null,
  }));

  it('keeps serving after them all', async () => {
    expect((await invokeTool(gateway.url, 'regex_words', { s: 'hello world' })).status).toBe(200);
  });

  it('a legitimate $sort of a 10,000-item backend array answers as it does in process', async () => {
    const result = await invokeTool(gateway.url, 'sort_items');
    expect(result.body.detail).toBeUndefined();
    expect(result.status).toBe(200);
    expect(result.body).toEqual({ output_parameters: [{ name: 'v', value: 0 }] });
  });
});
