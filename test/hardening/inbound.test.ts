/**
 * Inbound limits at the socket (RELIABILITY A2, A3, M5), proven with raw TCP
 * clients against a real gateway: oversized heads, request smuggling shapes,
 * slow heads (slowloris) and slow bodies. Each case also proves that nothing
 * reached the engine or the backend.
 */
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolIdFor } from '../../src/compile/tool-signature.ts';
import { readSettings, SettingsError } from '../../src/config/settings.ts';
import { type FaultBackend, startFaultBackend } from '../http/fault-backend.ts';
import { invoke, startTestGateway } from '../support/start-test-gateway.ts';
import { heapAfterGcMiB, type RawExchange, rawClient, rawExchange } from './raw-http.ts';
import { reportFigures } from '../support/report-figures.ts';

const HEADERS_TIMEOUT_MS = 1_000;
const REQUEST_TIMEOUT_MS = 2_000;
/** Node checks the timeouts every headersTimeout / 4 here; the rest is scheduling slack on a busy 2-core machine. */
const CLOSE_SLACK_MS = 2_500;

const INVOKE_PATH = `/tools/${toolIdFor('fault_mode')}:invoke`;
const INVOKE_BODY = JSON.stringify({
  name: 'fault_mode',
  input_parameters: [{ name: 'mode', value: 'JSON' }],
});

let fault: FaultBackend;
let gateway: Awaited<ReturnType<typeof startTestGateway>>;

beforeAll(async () => {
  fault = await startFaultBackend();
  gateway = await startTestGateway(
    'test/fixtures/sculpts-fault',
    { FAULT_URL: fault.origin },
    { headersTimeoutMs: HEADERS_TIMEOUT_MS, requestTimeoutMs: REQUEST_TIMEOUT_MS },
  );
});
afterAll(async () => {
  await gateway?.close();
  await fault?.close();
});

/** A complete invocation request head (and body) with extra header lines. */
function invocation(extraHeaders: string[], body = INVOKE_BODY): string {
  return (
    `POST ${INVOKE_PATH} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n${extraHeaders.map((h) => `${h}\r\n`).join('')}\r\n${body}`
  );
}

/** Runs `send` and proves that no invocation reached the engine and no request the backend. */
async function nothingReachedTheBackend(send: () => Promise<RawExchange>): Promise<RawExchange> {
  const reports = gateway.reports.length;
  fault.reset();
  const exchange = await send();
  // A well-formed control request after it is served, so a late invocation would show.
  const control = await invoke(gateway.url, INVOKE_PATH, INVOKE_BODY);
  expect(control.status).toBe(200);
  expect(gateway.reports.length - reports).toBe(1);
  expect(fault.requests.map((r) => r.url)).toEqual(['/json']);
  return exchange;
}

describe('request heads', () => {
  it('a well-formed raw invocation is served (the baseline the other cases differ from)', async () => {
    const exchange = await rawExchange(gateway.url, invocation(['Connection: close']));
    expect(exchange.status).toBe(200);
    expect(exchange.text).toContain('"output_parameters"');
  });

  it('20 KiB of headers → 431, and no invocation', async () => {
    const headers = Array.from({ length: 20 }, (_, i) => `X-Filler-${i}: ${'a'.repeat(1010)}`);
    const exchange = await nothingReachedTheBackend(() => rawExchange(gateway.url, invocation(headers)));
    expect(exchange.status).toBe(431);
    expect(exchange.endedByServer).toBe(true);
  });

  it('150 small headers (over the cap of 100) → 431, and no invocation', async () => {
    const headers = Array.from({ length: 150 }, (_, i) => `X-H${i}: 1`);
    const exchange = await nothingReachedTheBackend(() => rawExchange(gateway.url, invocation(headers)));
    expect(exchange.status).toBe(431);
  });

  it.each([
    ['Content-Length and Transfer-Encoding together', ['Transfer-Encoding: chunked']],
    ['two different Content-Lengths', ['Content-Length: 5']],
    ['an obs-folded header', ['X-Folded: a', ' b']],
  ])('%s → 400, and no invocation', async (_name, headers) => {
    const exchange = await nothingReachedTheBackend(() => rawExchange(gateway.url, invocation(headers)));
    expect(exchange.status).toBe(400);
    expect(exchange.endedByServer).toBe(true);
  });

  it('a chunked invocation over 64 KiB → 413, and no invocation', async () => {
    const chunk = 'x'.repeat(4096);
    const head =
      `POST ${INVOKE_PATH} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n` +
      'Transfer-Encoding: chunked\r\n\r\n';
    const body = Array.from({ length: 256 }, () => `1000\r\n${chunk}\r\n`).join('') + '0\r\n\r\n';
    const exchange = await nothingReachedTheBackend(() => rawExchange(gateway.url, head + body));
    expect(exchange.status).toBe(413);
  });
});

describe('slow clients', () => {
  it(`50 slowloris sockets are all cut at headersTimeout (${HEADERS_TIMEOUT_MS} ms) with 408; memory stays flat; others are served meanwhile`, async () => {
    const heapBefore = heapAfterGcMiB();
    const reports = gateway.reports.length;
    fault.reset();
    const head = invocation([]).split('\r\n\r\n')[0]!;
    const timers: NodeJS.Timeout[] = [];
    const sockets: Socket[] = [];
    // One byte every 100 ms: the head would take ~17 s; bounded at the head's length.
    const clients = Array.from({ length: 50 }, () =>
      rawClient(gateway.url, (socket) => {
        let sent = 0;
        const timer = setInterval(() => {
          if (sent >= head.length || socket.destroyed) return clearInterval(timer);
          socket.write(head[sent++]!);
        }, 100);
        timers.push(timer);
      }),
    );
    for (const c of clients) sockets.push(c.socket);
    try {
      // While all 50 trickle, a normal invocation and the probes are answered promptly.
      await new Promise((r) => setTimeout(r, 300));
      const started = performance.now();
      const [served, live, ready] = await Promise.all([
        invoke(gateway.url, INVOKE_PATH, INVOKE_BODY),
        fetch(`${gateway.url}/livez`),
        fetch(`${gateway.url}/readyz`),
      ]);
      const servedMs = performance.now() - started;
      expect([served.status, live.status, ready.status]).toEqual([200, 200, 200]);
      expect(servedMs).toBeLessThan(1_000);

      const exchanges = await Promise.all(clients.map((c) => c.closed));
      const closedAfter = exchanges.map((e) => e.closedAfterMs);
      expect(exchanges.every((e) => e.endedByServer)).toBe(true);
      expect(exchanges.map((e) => e.status)).toEqual(Array(50).fill(408));
      expect(Math.min(...closedAfter)).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
      expect(Math.max(...closedAfter)).toBeLessThan(HEADERS_TIMEOUT_MS + CLOSE_SLACK_MS);
      // Only the normal invocation reached the engine and the backend.
      expect(gateway.reports.length - reports).toBe(1);
      expect(fault.requests).toHaveLength(1);
      const heapGrowth = heapAfterGcMiB() - heapBefore;
      expect(heapGrowth).toBeLessThan(16);
      reportFigures(
        `slowloris: 50 sockets closed after ${Math.round(Math.min(...closedAfter))}–${Math.round(Math.max(...closedAfter))} ms; ` +
          `invocation meanwhile ${Math.round(servedMs)} ms; heap ${heapGrowth.toFixed(1)} MiB after GC`,
      );
    } finally {
      for (const timer of timers) clearInterval(timer);
      for (const socket of sockets) socket.destroy();
    }
  });

  it(`a body that stalls after 10 of 1000 bytes is cut at requestTimeout (${REQUEST_TIMEOUT_MS} ms) with 408, and no invocation`, async () => {
    const head =
      `POST ${INVOKE_PATH} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n` +
      'Content-Length: 1000\r\n\r\n{"name":"f';
    const exchange = await nothingReachedTheBackend(() => rawExchange(gateway.url, head, 10_000));
    expect(exchange.status).toBe(408);
    expect(exchange.endedByServer).toBe(true);
    expect(exchange.closedAfterMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
    expect(exchange.closedAfterMs).toBeLessThan(REQUEST_TIMEOUT_MS + CLOSE_SLACK_MS);
  });
});

describe('inbound timeout settings', () => {
  it('default to 10 s for the head and 30 s for the whole request', () => {
    expect(readSettings({})).toMatchObject({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000 });
    expect(
      readSettings({ SCULPTOR_HEADERS_TIMEOUT_MS: '1500', SCULPTOR_REQUEST_TIMEOUT_MS: '4000' }),
    ).toMatchObject({ headersTimeoutMs: 1_500, requestTimeoutMs: 4_000 });
  });

  it.each([
    [{ SCULPTOR_HEADERS_TIMEOUT_MS: '0' }, /SCULPTOR_HEADERS_TIMEOUT_MS must be a whole number/],
    [{ SCULPTOR_REQUEST_TIMEOUT_MS: 'soon' }, /SCULPTOR_REQUEST_TIMEOUT_MS must be a whole number/],
    [
      { SCULPTOR_HEADERS_TIMEOUT_MS: '20000', SCULPTOR_REQUEST_TIMEOUT_MS: '10000' },
      /SCULPTOR_HEADERS_TIMEOUT_MS \(20000\) must not exceed SCULPTOR_REQUEST_TIMEOUT_MS/,
    ],
  ])('refuse %o', (env, message) => {
    expect(() => readSettings(env)).toThrow(SettingsError);
    expect(() => readSettings(env)).toThrow(message);
  });
});
