/**
 * Who is blamed for what, over real HTTP (the gateway
 * and the fault backend on loopback): a caller hanging up is not the backend's timeout; a bad
 * value a backend answered is not the caller's invalid input; a backend's Retry-After reaches
 * the caller; one operation's failures pause that operation, not its whole origin.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolIdFor } from '../../src/compile/tool-signature.ts';
import { type FaultBackend, startFaultBackend } from '../http/fault-backend.ts';
import { invoke, startTestGateway } from '../support/start-test-gateway.ts';
import { hangUpMidCall } from '../support/hang-up.ts';

const SCULPTS = 'test/hardening/fixtures/sculpts';
let fault: FaultBackend;
let faulty: FaultBackend;
let gateway: Awaited<ReturnType<typeof startTestGateway>>;

beforeAll(async () => {
  [fault, faulty] = await Promise.all([startFaultBackend(), startFaultBackend()]);
  gateway = await startTestGateway(SCULPTS, {
    FAULT_URL: fault.origin,
    HOSTILE_URL: fault.origin,
    FAULTY_URL: faulty.origin,
    KEYED_TOKEN: 'unused-token',
  });
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([fault?.close(), faulty?.close()]);
});

const body = (name: string, params: Record<string, unknown>) => ({
  name,
  input_parameters: Object.entries(params).map(([n, value]) => ({ name: n, value })),
});
const call = (name: string, params: Record<string, unknown>) =>
  invoke(gateway.url, `/tools/${toolIdFor(name)}:invoke`, body(name, params));

describe('a caller hanging up', () => {
  it('is reported and counted as request.cancelled, not upstream.timeout; the backend call is abandoned', async () => {
    const { report, backendHeldMs } = await hangUpMidCall(
      gateway,
      fault,
      `POST /tools/${toolIdFor('delayed_json')}:invoke HTTP/1.1\r\nHost: localhost\r\n` +
        'Content-Type: application/json\r\n',
      JSON.stringify(body('delayed_json', { ms: 1000 })),
    );
    expect(report.outcome).toBe('request.cancelled');
    // The gateway let go of the backend call rather than waiting out its second.
    expect(backendHeldMs).toBeLessThan(1000);
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(metrics).toMatch(/sculptor_invocations_total\{[^}]*outcome="request\.cancelled"[^}]*\} 1/);
    expect(metrics).not.toMatch(
      /sculptor_invocations_total\{[^}]*tool="delayed_json"[^}]*outcome="upstream\.timeout"/,
    );
  });
});

describe('a bad path value', () => {
  it('built from a backend answer is an upstream error (502), not the caller’s input.invalid', async () => {
    const res = await call('chained_next', { id: 'abc' });
    expect([res.status, res.body.code]).toEqual([502, 'upstream.invalid_response']);
    expect(String(res.body.detail)).toMatch(/step 'second'.*mode/i);
  });

  it('the caller sent is still input.invalid (400), even in a step that reads another', async () => {
    const res = await call('chained_next', { id: 'abc', mode: 'a/b' });
    expect([res.status, res.body.code]).toEqual([400, 'input.invalid']);
    expect(res.body.problems).toEqual([{ parameter: 'mode', reason: expect.any(String) }]);
  });
});

describe('a bad path value, judged by where the params expression takes it from', () => {
  it("made from the caller's input alone is input.invalid, even transformed and after another step", async () => {
    const res = await call('chained_derived', { id: 'abc', words: 'A/B' });
    expect([res.status, res.body.code]).toEqual([400, 'input.invalid']);
    expect(res.body.problems).toEqual([{ parameter: 'mode', reason: expect.any(String) }]);
  });

  it('made from a backend answer alone is upstream.invalid_response, even when the caller happened to send the same value', async () => {
    // The fault backend answers {"next": "abc/next"}; the caller also sent "abc/next", unused.
    const res = await call('chained_derived', { id: 'abc', tag: 'abc/next' });
    expect([res.status, res.body.code]).toEqual([502, 'upstream.invalid_response']);
  });
});

describe("a backend's Retry-After", () => {
  it.each([
    [429, 'upstream.rate_limited'],
    [503, 'upstream.unavailable'],
  ])('on a %i reaches the caller with %s', async (code, errorCode) => {
    const res = await call('faulty_status', { code });
    expect([res.status, res.body.code]).toEqual([503, errorCode]);
    // The fault backend answers Retry-After: 2.
    expect(res.headers.get('retry-after')).toBe('2');
  });
});

describe('a failing operation', () => {
  it('opens its own breaker: another operation on the same origin is still called', async () => {
    // tripping and faulty are two backends on one origin here: GET /{mode} and GET /status.
    const shared = await startTestGateway(SCULPTS, {
      FAULT_URL: fault.origin,
      HOSTILE_URL: fault.origin,
      FAULTY_URL: faulty.origin,
      TRIPPING_URL: faulty.origin,
      KEYED_TOKEN: 'unused-token',
    });
    try {
      const tripping = (mode: string) =>
        invoke(shared.url, `/tools/${toolIdFor('tripping_mode')}:invoke`, body('tripping_mode', { mode }));
      for (let i = 0; i < 5; i++) expect((await tripping('ERROR_500')).body.code).toBe('upstream.error');
      const sent = faulty.requests.length;
      const paused = await tripping('ERROR_500');
      expect([paused.status, paused.body.code]).toEqual([503, 'upstream.unavailable']);
      expect(faulty.requests.length).toBe(sent); // the open breaker answered, not the backend

      const other = await invoke(
        shared.url,
        `/tools/${toolIdFor('faulty_status')}:invoke`,
        body('faulty_status', { code: 200 }),
      );
      expect(other.status).toBe(200);
      expect(faulty.requests.slice(sent).map((r) => r.url)).toEqual(['/status?code=200']);
    } finally {
      await shared.close();
    }
  });
});
