/**
 * A bounded soak (RELIABILITY §L "Load"): mixed good and bad traffic at a
 * fixed concurrency against a real gateway for SCULPTOR_SOAK_SECONDS
 * (default 20; run longer locally with e.g. SCULPTOR_SOAK_SECONDS=300).
 *
 * Good traffic (invocations, listings) goes to one backend origin; faults go
 * to another, so the per-origin breaker opened by the faults never touches
 * the good traffic. Asserted: every good request 200; every bad request its
 * exact 4xx; every backend fault a mapped 422/502/503/504 problem; no 500 and
 * no transport error anywhere; heap and RSS bounded after GC; and once the
 * load stops and everything is closed, no socket or timer left behind.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, request } from 'undici';
import { toolIdFor } from '../../src/compile/tool-signature.ts';
import { type FaultBackend, startFaultBackend } from '../http/fault-backend.ts';
import { startTestGateway } from '../support/start-test-gateway.ts';
import { collectGarbage } from './raw-http.ts';
import { reportFigures } from '../support/report-figures.ts';

const SECONDS = Math.min(600, Math.max(1, Number(process.env.SCULPTOR_SOAK_SECONDS) || 20));
const CONCURRENCY = 16;
const SCULPTS = 'test/hardening/fixtures/sculpts';

type Kind = 'good' | 'bad' | 'fault';
interface Shot {
  kind: Kind;
  label: string;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  contentType?: string;
  /** The exact status for good and bad traffic. */
  status?: number;
}

const invokePath = (tool: string) => `/tools/${toolIdFor(tool)}:invoke`;
const call = (tool: string, params: Record<string, unknown> = {}) =>
  JSON.stringify({
    name: tool,
    input_parameters: Object.entries(params).map(([name, value]) => ({ name, value })),
  });
const post = (kind: Kind, label: string, tool: string, body: string, status?: number): Shot => ({
  kind,
  label,
  method: 'POST',
  path: invokePath(tool),
  body,
  ...(status !== undefined ? { status } : {}),
});

/**
 * One round of the mix: 9 good, 8 bad, 11 faults. Faults that count against a
 * circuit breaker (5xx, resets, hangs) go to their own origin ("tripping"),
 * whose breaker then answers most of them with a fast 503; the others go to
 * "faulty", so that their error paths run every time.
 */
const MIX: Shot[] = [
  post('good', 'fetch_json', 'fetch_json', call('fetch_json'), 200),
  post('good', 'fetch_json', 'fetch_json', call('fetch_json'), 200),
  post('good', 'fetch_json', 'fetch_json', call('fetch_json'), 200),
  post('good', 'delayed_json', 'delayed_json', call('delayed_json', { ms: 20 }), 200),
  post('good', 'delayed_json', 'delayed_json', call('delayed_json', { ms: 5 }), 200),
  { kind: 'good', label: 'GET /tools', method: 'GET', path: '/tools?pageLimit=5', status: 200 },
  {
    kind: 'good',
    label: 'GET /tools/{id}',
    method: 'GET',
    path: `/tools/${toolIdFor('fetch_json')}`,
    status: 200,
  },
  { kind: 'good', label: 'GET /livez', method: 'GET', path: '/livez', status: 200 },
  { kind: 'good', label: 'GET /readyz', method: 'GET', path: '/readyz', status: 200 },
  post('bad', 'malformed JSON', 'fetch_json', '{"name":"fetch_json",', 400),
  post('bad', 'wrong type', 'delayed_json', call('delayed_json', { ms: 'soon' }), 400),
  post('bad', 'unknown input', 'fetch_json', call('fetch_json', { extra: 1 }), 400),
  post(
    'bad',
    'prototype key',
    'fetch_json',
    '{"name":"fetch_json","input_parameters":[],"__proto__":{"x":1}}',
    400,
  ),
  post('bad', 'body over 64 KiB', 'fetch_json', JSON.stringify({ name: 'x'.repeat(70_000) }), 413),
  { ...post('bad', 'text/plain', 'fetch_json', call('fetch_json'), 415), contentType: 'text/plain' },
  {
    kind: 'bad',
    label: 'unknown tool',
    method: 'POST',
    path: `/tools/${randomUUID()}:invoke`,
    body: call('x'),
    status: 404,
  },
  { kind: 'bad', label: 'GET on invoke', method: 'GET', path: invokePath('fetch_json'), status: 405 },
  post('fault', '404 → tool error', 'faulty_status', call('faulty_status', { code: 404 })),
  post('fault', '429', 'faulty_status', call('faulty_status', { code: 429 })),
  post('fault', 'HTML', 'faulty_mode', call('faulty_mode', { mode: 'HTML' })),
  post('fault', 'REDIRECT', 'faulty_mode', call('faulty_mode', { mode: 'REDIRECT' })),
  post('fault', 'TRUNCATED', 'faulty_mode', call('faulty_mode', { mode: 'TRUNCATED' })),
  post('fault', 'DEEP', 'faulty_mode', call('faulty_mode', { mode: 'DEEP' })),
  post('fault', 'GZIP_BOMB', 'faulty_mode', call('faulty_mode', { mode: 'GZIP_BOMB' })),
  post('fault', '500', 'tripping_mode', call('tripping_mode', { mode: 'ERROR_500' })),
  post('fault', '503', 'tripping_mode', call('tripping_mode', { mode: 'UNAVAILABLE_503' })),
  post('fault', 'RESET_MID', 'tripping_mode', call('tripping_mode', { mode: 'RESET_MID' })),
  post('fault', 'HANG', 'tripping_mode', call('tripping_mode', { mode: 'HANG' })),
];
const FAULT_STATUSES = new Set([422, 502, 503, 504]);
const FAULT_CODES = new Set([
  'tool.error',
  'upstream.error',
  'upstream.unavailable',
  'upstream.rate_limited',
  'upstream.timeout',
  'upstream.invalid_response',
  'upstream.redirect',
  'upstream.too_large',
]);

interface Outcome {
  shot: Shot;
  status: number;
  code: string | undefined;
  ms: number;
}

let good: FaultBackend;
let faulty: FaultBackend;
let tripping: FaultBackend;
let gateway: Awaited<ReturnType<typeof startTestGateway>>;
let handlesAtStart: number;

function activeHandles(): unknown[] {
  return (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles();
}

/** Sockets whose local port is `port`: the gateway's side of inbound connections, or its listener. */
function socketsOnPort(port: number): number {
  return activeHandles().filter(
    (h) => (h as { localPort?: number }).localPort === port && (h as { remotePort?: number }).remotePort,
  ).length;
}

beforeAll(async () => {
  collectGarbage();
  handlesAtStart = activeHandles().length;
  good = await startFaultBackend();
  faulty = await startFaultBackend();
  tripping = await startFaultBackend();
  gateway = await startTestGateway(SCULPTS, {
    FAULT_URL: good.origin,
    FAULTY_URL: faulty.origin,
    TRIPPING_URL: tripping.origin,
    HOSTILE_URL: good.origin,
    KEYED_TOKEN: 'unused-token',
  });
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([good?.close(), faulty?.close(), tripping?.close()]);
});

describe('soak', () => {
  it(
    `${SECONDS} s of mixed traffic at ${CONCURRENCY} concurrent requests: no 500, no error on good traffic, memory and handles bounded`,
    async () => {
      const agent = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 2_000 });
      const send = async (shot: Shot): Promise<Outcome> => {
        const started = performance.now();
        const res = await request(`${gateway.url}${shot.path}`, {
          method: shot.method,
          dispatcher: agent,
          headers: shot.body !== undefined ? { 'content-type': shot.contentType ?? 'application/json' } : {},
          ...(shot.body !== undefined ? { body: shot.body } : {}),
          headersTimeout: 10_000,
          bodyTimeout: 10_000,
        });
        const text = await res.body.text();
        let code: string | undefined;
        if (res.statusCode >= 400) code = (JSON.parse(text) as { code?: string }).code;
        return { shot, status: res.statusCode, code, ms: performance.now() - started };
      };

      // Warm up (JIT, pools), then measure from a collected heap.
      for (const shot of MIX) await send(shot);
      collectGarbage();
      const before = process.memoryUsage();

      // Aggregates only: the soak itself must not hold memory per request.
      const counts = new Map<string, number>();
      const bump = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
      const tally = (key: string) => counts.get(key) ?? 0;
      const unexpected: string[] = [];
      const failures: string[] = [];
      const goodLatency = new Uint32Array(10_001); // by whole ms; the last bucket is ≥ 10 s
      const record = ({ shot, status, code, ms }: Outcome): void => {
        bump(shot.kind);
        const ok =
          shot.kind === 'fault'
            ? FAULT_STATUSES.has(status) && FAULT_CODES.has(code ?? '')
            : status === shot.status;
        if (!ok && unexpected.length < 20) unexpected.push(`${shot.label} → ${status} ${code ?? ''}`);
        if (shot.kind === 'fault') bump(`${status} ${code}`);
        if (shot.kind === 'good') goodLatency[Math.min(10_000, Math.floor(ms))]!++;
        if (status === 500) bump('500');
      };

      // RSS and live heap after a full GC at each quarter: a leak shows as a slope.
      const checkpoints: Array<{ rss: number; heap: number }> = [];
      const checkpoint = (): void => {
        collectGarbage();
        const { rss, heapUsed } = process.memoryUsage();
        checkpoints.push({ rss: rss / 2 ** 20, heap: heapUsed / 2 ** 20 });
      };
      const quarter = setInterval(checkpoint, (SECONDS * 1_000) / 4);

      const ends = performance.now() + SECONDS * 1_000;
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (performance.now() < ends) {
            const shot = MIX[next++ % MIX.length]!;
            try {
              record(await send(shot));
            } catch (err) {
              if (failures.length < 20) failures.push(`${shot.label}: ${(err as Error).message}`);
            }
            // The test gateway keeps every invocation report, and each fault backend every
            // request it received, for other tests' assertions: not here. (Unchecked, the
            // backends' logs alone grew the live heap by 41 MiB in a 180 s soak; heap
            // snapshots showed nothing else growing.)
            if (gateway.reports.length > 1_000) gateway.reports.length = 0;
            for (const backend of [good, faulty, tripping]) {
              if (backend.requests.length > 1_000) backend.reset();
            }
          }
        }),
      );
      clearInterval(quarter);
      await agent.close();
      gateway.reports.length = 0;
      for (const backend of [good, faulty, tripping]) backend.reset();

      // Every outcome as expected: good traffic 200, bad traffic its 4xx, faults a mapped problem, no 500.
      expect(failures).toEqual([]);
      expect(unexpected).toEqual([]);
      expect(tally('500')).toBe(0);
      expect(tally('good')).toBeGreaterThan(100);
      expect(tally('fault')).toBeGreaterThan(50);

      // Memory after full GCs. A leak shows in the live heap, which must stay within 15 MiB of
      // where it started. RSS does not come back down after a GC (V8 and malloc keep what they
      // grew to under load: 180-270 MiB measured here, where client, gateway and three backends
      // share one process): it must stop growing, < 50 MiB over the second half, and stay under
      // 400 MiB above the start (one uncapped gzip bomb alone would add 200 MiB per request).
      checkpoint();
      const half = checkpoints[1] ?? checkpoints[0]!;
      const last = checkpoints.at(-1)!;
      const heapGrowthMiB = last.heap - before.heapUsed / 2 ** 20;
      const rssGrowthMiB = last.rss - before.rss / 2 ** 20;
      const rssSecondHalfMiB = last.rss - half.rss;
      expect(heapGrowthMiB).toBeLessThan(15);
      expect(rssSecondHalfMiB).toBeLessThan(50);
      expect(rssGrowthMiB).toBeLessThan(400);

      // The load's connections are gone from the gateway (bounded wait).
      const port = Number(new URL(gateway.url).port);
      for (let i = 0; i < 50 && socketsOnPort(port) > 0; i++) await new Promise((r) => setTimeout(r, 100));
      expect(socketsOnPort(port)).toBe(0);

      const total = tally('good') + tally('bad') + tally('fault');
      let seen = 0;
      let p99 = 0;
      while (p99 < 10_000 && (seen += goodLatency[p99]!) < tally('good') * 0.99) p99++;
      const faults = [...counts].filter(([k]) => /^\d{3} /.test(k)).map(([k, v]) => `${k}: ${v}`);
      reportFigures(
        `soak: ${total} requests in ${SECONDS} s (${Math.round(total / SECONDS)}/s) at ${CONCURRENCY} concurrent — ` +
          `good ${tally('good')} (p99 ${p99} ms), bad ${tally('bad')}, faults ${tally('fault')} [${faults.join(', ')}]; ` +
          `after GC: live heap +${heapGrowthMiB.toFixed(1)} MiB; RSS +${rssGrowthMiB.toFixed(0)} MiB, ${rssSecondHalfMiB.toFixed(1)} of it in the second half ` +
          `(rss/heap MiB: start ${(before.rss / 2 ** 20).toFixed(0)}/${(before.heapUsed / 2 ** 20).toFixed(0)}, quarters ${checkpoints.map((c) => `${c.rss.toFixed(0)}/${c.heap.toFixed(0)}`).join(' ')})`,
      );
    },
    (SECONDS + 40) * 1_000,
  );

  it('once the gateway and backends are closed, no handle is left behind', async () => {
    await gateway.close();
    await Promise.all([good.close(), faulty.close(), tripping.close()]);
    // Let closing sockets finish (bounded).
    for (let i = 0; i < 30 && activeHandles().length > handlesAtStart; i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(activeHandles().length).toBeLessThanOrEqual(handlesAtStart);
  });
});
