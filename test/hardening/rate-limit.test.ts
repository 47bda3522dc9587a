/**
 * Per-caller rate limit (RELIABILITY A7): a token bucket per caller — the hash
 * of its Authorization header, else its address — over invocations; over the
 * limit → 429 request.rate_limited with Retry-After, and nothing sent to the
 * backend. Off by default (SCULPTOR_RATE_LIMIT_PER_S=0).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolIdFor } from '../../src/compile/tool-signature.ts';
import { readSettings, SettingsError } from '../../src/config/settings.ts';
import { callerKey, createRateLimiter } from '../../src/server/rate-limiter.ts';
import { type FaultBackend, startFaultBackend } from '../http/fault-backend.ts';
import { invoke, startTestGateway } from '../support/start-test-gateway.ts';

const SCULPTS = 'test/hardening/fixtures/sculpts';
const PATH = `/tools/${toolIdFor('fetch_json')}:invoke`;
const BODY = JSON.stringify({ name: 'fetch_json', input_parameters: [] });

describe('the token bucket', () => {
  it('allows a burst, then the rate; refills with time up to the burst; keys callers apart', () => {
    let t = 0;
    const limiter = createRateLimiter({ ratePerS: 2, burst: 3, now: () => t });
    const takes = (caller: string, n: number) => Array.from({ length: n }, () => limiter.take(caller).ok);
    expect(takes('a', 4)).toEqual([true, true, true, false]);
    expect(limiter.take('a')).toEqual({ ok: false, retryAfterS: 1 });
    expect(takes('b', 3)).toEqual([true, true, true]);
    t = 500; // one token back at 2/s
    expect(takes('a', 2)).toEqual([true, false]);
    t = 60_000; // long idle: back to the burst, not more
    expect(takes('a', 4)).toEqual([true, true, true, false]);
  });

  it('says how long until a token at a slow rate, and keeps at most maxCallers buckets', () => {
    let t = 0;
    const slow = createRateLimiter({ ratePerS: 0.1, burst: 1, now: () => t });
    expect(slow.take('a').ok).toBe(true);
    expect(slow.take('a')).toEqual({ ok: false, retryAfterS: 10 });
    t = 5_000;
    expect(slow.take('a')).toEqual({ ok: false, retryAfterS: 5 });

    const few = createRateLimiter({ ratePerS: 1, burst: 1, maxCallers: 100, now: () => t });
    for (let i = 0; i < 1_000; i++) few.take(`caller-${i}`);
    expect(few.size()).toBe(100);
  });

  it('keys a caller by a hash of its Authorization header (never the token), else by address', () => {
    const key = callerKey('Bearer SECRET-TOKEN-123', '10.0.0.1');
    expect(key).toMatch(/^auth:[A-Za-z0-9_-]{22}$/);
    expect(key).not.toContain('SECRET');
    expect(callerKey('Bearer SECRET-TOKEN-123', '10.0.0.2')).toBe(key);
    expect(callerKey('Bearer OTHER', '10.0.0.1')).not.toBe(key);
    expect(callerKey(undefined, '10.0.0.1')).toBe('addr:10.0.0.1');
  });
});

describe('SCULPTOR_RATE_LIMIT_PER_S on a real gateway', () => {
  let fault: FaultBackend;
  let limited: Awaited<ReturnType<typeof startTestGateway>>;
  let open: Awaited<ReturnType<typeof startTestGateway>>;
  beforeAll(async () => {
    fault = await startFaultBackend();
    const env = { FAULT_URL: fault.origin, HOSTILE_URL: fault.origin, KEYED_TOKEN: 'unused-token' };
    limited = await startTestGateway(SCULPTS, env, { rateLimitPerS: 1, rateLimitBurst: 4 });
    open = await startTestGateway(SCULPTS, env);
  });
  afterAll(async () => {
    await Promise.all([limited?.close(), open?.close()]);
    await fault?.close();
  });

  const burst = (url: string, n: number, headers: Record<string, string> = {}) =>
    Promise.all(Array.from({ length: n }, () => invoke(url, PATH, BODY, headers)));

  it('a caller past its burst gets 429 request.rate_limited + Retry-After and reaches no backend; other callers are unaffected; it recovers', async () => {
    fault.reset();
    const started = performance.now();
    const alice = await burst(limited.url, 7, { authorization: 'Bearer alice' });
    // The burst of 4, and at most one more token for each whole second the 7 took on a busy machine.
    const refills = Math.floor((performance.now() - started) / 1_000);
    const served = alice.filter((r) => r.status === 200).length;
    expect(served).toBeGreaterThanOrEqual(4);
    expect(served).toBeLessThanOrEqual(Math.min(4 + refills, 6));
    expect(alice.filter((r) => r.status === 429)).toHaveLength(7 - served);
    const refused = alice.find((r) => r.status === 429)!;
    expect(refused.body).toMatchObject({ code: 'request.rate_limited', retryable: true });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(fault.requests).toHaveLength(served);

    // Another token, and no token at all (keyed by address): their own buckets.
    const bob = await burst(limited.url, 4, { authorization: 'Bearer bob' });
    expect(bob.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const anonymous = await burst(limited.url, 5);
    expect(anonymous.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 429]);

    // Listings are not limited.
    expect((await fetch(`${limited.url}/tools`, { headers: { authorization: 'Bearer alice' } })).status).toBe(
      200,
    );

    // After Retry-After (1 s at 1/s), alice is served again.
    await new Promise((r) => setTimeout(r, Number(refused.headers.get('retry-after')) * 1_000 + 50));
    expect((await invoke(limited.url, PATH, BODY, { authorization: 'Bearer alice' })).status).toBe(200);
  });

  it('is off by default: 30 invocations in quick succession from one caller are all served', async () => {
    expect(readSettings({})).toMatchObject({ rateLimitPerS: 0, rateLimitBurst: 20 });
    // One after another: 30 at once would meet the per-caller concurrency cap (16), another limit.
    const all = [];
    for (let i = 0; i < 30; i++)
      all.push(await invoke(open.url, PATH, BODY, { authorization: 'Bearer alice' }));
    expect(all.every((r) => r.status === 200)).toBe(true);
  });

  it('the settings are validated', () => {
    expect(readSettings({ SCULPTOR_RATE_LIMIT_PER_S: '10', SCULPTOR_RATE_LIMIT_BURST: '40' })).toMatchObject({
      rateLimitPerS: 10,
      rateLimitBurst: 40,
    });
    expect(() => readSettings({ SCULPTOR_RATE_LIMIT_PER_S: '-1' })).toThrow(SettingsError);
    expect(() => readSettings({ SCULPTOR_RATE_LIMIT_BURST: '0' })).toThrow(SettingsError);
  });
});
