/**
 * A misbehaving backend for tests, on 127.0.0.1 with an ephemeral port
 * (RELIABILITY §L "fault backend"). The path picks the fault:
 *
 *   /json[?enc=gzip|deflate|br]  200 application/json (optionally compressed)
 *   /geo                         200 application/geo+json
 *   /echo                        200 JSON describing the request it received
 *   /delay?ms=N                  JSON after N ms
 *   /next?id=X                   {"next": "X/next"}: an id with a slash, from the backend
 *   /drip[?every=ms]             headers, then 1 byte every 200 ms, forever
 *   /hang                        accepts the request, never answers
 *   /reset-before                TCP reset before any answer byte
 *   /reset-mid                   headers and part of the body, then TCP reset
 *   /lying-length[?hold=1]       Content-Length 1000, 10 bytes, then close (or hold open)
 *   /big?mb=N                    N MiB of valid JSON, streamed
 *   /big-gzip?mb=N               N MiB of valid JSON that compresses only ≈ 2:1, gzipped, in 64 KiB writes
 *   /array?n=N                   a JSON array of N numbers
 *   /gzip-bomb                   ~200 KiB gzip that inflates to 200 MiB of valid JSON
 *   /bad-gzip                    Content-Encoding gzip, body not gzip
 *   /many-headers?n=N            N response headers (default 2000)
 *   /hop                         hop-by-hop and cookie headers next to ordinary ones
 *   /deep?n=N                    N nested arrays
 *   /bigint                      integers beyond 2^53
 *   /html                        text/html
 *   /latin1                      text/plain; charset=iso-8859-1
 *   /redirect?to=URL[&code=302]  3xx to URL
 *   /status?code=N               status N with an application/problem+json body
 *   /bom                         JSON preceded by a UTF-8 BOM
 *   /truncated                   cut-off JSON with a correct Content-Length
 *   /invalid-utf8                JSON content type, bytes that are not UTF-8
 *   /empty-200                   200 JSON content type, empty body
 *   /empty-204                   204
 *
 * Every request is logged with the time the server saw its socket close, and
 * every TCP connection is counted (egress tests assert that none arrived).
 * Timers die with their socket, so nothing outlives close().
 */
import { randomBytes } from 'node:crypto';
import { type ChildProcess, spawn } from 'node:child_process';
import http, { type IncomingHttpHeaders } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import zlib from 'node:zlib';

export interface LoggedRequest {
  method: string;
  /** Path and query as received. */
  url: string;
  headers: IncomingHttpHeaders;
  /** Header names exactly as sent, in order. */
  headerNames: string[];
  body: string;
  /** performance.now() when the request arrived. */
  receivedAt: number;
  /** Resolves with performance.now() when the server saw this request's socket close. */
  socketClosed: Promise<number>;
}

export interface FaultBackend {
  /** http://127.0.0.1:<port> */
  origin: string;
  port: number;
  requests: LoggedRequest[];
  /** TCP connections accepted since start or the last reset(). */
  connections: number;
  /** Sockets currently open on the server side. */
  openSockets(): number;
  reset(): void;
  close(): Promise<void>;
}

const JSON_BODY = { ok: true, name: 'sculptor', items: [1, 2, 3] };
const BIGINT_TEXT =
  '{"id":9007199254740993,"negative":-9007199254740993,"safe":9007199254740991,"small":42,' +
  '"float":0.1,"list":[12345678901234567890,1],"text":"12345678901234567890"}';

/** A ~200 KiB multi-member gzip (RFC 1952 §2.2) that inflates to 200 MiB: built in milliseconds, not seconds. */
let gzipBomb: Buffer | undefined;
function getGzipBomb(): Buffer {
  if (gzipBomb === undefined) {
    const spaces = Buffer.alloc(1024 * 1024, 0x20); // whitespace: the inflated text stays valid JSON
    const member = zlib.gzipSync(spaces, { level: 9 });
    const head = zlib.gzipSync(Buffer.concat([Buffer.from('{"bomb":true}'), spaces]), { level: 9 });
    gzipBomb = Buffer.concat([head, ...Array.from({ length: 199 }, () => member)]);
  }
  return gzipBomb;
}

function encode(body: Buffer, enc: string | null): Buffer {
  switch (enc) {
    case 'gzip':
      return zlib.gzipSync(body);
    case 'deflate':
      return zlib.deflateSync(body);
    case 'br':
      return zlib.brotliCompressSync(body);
    default:
      return body;
  }
}

function intParam(url: URL, name: string, fallback: number): number {
  const value = Number(url.searchParams.get(name));
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

function sendJson(res: http.ServerResponse, status: number, text: string, type = 'application/json'): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Repeats `tick` every `ms` until the socket closes or `max` ticks ran. */
function every(res: http.ServerResponse, ms: number, max: number, tick: () => void): void {
  let count = 0;
  const timer = setInterval(() => {
    if (++count > max) return clearInterval(timer);
    tick();
  }, ms);
  res.on('close', () => clearInterval(timer));
}

function handle(req: http.IncomingMessage, res: http.ServerResponse, log: LoggedRequest): void {
  const url = new URL(req.url ?? '/', 'http://fault.invalid');
  switch (url.pathname) {
    case '/json': {
      const enc = url.searchParams.get('enc');
      const body = encode(Buffer.from(JSON.stringify(JSON_BODY)), enc);
      res.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': body.length,
        ...(enc ? { 'content-encoding': enc } : {}),
      });
      res.end(body);
      return;
    }
    case '/geo':
      sendJson(
        res,
        200,
        '{"type":"Point","coordinates":[4.35,50.85]}',
        'application/geo+json; charset=utf-8',
      );
      return;
    case '/echo':
      sendJson(
        res,
        200,
        JSON.stringify({
          method: log.method,
          headers: log.headers,
          headerNames: log.headerNames,
          body: log.body,
        }),
      );
      return;
    case '/next':
      sendJson(res, 200, JSON.stringify({ next: `${url.searchParams.get('id') ?? ''}/next` }));
      return;
    case '/delay': {
      const timer = setTimeout(() => sendJson(res, 200, '{"delayed":true}'), intParam(url, 'ms', 1000));
      res.on('close', () => clearTimeout(timer));
      return;
    }
    case '/drip':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[');
      // "Forever" for a test: 10 minutes at the default pace.
      every(res, intParam(url, 'every', 200), 3000, () => res.write(' '));
      return;
    case '/hang':
      return;
    case '/reset-before':
      req.socket.resetAndDestroy();
      return;
    case '/reset-mid':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"items":[1,2,3,');
      setTimeout(() => req.socket.resetAndDestroy(), 30);
      return;
    case '/lying-length':
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 1000 });
      res.write('{"a":12345');
      if (url.searchParams.get('hold') === '1') return;
      setTimeout(() => req.socket.destroy(), 30);
      return;
    case '/big': {
      const total = intParam(url, 'mb', 10) * 1024 * 1024;
      const item = `"${'x'.repeat(1022)}",`; // 1 KiB per element
      const block = item.repeat(64);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[');
      let sent = 1;
      const pump = (): void => {
        while (sent + block.length < total) {
          sent += block.length;
          if (!res.write(block)) {
            res.once('drain', pump);
            return;
          }
        }
        res.end('"end"]');
      };
      res.on('close', () => res.removeAllListeners('drain'));
      pump();
      return;
    }
    case '/big-gzip': {
      // Hex of random bytes: a large encoded answer well under the compression-ratio cap.
      const items: string[] = [];
      const total = intParam(url, 'mb', 3) * 1024 * 1024;
      for (let size = 2; size < total; size += 1027) items.push(`"${randomBytes(512).toString('hex')}"`);
      const body = zlib.gzipSync(`[${items.join(',')}]`);
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      let offset = 0;
      const pump = (): void => {
        while (offset < body.length) {
          const chunk = body.subarray(offset, offset + 64 * 1024);
          offset += chunk.length;
          if (!res.write(chunk)) {
            res.once('drain', pump);
            return;
          }
        }
        res.end();
      };
      res.on('close', () => res.removeAllListeners('drain'));
      pump();
      return;
    }
    case '/array': {
      const n = intParam(url, 'n', 10);
      sendJson(res, 200, `[${Array.from({ length: n }, (_, i) => i).join(',')}]`);
      return;
    }
    case '/gzip-bomb': {
      const bomb = getGzipBomb();
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        'content-length': bomb.length,
      });
      res.end(bomb);
      return;
    }
    case '/bad-gzip':
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        'content-length': 13,
      });
      res.end('{"not":"gz"}\n');
      return;
    case '/many-headers': {
      const n = intParam(url, 'n', 2000);
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      for (let i = 0; i < n; i++) headers[`x-filler-${i}`] = 'some value to fill the header section';
      res.writeHead(200, headers);
      res.end('{}');
      return;
    }
    case '/hop':
      res.setHeader('connection', 'keep-alive, x-internal');
      res.setHeader('keep-alive', 'timeout=5');
      res.setHeader('x-internal', 'secret-topology');
      res.setHeader('set-cookie', ['session=abc; HttpOnly', 'other=1']);
      res.setHeader('proxy-authenticate', 'Basic realm="x"');
      res.setHeader('upgrade', 'h2c');
      res.setHeader('trailer', 'x-checksum');
      res.setHeader('X-Kept', 'yes');
      res.setHeader('etag', '"v1"');
      res.setHeader('content-type', 'application/json');
      // Two writes force chunked encoding, the only framing that may carry trailers.
      res.write('{"hop":');
      res.addTrailers({ 'x-checksum': '1' });
      res.end('true}');
      return;
    case '/deep': {
      const n = intParam(url, 'n', 1000);
      sendJson(res, 200, '['.repeat(n) + ']'.repeat(n));
      return;
    }
    case '/bigint':
      sendJson(res, 200, BIGINT_TEXT);
      return;
    case '/html':
      sendJson(res, 200, '<!doctype html><title>Hi</title><p>hello</p>', 'text/html; charset=utf-8');
      return;
    case '/latin1': {
      const body = Buffer.from([0x63, 0x61, 0x66, 0xe9]); // "café" in ISO-8859-1
      res.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1', 'content-length': body.length });
      res.end(body);
      return;
    }
    case '/redirect': {
      const code = intParam(url, 'code', 302);
      res.writeHead(code, { location: url.searchParams.get('to') ?? '/', 'content-type': 'text/plain' });
      res.end('moved');
      return;
    }
    case '/status': {
      const code = intParam(url, 'code', 500);
      if (code === 204 || code === 304) {
        res.writeHead(code);
        res.end();
        return;
      }
      const headers: Record<string, string> = { 'content-type': 'application/problem+json' };
      if (code === 429 || code === 503) headers['retry-after'] = '2';
      res.writeHead(code, headers);
      res.end(JSON.stringify({ status: code, title: 'fault backend status' }));
      return;
    }
    case '/bom':
      sendJson(res, 200, '\uFEFF{"bom":true}');
      return;
    case '/truncated':
      sendJson(res, 200, '{"items":[1,2,');
      return;
    case '/invalid-utf8': {
      const body = Buffer.from([0x22, 0xff, 0xfe, 0x22]);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
      res.end(body);
      return;
    }
    case '/empty-200':
      sendJson(res, 200, '');
      return;
    case '/empty-204':
      res.writeHead(204, { 'content-type': 'application/json' });
      res.end();
      return;
    default:
      sendJson(res, 404, '{"error":"no such fault"}');
      return;
  }
}

function listen(server: net.Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

export async function startFaultBackend(): Promise<FaultBackend> {
  getGzipBomb(); // built up front (~10 ms) so that no test measures its cost
  const sockets = new Set<net.Socket>();
  const closedAt = new WeakMap<net.Socket, Promise<number>>();
  const server = http.createServer({ keepAliveTimeout: 5000 });
  const backend: FaultBackend = {
    origin: '',
    port: 0,
    requests: [],
    connections: 0,
    openSockets: () => sockets.size,
    reset() {
      backend.requests.length = 0;
      backend.connections = 0;
    },
    async close() {
      server.closeAllConnections();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  server.on('connection', (socket: net.Socket) => {
    backend.connections++;
    sockets.add(socket);
    closedAt.set(
      socket,
      new Promise((resolve) =>
        socket.once('close', () => {
          sockets.delete(socket);
          resolve(performance.now());
        }),
      ),
    );
  });
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    const headerNames = req.rawHeaders.filter((_, i) => i % 2 === 0);
    const receivedAt = performance.now();
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const log: LoggedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        headerNames,
        body: Buffer.concat(chunks).toString('utf8'),
        receivedAt,
        socketClosed: closedAt.get(req.socket) ?? Promise.resolve(receivedAt),
      };
      backend.requests.push(log);
      try {
        handle(req, res, log);
      } catch (err) {
        // A broken fault is a bug in the test, not a fault under test: say so loudly.
        console.error('fault backend failed on', log.url, err);
        req.socket.destroy();
      }
    });
  });
  backend.port = await listen(server);
  backend.origin = `http://127.0.0.1:${backend.port}`;
  return backend;
}

export interface Trap {
  origin: string;
  port: number;
  /** HTTP requests received; must stay 0 in redirect tests. */
  hits: number;
  /** TCP connections accepted; must stay 0 when a client should never have come here. */
  connections: number;
  close(): Promise<void>;
}

/** A listener that nobody should ever reach: it counts whoever does. */
export async function startTrap(): Promise<Trap> {
  const server = http.createServer((_req, res) => {
    trap.hits++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"trapped":true,"secret":"metadata-credentials"}');
  });
  const trap: Trap = {
    origin: '',
    port: 0,
    hits: 0,
    connections: 0,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  server.on('connection', () => trap.connections++);
  trap.port = await listen(server);
  trap.origin = `http://127.0.0.1:${trap.port}`;
  return trap;
}

export interface Blackhole {
  origin: string;
  port: number;
  close(): Promise<void>;
}

/**
 * A port where TCP connects never complete, on loopback: a child process
 * listens with a tiny backlog and then blocks its event loop, so nothing is
 * ever accepted; once the accept queue is full the kernel drops further SYNs.
 */
export async function startBlackhole(): Promise<Blackhole> {
  const script = `
    const net = require('node:net');
    const server = net.createServer();
    server.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
      process.stdout.write(server.address().port + '\\n', () => {
        // Block the event loop: accept() is never called again. Bounded at 120 s.
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 120000);
      });
    });`;
  const child: ChildProcess = spawn(process.execPath, ['-e', script], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.stdout?.once('data', (data: Buffer) => resolve(Number(String(data).trim())));
  });
  // Fill the accept queue until a connect stays pending (bounded).
  const fillers: net.Socket[] = [];
  for (let i = 0; i < 16; i++) {
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => {});
    fillers.push(socket);
    const connected = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 150);
      socket.once('connect', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    if (!connected) break;
  }
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    async close() {
      for (const socket of fillers) socket.destroy();
      child.stdout?.destroy();
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}
