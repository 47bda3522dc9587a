/**
 * Issue #13 F1–F4 over real HTTP: sculpt expressions that froze or crashed the gateway in an
 * adversarial run now answer within their deadline with a clear error, /livez keeps answering
 * in < 100 ms, and memory comes back — in process, and with SCULPTOR_JSONATA_ISOLATION=worker
 * in a gateway process of its own (the switch is read at start). Also what the fixes for those
 * turned up: `&` doubling a string until `$length` exhausted the heap, one RE2 search taking
 * seconds on a long text, an in-process evaluation overrunning the invocation's deadline.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolIdFor } from '../../src/compile/tool-signature.ts';
import { type GatewayProcess, startGatewayProcess } from '../server/gateway-process.ts';
import { invoke, startTestGateway } from '../support/start-test-gateway.ts';
import { expectLivezFast, probeLivez } from './probe-livez.ts';
import { reportFigures } from '../support/report-figures.ts';

const SCULPTS = 'test/hardening/fixtures/expressions';

/** A backend answering 10,000 numbers, the most an answer's array may hold; `/slow-items` after 900 ms. */
const SLOW_MS = 900;
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

const call = (url: string, tool: string, inputs: Record<string, unknown> = {}) =>
  invoke(url, `/tools/${toolIdFor(tool)}:invoke`, {
    name: tool,
    input_parameters: Object.entries(inputs).map(([name, value]) => ({ name, value })),
  });

describe('in process (the default)', () => {
  let gateway: Awaited<ReturnType<typeof startTestGateway>>;
  beforeAll(async () => {
    gateway = await startTestGateway(SCULPTS, { ITEMS_URL: itemsUrl }, { shedLagMs: 0 });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('F1: /^(\\w+\\s?){1,50}$/ on 30 "a" and "!" answers at once (RE2), /livez < 100 ms', async () => {
    const started = performance.now();
    const { result, times } = await probeLivez(
      gateway.url,
      call(gateway.url, 'regex_words', { s: `${'a'.repeat(30)}!` }),
    );
    expect(result.status).toBe(200);
    expect(result.body).toEqual({ output_parameters: [{ name: 'v', value: false }] });
    expect(performance.now() - started).toBeLessThan(1000);
    expectLivezFast(times, 1);
  });

  it('F2: $sort of 100,000 $split items is refused before it runs, naming the limit', async () => {
    const started = performance.now();
    const { result, times } = await probeLivez(gateway.url, call(gateway.url, 'split_sort'));
    expect(result.status).toBe(502);
    expect(result.body.code).toBe('projection.failed');
    expect(result.body.detail).toMatch(/\$split would handle more than 10000 items/);
    expect(performance.now() - started).toBeLessThan(1000);
    expectLivezFast(times, 1);
  });

  it('F3: $pad to 100,000,000 characters is refused at once; memory does not grow', async () => {
    const rss = process.memoryUsage().rss;
    const started = performance.now();
    const result = await call(gateway.url, 'pad_huge');
    expect(result.status).toBe(502);
    expect(result.body.detail).toMatch(/\$pad would make a string of more than \d+ characters/);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(process.memoryUsage().rss - rss).toBeLessThan(64 * 1024 * 1024);
  });

  it('a legitimate $sort of a 10,000-item backend array answers', async () => {
    const result = await call(gateway.url, 'sort_items');
    expect(result.status).toBe(200);
    expect(result.body).toEqual({ output_parameters: [{ name: 'v', value: 0 }] });
  });

  it('`&` doubling a string 28 times is refused at 5 Mi characters; the heap is not exhausted', async () => {
    const rss = process.memoryUsage().rss;
    const { result, times } = await probeLivez(gateway.url, call(gateway.url, 'concat_doubling'));
    expect(result.status).toBe(502);
    expect(result.body.code).toBe('projection.failed');
    expect(result.body.detail).toMatch(/& would make a string of more than \d+ characters/);
    expectLivezFast(times, 1);
    expect(process.memoryUsage().rss - rss).toBeLessThan(64 * 1024 * 1024);
  });

  it('one RE2 search past its step limit is refused before it runs, naming the limit', async () => {
    const started = performance.now();
    const result = await call(gateway.url, 'regex_long');
    expect(result.status).toBe(502);
    expect(result.body.detail).toMatch(/regular expression would take more than \d+ steps/);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('an evaluation in process ends at the invocation deadline: 504, not 250 ms after it', async () => {
    const started = performance.now();
    const { result, times } = await probeLivez(gateway.url, call(gateway.url, 'late_loop'));
    const elapsed = performance.now() - started;
    // The engine's own measure: without the HTTP round trip a loaded machine adds to `elapsed`.
    const report = gateway.reports.findLast((r) => r.tool === 'late_loop');
    reportFigures(
      `[expressions] late_loop: 1000 ms deadline, ended after ${report?.durationMs.toFixed(0)} ms in the engine, answered after ${elapsed.toFixed(0)} ms`,
    );
    expect(result.status).toBe(504);
    expect(result.body.code).toBe('upstream.timeout');
    // jsonata's 250 ms alone would have run the loop from 900 ms to 1,150 ms.
    expect(report?.durationMs).toBeGreaterThanOrEqual(1000 - 20);
    expect(report?.durationMs).toBeLessThan(1000 + 100);
    expect(elapsed).toBeLessThan(1000 + 500);
    expectLivezFast(times, 1);
  });
});

describe('SCULPTOR_JSONATA_ISOLATION=worker (F4)', () => {
  let gateway: GatewayProcess;
  beforeAll(async () => {
    gateway = await startGatewayProcess({
      sculpts: SCULPTS,
      register: false,
      env: {
        ITEMS_URL: itemsUrl,
        SCULPTOR_JSONATA_ISOLATION: 'worker',
        SCULPTOR_JSONATA_WORKER_TIMEOUT_MS: '5000',
        SCULPTOR_SHED_LAG_MS: '0',
      },
    });
    // The workers load once, before anything is measured (a loaded machine may take its time).
    await call(gateway.url, 'regex_words', { s: 'warm up' });
  });
  afterAll(() => gateway?.kill());

  it('$pad to 200,000,000 characters is refused; the process lives on', async () => {
    const { result, times } = await probeLivez(gateway.url, call(gateway.url, 'pad_bigger'));
    expect(result.status).toBe(502);
    expect(result.body.code).toBe('projection.failed');
    expectLivezFast(times, 1);
    expect(gateway.child.exitCode).toBeNull();
    expect((await call(gateway.url, 'regex_words', { s: 'hello world' })).status).toBe(200);
  });

  it('a legitimate $sort of a 10,000-item backend array answers as it does in process', async () => {
    const result = await call(gateway.url, 'sort_items');
    expect(result.body.detail).toBeUndefined();
    expect(result.status).toBe(200);
    expect(result.body).toEqual({ output_parameters: [{ name: 'v', value: 0 }] });
  });
});
