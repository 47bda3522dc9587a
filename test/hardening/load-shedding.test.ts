/**
 * Event-loop protection (RELIABILITY C10): while the loop lags by more than
 * SCULPTOR_SHED_LAG_MS, new invocations get 503 gateway.overloaded with
 * Retry-After and /readyz says not ready; /livez, listings and, once the
 * lag is over, invocations are served again. The lag is made by blocking
 * this very process (gateway and test share it) for a bounded time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolIdFor } from '../../src/compile/tool-signature.ts';
import { readSettings, SettingsError } from '../../src/config/settings.ts';
import { createLoadShedder } from '../../src/server/load-shedder.ts';
import { type FaultBackend, startFaultBackend } from '../http/fault-backend.ts';
import { invoke, startTestGateway } from '../support/start-test-gateway.ts';
import { headerFields, type RawExchange, sendRaw } from './raw-http.ts';
import { reportFigures } from '../support/report-figures.ts';

const SCULPTS = 'test/hardening/fixtures/sculpts';
const SHED_LAG_MS = 250;
const BLOCK_MS = 800;
const INVOKE_PATH = `/tools/${toolIdFor('fetch_json')}:invoke`;
const INVOKE_BODY = JSON.stringify({ name: 'fetch_json', input_parameters: [] });

/** Blocks the event loop (bounded busy wait). */
function blockFor(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // busy: nothing else in this process runs
  }
}

function rawInvoke(url: string) {
  return sendRaw(
    url,
    `POST ${INVOKE_PATH} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(INVOKE_BODY)}\r\nConnection: close\r\n\r\n${INVOKE_BODY}`,
  );
}

function rawGet(url: string, path: string) {
  return sendRaw(url, `GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
}

function bodyOf(exchange: RawExchange): Record<string, unknown> {
  return JSON.parse(exchange.text.split('\r\n\r\n')[1] ?? 'null') as Record<string, unknown>;
}

/** Polls /readyz every 100 ms until 200; returns how long that took (or `ms` if it never did). */
async function readyWithin(ms: number): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < ms) {
    if ((await fetch(`${shedding.url}/readyz`)).status === 200) return performance.now() - started;
    await new Promise((r) => setTimeout(r, 100));
  }
  return ms;
}

let fault: FaultBackend;
let shedding: Awaited<ReturnType<typeof startTestGateway>>;
let unprotected: Awaited<ReturnType<typeof startTestGateway>>;

beforeAll(async () => {
  fault = await startFaultBackend();
  const env = { FAULT_URL: fault.origin, HOSTILE_URL: fault.origin, KEYED_TOKEN: 'unused-token' };
  // Compiling blocks the loop too: the shedding gateway starts last.
  unprotected = await startTestGateway(SCULPTS, env, { shedLagMs: 0 });
  shedding = await startTestGateway(SCULPTS, env, { shedLagMs: SHED_LAG_MS });
});
afterAll(async () => {
  await Promise.all([shedding?.close(), unprotected?.close()]);
  await fault?.close();
});

describe('shedding while the event loop lags', () => {
  it(`a ${BLOCK_MS} ms block (threshold ${SHED_LAG_MS} ms): invocations 503 gateway.overloaded + Retry-After, /readyz 503, /livez and listings 200; then served again`, async () => {
    // Calm first (start-up work may have lagged the loop): ready, then served.
    expect(await readyWithin(3_000)).toBeLessThan(3_000);
    expect((await invoke(shedding.url, INVOKE_PATH, INVOKE_BODY)).status).toBe(200);
    const reports = shedding.reports.length;
    fault.reset();

    // Requests already sent when the loop stalls: the gateway reads them after it.
    const sent = {
      invocations: [rawInvoke(shedding.url), rawInvoke(shedding.url), rawInvoke(shedding.url)],
      ready: rawGet(shedding.url, '/readyz'),
      live: rawGet(shedding.url, '/livez'),
      tools: rawGet(shedding.url, '/tools'),
      control: rawInvoke(unprotected.url),
    };
    const all = [...sent.invocations, sent.ready, sent.live, sent.tools, sent.control];
    await Promise.all(all.map((s) => s.written));
    blockFor(BLOCK_MS);
    const blockEnded = performance.now();

    const invocations = await Promise.all(sent.invocations.map((s) => s.response));
    for (const answer of invocations) {
      expect(answer.status).toBe(503);
      expect(bodyOf(answer)).toMatchObject({ code: 'gateway.overloaded', retryable: true });
      expect(Object.fromEntries(headerFields(answer))['retry-after']).toBe('1');
    }
    const ready = await sent.ready.response;
    expect([ready.status, bodyOf(ready)]).toEqual([503, { status: 'overloaded' }]);
    expect((await sent.live.response).status).toBe(200);
    expect((await sent.tools.response).status).toBe(200);
    // The same block, on a gateway with shedding off: served.
    expect((await sent.control.response).status).toBe(200);
    // Shed invocations never reached the engine or the backend.
    expect(shedding.reports.length).toBe(reports);
    expect(fault.requests).toHaveLength(1);

    // Once the loop is calm again (after the 1 s hold), ready and served; bounded wait.
    await readyWithin(5_000);
    const recoveredAfter = performance.now() - blockEnded;
    expect(recoveredAfter).toBeGreaterThan(500);
    expect(recoveredAfter).toBeLessThan(4_000);
    expect((await invoke(shedding.url, INVOKE_PATH, INVOKE_BODY)).status).toBe(200);
    reportFigures(`load shedding: ready again ${Math.round(recoveredAfter)} ms after a ${BLOCK_MS} ms block`);
  });
});

describe('the load shedder', () => {
  it('is off at threshold 0, and reports lag without shedding below the threshold', async () => {
    const off = createLoadShedder({ thresholdMs: 0 });
    blockFor(150);
    expect(off.overloaded()).toBe(false);
    off.close();

    const starts: number[] = [];
    const on = createLoadShedder({ thresholdMs: 400, sampleMs: 50, onShedding: (lag) => starts.push(lag) });
    try {
      await new Promise((r) => setTimeout(r, 120));
      blockFor(100);
      expect(on.overloaded()).toBe(false);
      blockFor(600);
      // Judged on the spot, before the sampler could run: the sampler being late is the lag.
      expect(on.lagMs()).toBeGreaterThan(400);
      expect(on.overloaded()).toBe(true);
      expect(starts).toHaveLength(1);
      expect(starts[0]).toBeGreaterThan(400);
    } finally {
      on.close();
    }
  });

  it('SCULPTOR_SHED_LAG_MS defaults to 500 and is validated', () => {
    expect(readSettings({}).shedLagMs).toBe(500);
    expect(readSettings({ SCULPTOR_SHED_LAG_MS: '0' }).shedLagMs).toBe(0);
    expect(() => readSettings({ SCULPTOR_SHED_LAG_MS: '-1' })).toThrow(SettingsError);
    expect(() => readSettings({ SCULPTOR_SHED_LAG_MS: 'high' })).toThrow(SettingsError);
  });
});
