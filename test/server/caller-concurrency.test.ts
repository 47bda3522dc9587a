/**
 * Per-caller concurrency cap: one caller holding many slow invocations used to take
 * every slot of the per-origin bulkhead, and every other caller got 503. A caller past
 * SCULPTOR_MAX_INFLIGHT_PER_CALLER gets 429 request.too_many_in_flight at once, nothing
 * sent to the backend, and the other callers are answered. The default (64) lets one busy agent
 * runtime run 32 calls at once; a cap below the bulkhead (16 here) keeps one caller from filling
 * it. Over real HTTP, against the fault backend answering after 1 s.
 */
import { Agent, fetch as fetchVia } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolIdFor } from '../../src/compile/tool-signature.ts';
import { readSettings, SettingsError } from '../../src/config/settings.ts';
import { concurrencyKey, createCallerConcurrency } from '../../src/server/caller-concurrency.ts';
import { type FaultBackend, startFaultBackend } from '../http/fault-backend.ts';
import { invoke, startTestGateway } from '../support/start-test-gateway.ts';

const SCULPTS = 'test/hardening/fixtures/sculpts';
const SLOW = `/tools/${toolIdFor('delayed_json')}:invoke`;
const SLOW_BODY = JSON.stringify({ name: 'delayed_json', input_parameters: [{ name: 'ms', value: 1000 }] });
const FAST = `/tools/${toolIdFor('fetch_json')}:invoke`;
const FAST_BODY = JSON.stringify({ name: 'fetch_json', input_parameters: [] });
const DEFAULT_CAP = 64;
/** A cap below the per-origin bulkhead, as a gateway shared by several agent hosts sets it. */
const SHARED_CAP = 16;
/** One busy agent runtime: as many calls at once as the bulkhead takes. */
const BUSY_AGENT = 32;
/** More than the per-origin bulkhead (32): without the cap, these alone fill it. */
const FLOOD = 40;

describe('the counter', () => {
  it('caps each caller on its own, frees a slot once per release, and forgets idle callers', () => {
    const slots = createCallerConcurrency({ maxPerCaller: 2 });
    const a1 = slots.acquire('a');
    const a2 = slots.acquire('a');
    expect(a1 && a2).toBeTruthy();
    expect(slots.acquire('a')).toBeUndefined();
    expect(slots.acquire('b')).toBeTypeOf('function');
    a1!();
    a1!(); // twice: must not free a2's slot too
    expect(slots.inFlight('a')).toBe(1);
    expect(slots.acquire('a')).toBeTypeOf('function');
    expect(slots.acquire('a')).toBeUndefined();
    expect(slots.size()).toBe(2);
  });

  it('keys by token only when a callers file checks tokens; else by address', () => {
    const withCallers = concurrencyKey('Bearer tok', '10.0.0.1', true);
    expect(withCallers).toMatch(/^auth:/);
    expect(concurrencyKey('Bearer tok', '10.0.0.2', true)).toBe(withCallers);
    // Anonymous: an invented Authorization value must not buy a fresh cap.
    expect(concurrencyKey('Bearer made-up-1', '10.0.0.1', false)).toBe('addr:10.0.0.1');
    expect(concurrencyKey('Bearer made-up-2', '10.0.0.1', false)).toBe('addr:10.0.0.1');
  });

  it('the setting: 64 by default, 0 turns it off, validated', () => {
    expect(readSettings({}).maxInflightPerCaller).toBe(DEFAULT_CAP);
    expect(readSettings({ SCULPTOR_MAX_INFLIGHT_PER_CALLER: '0' }).maxInflightPerCaller).toBe(0);
    expect(() => readSettings({ SCULPTOR_MAX_INFLIGHT_PER_CALLER: '-1' })).toThrow(SettingsError);
    expect(() => readSettings({ SCULPTOR_MAX_INFLIGHT_PER_CALLER: 'many' })).toThrow(SettingsError);
  });
});

describe('over HTTP, one slow caller and another', () => {
  let fault: FaultBackend;
  beforeAll(async () => {
    fault = await startFaultBackend();
  });
  afterAll(() => fault?.close());
  const env = () => ({
    FAULT_URL: fault.origin,
    HOSTILE_URL: fault.origin,
    KEYED_TOKEN: 'unused-token',
    SLOW_TOKEN: 'slow-caller-token-0123456789',
    OTHER_TOKEN: 'other-caller-token-0123456789',
  });

  /** Waits (bounded) until the backend has `n` slow requests in hand. */
  async function backendHolds(n: number): Promise<void> {
    const until = performance.now() + 5_000;
    while (fault.requests.filter((r) => r.url.startsWith('/delay')).length < n) {
      if (performance.now() > until) throw new Error(`the backend never held ${n} slow requests`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  it('with the default cap, one anonymous caller running 32 calls at once gets every one answered', async () => {
    const gateway = await startTestGateway(SCULPTS, env(), {
      maxInflightPerCaller: readSettings({}).maxInflightPerCaller,
    });
    try {
      fault.reset();
      const calls = Array.from({ length: BUSY_AGENT }, () => invoke(gateway.url, SLOW, SLOW_BODY));
      await backendHolds(BUSY_AGENT);
      const statuses = (await Promise.all(calls)).map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(BUSY_AGENT);
    } finally {
      await gateway.close();
    }
  });

  it('with a cap of 16, the slow caller gets 429 past 16 in flight, told what to raise, and the other caller 200', async () => {
    const gateway = await startTestGateway(SCULPTS, env(), {
      callers: 'test/server/fixtures/two-callers.yaml',
      maxInflightPerCaller: SHARED_CAP,
    });
    try {
      fault.reset();
      const slow = { authorization: 'Bearer slow-caller-token-0123456789' };
      const flood = Array.from({ length: FLOOD }, () => invoke(gateway.url, SLOW, SLOW_BODY, slow));
      await backendHolds(SHARED_CAP);

      const other = await invoke(gateway.url, FAST, FAST_BODY, {
        authorization: 'Bearer other-caller-token-0123456789',
      });
      expect(other.status).toBe(200);
      expect(other.body).toEqual({ output_parameters: [{ name: 'name', value: 'sculptor' }] });

      const refused = await invoke(gateway.url, SLOW, SLOW_BODY, slow);
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ code: 'request.too_many_in_flight', retryable: true });
      expect(refused.body.detail).toMatch(
        /16 invocations in flight.*wait for one of them to answer, then retry.*raise SCULPTOR_MAX_INFLIGHT_PER_CALLER.*SCULPTOR_CALLERS/,
      );
      expect(refused.headers.get('retry-after')).toBe('1');

      const statuses = (await Promise.all(flood)).map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(SHARED_CAP);
      expect(statuses.filter((s) => s === 429)).toHaveLength(FLOOD - SHARED_CAP);
      // The refused ones never reached the backend.
      expect(fault.requests.filter((r) => r.url.startsWith('/delay'))).toHaveLength(SHARED_CAP);
      // Slots come back: the slow caller is served again.
      expect((await invoke(gateway.url, FAST, FAST_BODY, slow)).status).toBe(200);
    } finally {
      await gateway.close();
    }
  });

  it('without the cap (0), the same flood fills the bulkhead and starves the other caller: the regression', async () => {
    const gateway = await startTestGateway(SCULPTS, env(), {
      callers: 'test/server/fixtures/two-callers.yaml',
      maxInflightPerCaller: 0,
    });
    try {
      fault.reset();
      const slow = { authorization: 'Bearer slow-caller-token-0123456789' };
      const flood = Array.from({ length: FLOOD }, () => invoke(gateway.url, SLOW, SLOW_BODY, slow));
      await backendHolds(32);
      const other = await invoke(gateway.url, FAST, FAST_BODY, {
        authorization: 'Bearer other-caller-token-0123456789',
      });
      expect(other.status).toBe(503);
      expect(other.body.code).toBe('upstream.unavailable');
      await Promise.all(flood);
    } finally {
      await gateway.close();
    }
  });

  it('anonymous callers are told apart by address, whatever Authorization they invent; a hang-up frees its slot', async () => {
    const gateway = await startTestGateway(SCULPTS, env(), { maxInflightPerCaller: 4 });
    // A second loopback address for the other caller (Linux answers all of 127.0.0.0/8).
    const elsewhere = new Agent({ localAddress: '127.0.0.2' });
    try {
      fault.reset();
      const hangUp = new AbortController();
      const flood = Array.from({ length: 6 }, (_, i) =>
        fetch(`${gateway.url}${SLOW}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer invented-${i}` },
          body: SLOW_BODY,
          signal: hangUp.signal,
        }).then(
          (res) => res.status,
          () => 'hung up',
        ),
      );
      await backendHolds(4);
      const other = await fetchVia(`${gateway.url}${FAST}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: FAST_BODY,
        dispatcher: elsewhere,
      });
      expect(other.status).toBe(200);
      await other.arrayBuffer();
      expect(
        (await invoke(gateway.url, FAST, FAST_BODY, { authorization: 'Bearer yet-another' })).status,
      ).toBe(429);

      hangUp.abort();
      expect((await Promise.all(flood)).sort()).toEqual([
        429,
        429,
        'hung up',
        'hung up',
        'hung up',
        'hung up',
      ]);
      // The four hung-up invocations give their slots back when the gateway sees the sockets close.
      const until = performance.now() + 2_000;
      let status = 429;
      while (status === 429 && performance.now() < until) {
        status = (await invoke(gateway.url, FAST, FAST_BODY)).status;
        if (status === 429) await new Promise((r) => setTimeout(r, 20));
      }
      expect(status).toBe(200);
    } finally {
      await elsewhere.close();
      await gateway.close();
    }
  });
});
