import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type BackendClient, createBackendClient } from '../../src/http/backend-client.ts';
import type { LookupFunction } from '../../src/http/egress-policy.ts';
import { expectCode } from './expect-code.ts';
import {
  type Blackhole,
  type FaultBackend,
  startBlackhole,
  startFaultBackend,
  startTrap,
  type Trap,
} from './fault-backend.ts';

// The fault backend listens on 127.0.0.1, so these calls need allowPrivate;
// egress-policy.test.ts covers what happens without it.
const PRIVATE = { allowPrivate: true } as const;

let backend: FaultBackend;
let trap: Trap;
let client: BackendClient;

beforeAll(async () => {
  [backend, trap] = await Promise.all([startFaultBackend(), startTrap()]);
  client = createBackendClient();
});

afterAll(async () => {
  await client.close();
  await Promise.all([backend.close(), trap.close()]);
});

beforeEach(() => backend.reset());

/** The time the server saw a socket close, or a failure if it stays open for `ms`. */
function closedWithin(closed: Promise<number>, ms: number): Promise<number> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<number>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`server socket still open after ${ms} ms`)), ms);
  });
  return Promise.race([closed, timeout]).finally(() => clearTimeout(timer));
}

function get(path: string, deadlineMs = 2000) {
  return client.send(
    { method: 'GET', url: `${backend.origin}${path}`, headers: {} },
    { signal: AbortSignal.timeout(deadlineMs), ...PRIVATE },
  );
}

describe('JSON and other bodies', () => {
  it('parses application/json with parameters', async () => {
    const res = await get('/json');
    expect(res.status).toBe(200);
    expect(res.contentType).toBe('application/json');
    expect(res.body).toEqual({ ok: true, name: 'sculptor', items: [1, 2, 3] });
    expect(res.bytes).toBe(Buffer.byteLength(JSON.stringify(res.body)));
  });

  it('parses +json media types', async () => {
    const res = await get('/geo');
    expect(res.contentType).toBe('application/geo+json');
    expect(res.body).toEqual({ type: 'Point', coordinates: [4.35, 50.85] });
  });

  it.each(['gzip', 'deflate', 'br'])('decodes Content-Encoding %s and counts decoded bytes', async (enc) => {
    const res = await get(`/json?enc=${enc}`);
    expect(res.body).toEqual({ ok: true, name: 'sculptor', items: [1, 2, 3] });
    expect(res.bytes).toBe(Buffer.byteLength(JSON.stringify(res.body)));
  });

  it('decodes a large gzip answer arriving faster than it inflates, every byte of it', async () => {
    const res = await get('/big-gzip?mb=3', 10_000);
    const items = res.body as string[];
    expect(items.length).toBeGreaterThan(3000);
    expect(items.every((item) => /^[0-9a-f]{1024}$/.test(item))).toBe(true);
    expect(res.bytes).toBe(Buffer.byteLength(JSON.stringify(items)));
  });

  it('strips a UTF-8 BOM', async () => {
    expect((await get('/bom')).body).toEqual({ bom: true });
  });

  it('keeps integers beyond 2^53 as their exact decimal text', async () => {
    const { body } = await get('/bigint');
    expect(body).toEqual({
      id: '9007199254740993',
      negative: '-9007199254740993',
      safe: 9007199254740991,
      small: 42,
      float: 0.1,
      list: ['12345678901234567890', 1],
      text: '12345678901234567890',
    });
  });

  it('returns text/* bodies as strings, honouring the charset', async () => {
    const html = await get('/html');
    expect(html.contentType).toBe('text/html');
    expect(html.body).toBe('<!doctype html><title>Hi</title><p>hello</p>');
    expect((await get('/latin1')).body).toBe('café');
  });

  it('gives no body for 204 and for an empty 200', async () => {
    const noContent = await get('/empty-204');
    expect(noContent.status).toBe(204);
    expect(noContent.body).toBeUndefined();
    expect(noContent.bytes).toBe(0);
    const empty = await get('/empty-200');
    expect(empty.status).toBe(200);
    expect(empty.body).toBeUndefined();
  });

  it('returns non-2xx answers instead of throwing, body parsed the same way', async () => {
    for (const code of [400, 404, 429, 500, 503]) {
      const res = await get(`/status?code=${code}`);
      expect(res.status).toBe(code);
      expect(res.contentType).toBe('application/problem+json');
      expect(res.body).toEqual({ status: code, title: 'fault backend status' });
    }
    expect((await get('/status?code=503')).headers['retry-after']).toBe('2');
  });

  it('sends a request body and exactly the given headers, adding no cookie or authorization', async () => {
    const res = await client.send(
      {
        method: 'POST',
        url: `${backend.origin}/echo`,
        headers: { 'content-type': 'application/json', 'X-API-Key': 'k-123', traceparent: '00-abc-def-01' },
        body: '{"q":1}',
      },
      { signal: AbortSignal.timeout(2000), ...PRIVATE },
    );
    const echo = res.body as {
      method: string;
      headers: Record<string, string>;
      headerNames: string[];
      body: string;
    };
    expect(echo.method).toBe('POST');
    expect(echo.body).toBe('{"q":1}');
    expect(echo.headers['x-api-key']).toBe('k-123');
    // Only what was given, plus HTTP/1.1 framing that undici must add.
    const added = echo.headerNames
      .map((n) => n.toLowerCase())
      .filter((n) => !['content-type', 'x-api-key', 'traceparent'].includes(n));
    expect(added.sort()).toEqual(['connection', 'content-length', 'host']);
    expect(echo.headers.cookie).toBeUndefined();
    expect(echo.headers.authorization).toBeUndefined();
    expect(echo.headers['user-agent']).toBeUndefined();
  });

  it('refuses a header value carrying CR/LF instead of sending it', async () => {
    // The header builder (I2b) should have refused it with a 400 already:
    // reaching this client with one is a bug, hence `internal`.
    await expectCode(
      client.send(
        { method: 'GET', url: `${backend.origin}/echo`, headers: { 'x-a': 'a\r\nX-Injected: 1' } },
        { signal: AbortSignal.timeout(2000), ...PRIVATE },
      ),
      'internal',
    );
    expect(backend.requests).toHaveLength(0);
  });

  it('drops userinfo and fragment from the URL instead of sending them', async () => {
    const url = new URL(`${backend.origin}/echo#frag`);
    url.username = 'user';
    url.password = 'pass';
    const res = await client.send(
      { method: 'GET', url: url.href, headers: {} },
      { signal: AbortSignal.timeout(2000), ...PRIVATE },
    );
    expect((res.body as { headers: Record<string, string> }).headers.authorization).toBeUndefined();
    expect(backend.requests[0]?.url).toBe('/echo');
  });

  it('reuses pooled keep-alive connections across calls', async () => {
    // undici frees a connection in a setImmediate after the body ends, so a
    // call made right after the previous one may open a second connection;
    // from then on the two are reused. Ten calls, at most two connections.
    const fresh = createBackendClient();
    try {
      for (let i = 0; i < 10; i++) {
        const res = await fresh.send(
          { method: 'GET', url: `${backend.origin}/json`, headers: {} },
          { signal: AbortSignal.timeout(2000), ...PRIVATE },
        );
        expect(res.status).toBe(200);
      }
      expect(backend.requests).toHaveLength(10);
      expect(backend.connections).toBeLessThanOrEqual(2);
    } finally {
      await fresh.close();
    }
  });
});

describe('response headers', () => {
  it('are lower-cased, without hop-by-hop headers, headers named in Connection, or cookies', async () => {
    const { headers } = await get('/hop');
    expect(headers['x-kept']).toBe('yes');
    expect(headers.etag).toBe('"v1"');
    expect(headers['content-type']).toBe('application/json');
    for (const gone of [
      'connection',
      'keep-alive',
      'x-internal',
      'set-cookie',
      'proxy-authenticate',
      'upgrade',
      'trailer',
      'transfer-encoding',
    ]) {
      expect(headers).not.toHaveProperty(gone);
    }
  });

  it('refuses a header section over 16 KiB', async () => {
    await expectCode(get('/many-headers?n=2000'), 'upstream.invalid_response');
  });
});

describe('invalid answers', () => {
  it.each([
    ['/truncated', 'cut-off JSON'],
    ['/invalid-utf8', 'JSON that is not UTF-8'],
    ['/bad-gzip', 'a body that is not what Content-Encoding says'],
    ['/deep?n=65', 'nesting one level past the cap'],
    ['/deep?n=200000', '200 000 levels of nesting'],
    ['/array?n=10001', 'an array one element past the cap'],
  ])('%s (%s) → upstream.invalid_response', async (path) => {
    await expectCode(get(path), 'upstream.invalid_response');
  });

  it('accepts exactly the caps', async () => {
    expect((await get('/array?n=10000')).body).toHaveLength(10_000);
    let depth = 0;
    for (let v = (await get('/deep?n=64')).body; Array.isArray(v); v = v[0]) depth++;
    expect(depth).toBe(64);
  });

  it('a lying Content-Length that closes early ends in an error, not a hang', async () => {
    const started = performance.now();
    const err = await get('/lying-length', 5000).catch((e: unknown) => e);
    expect(['upstream.invalid_response', 'upstream.unavailable']).toContain((err as { code?: string }).code);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('a lying Content-Length that holds the socket open ends at the deadline', async () => {
    await expectCode(get('/lying-length?hold=1', 300), 'upstream.timeout');
  });
});

describe('redirects are never followed', () => {
  it.each([301, 302, 303, 307, 308])(
    '%i → upstream.redirect, nothing requested from Location',
    async (code) => {
      const targets = [
        `${trap.origin}/latest/meta-data`,
        `http://[::ffff:127.0.0.1]:${trap.port}/`,
        `http://2130706433:${trap.port}/`,
      ];
      for (const to of targets) {
        await expectCode(get(`/redirect?code=${code}&to=${encodeURIComponent(to)}`), 'upstream.redirect');
      }
      await expectCode(
        client.send(
          {
            method: 'POST',
            url: `${backend.origin}/redirect?code=${code}&to=${encodeURIComponent(trap.origin)}`,
            headers: { 'x-api-key': 'secret' },
            body: '{}',
          },
          { signal: AbortSignal.timeout(2000), ...PRIVATE },
        ),
        'upstream.redirect',
      );
      expect(trap.hits).toBe(0);
      expect(trap.connections).toBe(0);
    },
  );
});

describe('connection failures', () => {
  // Each says why in its operator hint (invoke --debug, the debug log), never on the wire.
  it('reset before the answer → upstream.unavailable', async () => {
    const err = await expectCode(get('/reset-before'), 'upstream.unavailable');
    expect(err.hint).toMatch(/^connection reset: .*\(ECONNRESET|UND_ERR_SOCKET/);
    expect(err.message).toBe('The backend is unavailable.');
  });

  it('reset in the middle of the body → upstream.unavailable', async () => {
    await expectCode(get('/reset-mid'), 'upstream.unavailable');
  });

  it('refused connection → upstream.unavailable', async () => {
    const gone = await startTrap();
    const origin = gone.origin;
    await gone.close();
    const err = await expectCode(
      client.send(
        { method: 'GET', url: `${origin}/`, headers: {} },
        { signal: AbortSignal.timeout(2000), ...PRIVATE },
      ),
      'upstream.unavailable',
    );
    expect(err.hint).toMatch(/^connection refused: nothing listens at the backend address .*ECONNREFUSED/);
  });

  it('TLS handshake failure (https to a plain-HTTP port) → upstream.unavailable, saying TLS', async () => {
    const err = await expectCode(
      client.send(
        { method: 'GET', url: `${backend.origin.replace('http:', 'https:')}/json`, headers: {} },
        { signal: AbortSignal.timeout(2000), ...PRIVATE },
      ),
      'upstream.unavailable',
    );
    expect(err.hint).toMatch(/^TLS: the handshake failed .*check the baseUrl scheme/);
  });

  it('DNS failure → upstream.unavailable', async () => {
    const lookup: LookupFunction = (hostname, _options, callback) => {
      const err: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
      err.code = 'ENOTFOUND';
      process.nextTick(callback, err, '');
    };
    const dnsClient = createBackendClient({ lookup });
    try {
      for (const allowPrivate of [true, false]) {
        const err = await expectCode(
          dnsClient.send(
            { method: 'GET', url: 'http://api.nowhere.test/x', headers: {} },
            { signal: AbortSignal.timeout(2000), allowPrivate },
          ),
          'upstream.unavailable',
        );
        expect(err.hint).toMatch(/^DNS: the backend host name does not resolve.*ENOTFOUND/);
      }
    } finally {
      await dnsClient.close();
    }
  });

  it('a closed client refuses new calls with gateway.draining', async () => {
    const closed = createBackendClient();
    await closed.close();
    await expectCode(
      closed.send(
        { method: 'GET', url: `${backend.origin}/json`, headers: {} },
        { signal: AbortSignal.timeout(1000), ...PRIVATE },
      ),
      'gateway.draining',
    );
  });
});

describe('the deadline bounds connect, headers and body', () => {
  const DEADLINE = 500;

  it('ends a 1-byte/200 ms drip at the deadline and closes the socket', async () => {
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const timersBefore = timers();
    const started = performance.now();
    await expectCode(get('/drip', DEADLINE), 'upstream.timeout');
    const elapsed = performance.now() - started;
    const closedAt = await closedWithin(backend.requests[0]!.socketClosed, 1000);
    expect(elapsed).toBeGreaterThanOrEqual(DEADLINE - 5);
    expect(elapsed).toBeLessThan(DEADLINE + 150);
    expect(closedAt - started).toBeLessThan(DEADLINE + 150);
    // Nothing keeps ticking for the dead call (B5: no lingering timers).
    await new Promise((resolve) => setImmediate(resolve));
    expect(timers()).toBeLessThanOrEqual(timersBefore);
  });

  it('ends a request that never gets headers, and closes the socket', async () => {
    const started = performance.now();
    await expectCode(get('/hang', DEADLINE), 'upstream.timeout');
    expect(performance.now() - started).toBeLessThan(DEADLINE + 150);
    expect((await closedWithin(backend.requests[0]!.socketClosed, 1000)) - started).toBeLessThan(
      DEADLINE + 150,
    );
  });

  it('ends a slow answer at the deadline', async () => {
    const started = performance.now();
    await expectCode(get('/delay?ms=5000', 300), 'upstream.timeout');
    expect(performance.now() - started).toBeLessThan(300 + 150);
  });

  it('refuses to start when the signal already fired, without connecting', async () => {
    const controller = new AbortController();
    controller.abort();
    await expectCode(
      client.send(
        { method: 'GET', url: `${backend.origin}/json`, headers: {} },
        { signal: controller.signal, ...PRIVATE },
      ),
      'upstream.timeout',
    );
    expect(backend.connections).toBe(0);
  });

  describe('while connecting', () => {
    let blackhole: Blackhole;
    beforeAll(async () => {
      blackhole = await startBlackhole();
    });
    afterAll(async () => {
      await blackhole?.close();
    });

    it('a connect that never completes hits the connect timeout → upstream.timeout', async () => {
      const quick = createBackendClient({ connectTimeoutMs: 200 });
      try {
        const started = performance.now();
        await expectCode(
          quick.send(
            { method: 'GET', url: `${blackhole.origin}/`, headers: {} },
            { signal: AbortSignal.timeout(3000), ...PRIVATE },
          ),
          'upstream.timeout',
        );
        const elapsed = performance.now() - started;
        expect(elapsed).toBeGreaterThanOrEqual(190);
        expect(elapsed).toBeLessThan(200 + 300);
      } finally {
        await quick.close();
      }
    });

    it('the deadline ends a connect before the connect timeout', async () => {
      const started = performance.now();
      await expectCode(
        client.send(
          { method: 'GET', url: `${blackhole.origin}/`, headers: {} },
          { signal: AbortSignal.timeout(300), ...PRIVATE },
        ),
        'upstream.timeout',
      );
      expect(performance.now() - started).toBeLessThan(300 + 150);
    });
  });
});

describe('size caps', () => {
  it('stops a 10 MiB answer past 5 MiB and closes the socket', async () => {
    const started = performance.now();
    await expectCode(get('/big?mb=10'), 'upstream.too_large');
    expect((await closedWithin(backend.requests[0]!.socketClosed, 1000)) - started).toBeLessThan(500);
  });

  it('takes a custom cap', async () => {
    const small = createBackendClient({ maxResponseBytes: 1024 });
    try {
      const signal = AbortSignal.timeout(2000);
      await expectCode(
        small.send({ method: 'GET', url: `${backend.origin}/big?mb=1`, headers: {} }, { signal, ...PRIVATE }),
        'upstream.too_large',
      );
      const ok = await small.send(
        { method: 'GET', url: `${backend.origin}/json`, headers: {} },
        { signal, ...PRIVATE },
      );
      expect(ok.status).toBe(200);
    } finally {
      await small.close();
    }
  });

  it('takes custom JSON caps', async () => {
    const strict = createBackendClient({ maxJsonDepth: 2, maxArrayLength: 3 });
    try {
      const send = (path: string) =>
        strict.send(
          { method: 'GET', url: `${backend.origin}${path}`, headers: {} },
          { signal: AbortSignal.timeout(2000), ...PRIVATE },
        );
      expect((await send('/deep?n=2')).body).toEqual([[]]);
      await expectCode(send('/deep?n=3'), 'upstream.invalid_response');
      expect((await send('/array?n=3')).body).toEqual([0, 1, 2]);
      await expectCode(send('/array?n=4'), 'upstream.invalid_response');
    } finally {
      await strict.close();
    }
  });
});
