import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SculptorError } from '../../src/errors/sculptor-error.ts';
import { type BackendClient, createBackendClient } from '../../src/http/backend-client.ts';
import { type ResilienceOptions, withResilience } from '../../src/http/resilient-sender.ts';

/**
 * A backend that answers each path from a script of statuses (the last one
 * repeats), optionally after a delay, and counts what it received.
 */
let server: http.Server;
let origin: string;
const scripts = new Map<string, { statuses: number[]; delayMs?: number; retryAfter?: string }>();
const received: Array<{ method: string; path: string }> = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    received.push({ method: req.method ?? '', path });
    req.resume();
    const script = scripts.get(path) ?? { statuses: [200] };
    const status = script.statuses.length > 1 ? script.statuses.shift()! : script.statuses[0]!;
    const answer = () => {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (script.retryAfter) headers['retry-after'] = script.retryAfter;
      res.writeHead(status, headers).end(JSON.stringify({ status }));
    };
    if (script.delayMs) setTimeout(answer, script.delayMs);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

let client: BackendClient;
beforeAll(() => {
  client = createBackendClient();
});
afterAll(() => client.close());

const fast: ResilienceOptions = { backoffBaseMs: 5, backoffCapMs: 20 };
let pathCounter = 0;
/** A fresh path (and so fresh counters) per test; unnamed calls share their origin's breaker, so each test gets its own sender. */
function script(statuses: number[], extra: { delayMs?: number; retryAfter?: string } = {}): string {
  const path = `/p${pathCounter++}`;
  scripts.set(path, { statuses, ...extra });
  return path;
}
const hits = (path: string) => received.filter((r) => r.path === path).length;
const send = (sender: ReturnType<typeof withResilience>, path: string, method = 'GET', timeoutMs = 5_000) =>
  sender.send(
    { method, url: `${origin}${path}`, headers: {} },
    { signal: AbortSignal.timeout(timeoutMs), allowPrivate: true },
  );
const codeOf = async (p: Promise<unknown>) => {
  try {
    await p;
    return 'ok';
  } catch (err) {
    return (err as SculptorError).code;
  }
};

describe('retries (RELIABILITY C1–C4)', () => {
  it('retries an idempotent call on 503 and succeeds on the third attempt', async () => {
    const path = script([503, 503, 200]);
    const res = await send(withResilience(client, fast), path);
    expect(res.status).toBe(200);
    expect(hits(path)).toBe(3);
  });

  it('stops after three attempts and returns the last answer', async () => {
    const path = script([502]);
    const res = await send(withResilience(client, fast), path);
    expect(res.status).toBe(502);
    expect(hits(path)).toBe(3);
  });

  it('never retries a POST (not idempotent) or a 4xx/500', async () => {
    const sender = withResilience(client, fast);
    const post = script([503, 200]);
    expect((await send(sender, post, 'POST')).status).toBe(503);
    expect(hits(post)).toBe(1);
    for (const status of [400, 404, 500]) {
      const path = script([status, 200]);
      expect((await send(sender, path)).status).toBe(status);
      expect(hits(path)).toBe(1);
    }
  });

  it('retries a POST the sculpt declares idempotent', async () => {
    const path = script([503, 200]);
    const sender = withResilience(client, fast);
    const res = await sender.send({ method: 'POST', url: `${origin}${path}`, headers: {}, body: '{}' }, {
      signal: AbortSignal.timeout(5_000),
      allowPrivate: true,
      idempotent: true,
    } as never);
    expect(res.status).toBe(200);
    expect(hits(path)).toBe(2);
  });

  it('retries connection failures', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    let calls = 0;
    const counting = {
      send: (...args: Parameters<BackendClient['send']>) => {
        calls++;
        return client.send(...args);
      },
    };
    const code = await codeOf(
      withResilience(counting, fast).send(
        { method: 'GET', url: `http://127.0.0.1:${port}/x`, headers: {} },
        { signal: AbortSignal.timeout(5_000), allowPrivate: true },
      ),
    );
    expect(code).toBe('upstream.unavailable');
    expect(calls).toBe(3);
  });

  it('keeps every retry inside the deadline', async () => {
    const path = script([503], { delayMs: 120 });
    const started = performance.now();
    const code = await codeOf(
      send(withResilience(client, { backoffBaseMs: 200, backoffCapMs: 200 }), path, 'GET', 300),
    );
    expect(code).toBe('upstream.timeout');
    // Without the deadline, three attempts and two backoffs would take ~760 ms.
    expect(performance.now() - started).toBeLessThan(650);
  });

  it('does not wait for a Retry-After beyond the deadline', async () => {
    const path = script([429, 200], { retryAfter: '30' });
    const sender = withResilience(client, fast);
    const started = performance.now();
    const res = await sender.send({ method: 'GET', url: `${origin}${path}`, headers: {} }, {
      signal: AbortSignal.timeout(2_000),
      allowPrivate: true,
      deadlineAt: Date.now() + 2_000,
    } as never);
    expect(res.status).toBe(429);
    expect(hits(path)).toBe(1);
    expect(performance.now() - started).toBeLessThan(500);
  });
});

describe('circuit breaker (RELIABILITY C7)', () => {
  it('opens after 5 consecutive failures: the 6th call is not sent; one probe after the interval closes it', async () => {
    const path = script([500, 500, 500, 500, 500, 200]);
    const sender = withResilience(client, { ...fast, breakerOpenMs: 200, random: () => 0.5 });
    for (let i = 0; i < 5; i++) expect((await send(sender, path)).status).toBe(500);
    expect(await codeOf(send(sender, path))).toBe('upstream.unavailable');
    expect(hits(path)).toBe(5);
    await new Promise((r) => setTimeout(r, 250));
    expect((await send(sender, path)).status).toBe(200); // the probe
    expect((await send(sender, path)).status).toBe(200); // closed again
    expect(hits(path)).toBe(7);
  });

  it('a failed probe reopens it for twice as long', async () => {
    const path = script([500]);
    const sender = withResilience(client, { ...fast, breakerOpenMs: 100, random: () => 0.5 });
    for (let i = 0; i < 5; i++) await send(sender, path);
    await new Promise((r) => setTimeout(r, 130));
    expect((await send(sender, path)).status).toBe(500); // probe fails
    await new Promise((r) => setTimeout(r, 130));
    expect(await codeOf(send(sender, path))).toBe('upstream.unavailable'); // still open (200 ms now)
    expect(hits(path)).toBe(6);
  });
});

describe('breakers per operation, bulkhead per origin', () => {
  const sendAs = (sender: ReturnType<typeof withResilience>, path: string, operation: string) =>
    sender.send({ method: 'GET', url: `${origin}${path}`, headers: {} }, {
      signal: AbortSignal.timeout(5_000),
      allowPrivate: true,
      operation,
    } as never);

  it('a failing operation opens its own breaker; another operation of the same origin still goes out', async () => {
    const failing = script([500]);
    const healthy = script([200]);
    const sender = withResilience(client, { ...fast, breakerOpenMs: 10_000 });
    for (let i = 0; i < 5; i++) expect((await sendAs(sender, failing, `GET ${failing}`)).status).toBe(500);
    expect(await codeOf(sendAs(sender, failing, `GET ${failing}`))).toBe('upstream.unavailable');
    expect(hits(failing)).toBe(5);
    expect((await sendAs(sender, healthy, `GET ${healthy}`)).status).toBe(200);
    expect(hits(healthy)).toBe(1);
    // Unnamed calls keep one breaker for the origin: the same five failures pause them all.
    const unnamed = withResilience(client, { ...fast, breakerOpenMs: 10_000 });
    for (let i = 0; i < 5; i++) await send(unnamed, failing);
    expect(await codeOf(send(unnamed, healthy))).toBe('upstream.unavailable');
    expect(hits(healthy)).toBe(1);
  });

  it('the concurrency cap is still shared by every operation of the origin', async () => {
    const slow = script([200], { delayMs: 300 });
    const other = script([200]);
    const sender = withResilience(client, { ...fast, maxConcurrentPerOrigin: 2 });
    const held = [sendAs(sender, slow, `GET ${slow}`), sendAs(sender, slow, `GET ${slow}`)];
    expect(await codeOf(sendAs(sender, other, `GET ${other}`))).toBe('upstream.unavailable');
    expect(hits(other)).toBe(0);
    await Promise.all(held);
    expect((await sendAs(sender, other, `GET ${other}`)).status).toBe(200);
  });
});

describe('concurrency cap (RELIABILITY C8)', () => {
  it('refuses calls beyond the cap at once, without queueing', async () => {
    const path = script([200], { delayMs: 300 });
    const sender = withResilience(client, { ...fast, maxConcurrentPerOrigin: 3 });
    const started = performance.now();
    const results = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const t0 = performance.now();
        const code = await codeOf(send(sender, path));
        return { code, ms: performance.now() - t0 };
      }),
    );
    expect(results.filter((r) => r.code === 'ok')).toHaveLength(3);
    const refused = results.filter((r) => r.code === 'upstream.unavailable');
    expect(refused).toHaveLength(7);
    // Refused at once: well before the 300 ms a queued call would wait.
    for (const r of refused) expect(r.ms).toBeLessThan(150);
    expect(hits(path)).toBe(3);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

describe('retry policy for any sequence of outcomes (RELIABILITY P10)', () => {
  it('attempts ≤ 3, non-idempotent calls are sent once, and every call ends', async () => {
    const outcome = fc.oneof(
      fc.constantFrom(200, 404, 429, 500, 502, 503, 504).map((status) => ({ status })),
      fc.constant({ error: 'upstream.unavailable' as const }),
      fc.constant({ error: 'upstream.timeout' as const }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(outcome, { minLength: 1, maxLength: 6 }),
        fc.constantFrom('GET', 'POST'),
        async (outcomes, method) => {
          let calls = 0;
          const scripted = {
            async send(): Promise<never> {
              const next = outcomes[Math.min(calls, outcomes.length - 1)]!;
              calls++;
              if ('error' in next) throw new SculptorError(next.error, 'scripted');
              return {
                status: next.status,
                headers: {},
                contentType: 'application/json',
                body: {},
                bytes: 2,
              } as never;
            },
          };
          const started = performance.now();
          const sender = withResilience(scripted, {
            backoffBaseMs: 1,
            backoffCapMs: 4,
            breakerFailures: 100,
          });
          await codeOf(
            sender.send(
              { method, url: 'http://backend.test/x', headers: {} },
              { signal: AbortSignal.timeout(5_000) },
            ),
          );
          expect(calls).toBeGreaterThanOrEqual(1);
          expect(calls).toBeLessThanOrEqual(method === 'POST' ? 1 : 3);
          // Backoffs are capped at 4 ms: a loop that forgot its bound would blow far past this.
          expect(performance.now() - started).toBeLessThan(1_000);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('callers hanging up (not the backend failing)', () => {
  it('never opens the breaker, while deadlines passing do', async () => {
    const path = script([200], { delayMs: 200 });
    const sender = withResilience(client, { ...fast, breakerFailures: 2 });
    for (let i = 0; i < 4; i++) {
      const caller = new AbortController();
      setTimeout(() => caller.abort(), 20);
      const p = sender.send(
        { method: 'GET', url: `${origin}${path}`, headers: {} },
        { signal: caller.signal, allowPrivate: true },
      );
      expect(await codeOf(p)).not.toBe('ok');
    }
    expect((await send(sender, path)).status).toBe(200); // still closed
    for (let i = 0; i < 2; i++) expect(await codeOf(send(sender, path, 'GET', 20))).toBe('upstream.timeout');
    expect(await codeOf(send(sender, path))).toBe('upstream.unavailable'); // deadlines count
  });
});
