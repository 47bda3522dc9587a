/**
 * Requests to backends are built, never forwarded; answers to callers are
 * built, never relayed (RELIABILITY I1, I2, D6). Raw sockets on both sides
 * show exactly which header fields cross the gateway: none of the caller's
 * reach a backend, none of a backend's reach the caller.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolIdFor } from '../../src/compile/tool-signature.ts';
import { type FaultBackend, startFaultBackend } from '../http/fault-backend.ts';
import { startTestGateway } from '../support/start-test-gateway.ts';
import { headerFields, type RawExchange, rawRequest } from './raw-http.ts';

const SCULPTS = 'test/hardening/fixtures/sculpts';
const KEYED_TOKEN = 'gateway-own-token-0123';
/** What the gateway itself sends every fault-backend call: undici's framing, the sculpt's accept, the backend file's static header. */
const BUILT_HEADERS = ['host', 'connection', 'accept', 'x-static'];
/** The gateway's own response fields; nothing else may appear. */
const ANSWER_HEADERS = [
  'cache-control',
  'content-type',
  'content-length',
  'date',
  'connection',
  'keep-alive',
];

/** A backend whose every answer carries headers that must never reach a caller. */
interface Hostile {
  origin: string;
  status: number;
  close(): Promise<void>;
}

async function startHostile(): Promise<Hostile> {
  const hostile: Hostile = { origin: '', status: 200, close: async () => {} };
  const server = http.createServer((_req, res) => {
    const body = JSON.stringify(hostile.status === 200 ? { ok: 'yes' } : { error: 'internal-detail' });
    res.writeHead(hostile.status, [
      ['Content-Type', 'application/json'],
      ['Content-Length', String(Buffer.byteLength(body))],
      ['Set-Cookie', 'backend-session=BACKEND-COOKIE; HttpOnly'],
      ['Set-Cookie', 'tracking=BACKEND-TRACK'],
      ['Server', 'BackendServer/1.2 (internal-host-7)'],
      ['X-Powered-By', 'BackendFramework/0.9'],
      ['Connection', 'close, x-internal'],
      ['x-internal', '1'],
      ['WWW-Authenticate', 'Bearer realm="BACKEND-REALM"'],
      ['X-Request-Id', 'BACKEND-REQUEST-ID'],
      ['Via', '1.1 internal-proxy.backend.local'],
      ['Access-Control-Allow-Origin', '*'],
      ['Location', 'http://169.254.169.254/latest/meta-data'],
    ]);
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  hostile.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  hostile.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return hostile;
}

/** Every value the hostile backend sets; none may appear anywhere in the caller's answer. */
const BACKEND_MARKERS = [
  'BACKEND-COOKIE',
  'BACKEND-TRACK',
  'BackendServer',
  'internal-host-7',
  'BackendFramework',
  'x-internal',
  'BACKEND-REALM',
  'BACKEND-REQUEST-ID',
  'internal-proxy',
  '169.254',
  'internal-detail',
  'Access-Control',
];

let fault: FaultBackend;
let hostile: Hostile;
let gateway: Awaited<ReturnType<typeof startTestGateway>>;

beforeAll(async () => {
  fault = await startFaultBackend();
  hostile = await startHostile();
  gateway = await startTestGateway(SCULPTS, {
    FAULT_URL: fault.origin,
    HOSTILE_URL: hostile.origin,
    KEYED_TOKEN,
  });
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([fault?.close(), hostile?.close()]);
});

function rawInvocation(tool: string, headers: string[]): Promise<RawExchange> {
  const body = JSON.stringify({ name: tool, input_parameters: [] });
  return rawRequest(
    gateway.url,
    `POST /tools/${toolIdFor(tool)}:invoke HTTP/1.1\r\nHost: localhost\r\n` +
      'Content-Type: application/json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n${body}`,
  );
}

/** Everything a caller (or a prompt-injected agent) might try to slip through. */
const CALLER_HEADERS = [
  'x-secret: CALLER-NAMED-IN-CONNECTION',
  'Keep-Alive: timeout=999, max=CALLER',
  'Upgrade: websocket',
  'Authorization: Bearer CALLER-TOKEN',
  'Cookie: session=CALLER-COOKIE',
  'X-API-Key: CALLER-API-KEY',
  'Proxy-Authorization: Basic CALLER-PROXY',
  'X-Forwarded-For: 10.0.0.1, CALLER-XFF',
  'X-Forwarded-Host: CALLER-HOST.internal',
  'Forwarded: for=CALLER;host=internal',
  'X-Real-IP: 10.9.9.9',
  'Via: 1.1 CALLER-PROXY',
  'TE: trailers',
  'Accept: text/html',
  'User-Agent: CALLER-AGENT',
  'X-Static: CALLER-OVERRIDE',
];

describe('inbound headers never reach a backend (I1, D6)', () => {
  it.each([
    ['Connection: x-secret', 'Connection: x-secret'],
    ['Connection: Upgrade, x-secret (an upgrade attempt)', 'Connection: Upgrade, x-secret'],
  ])(
    '%s with hop-by-hop, credential and forwarding headers → the backend sees only what the gateway built',
    async (_name, connection) => {
      fault.reset();
      const answer = await rawInvocation('fetch_json', [connection, ...CALLER_HEADERS]);
      expect(answer.status).toBe(200);
      expect(answer.text).not.toMatch(/^HTTP\/1\.1 101/);
      expect(fault.requests).toHaveLength(1);
      const seen = fault.requests[0]!;
      expect(seen.headerNames.map((n) => n.toLowerCase())).toEqual(BUILT_HEADERS);
      expect(seen.headers).toMatchObject({
        connection: 'keep-alive',
        accept: 'application/json',
        'x-static': 'static-value',
      });
      expect(JSON.stringify([seen.url, seen.headers, seen.body])).not.toMatch(
        /CALLER|websocket|trailers|10\.0\.0\.1/,
      );
    },
  );

  it("a backend with its own Authorization gets the gateway's credential, never the caller's (no confused deputy)", async () => {
    fault.reset();
    const answer = await rawInvocation('fetch_keyed', ['Connection: close', ...CALLER_HEADERS]);
    expect(answer.status).toBe(200);
    const seen = fault.requests[0]!;
    expect(seen.headers.authorization).toBe(`Bearer ${KEYED_TOKEN}`);
    expect(seen.headerNames.map((n) => n.toLowerCase()).sort()).toEqual([
      'accept',
      'authorization',
      'connection',
      'host',
    ]);
    expect(JSON.stringify(seen.headers)).not.toContain('CALLER');
  });
});

describe("a backend's headers never reach the caller (I1, I2)", () => {
  it.each([
    [200, 200],
    [500, 502],
  ])(
    'backend %i with Set-Cookie, Server, X-Powered-By, Connection: close, x-internal… → gateway %i with only its own fields',
    async (backendStatus, gatewayStatus) => {
      hostile.status = backendStatus;
      try {
        const answer = await rawInvocation('hostile_answer', []);
        expect(answer.status).toBe(gatewayStatus);
        const fields = headerFields(answer);
        expect(fields.map(([name]) => name).sort()).toEqual([...ANSWER_HEADERS].sort());
        // The connection stays the gateway's: the backend's "close, x-internal" is not relayed.
        expect(Object.fromEntries(fields)).toMatchObject({
          connection: 'keep-alive',
          'cache-control': 'no-store',
        });
        for (const marker of BACKEND_MARKERS) expect(answer.text).not.toContain(marker);
        if (gatewayStatus === 200) {
          expect(JSON.parse(answer.text.split('\r\n\r\n')[1]!)).toEqual({
            output_parameters: [{ name: 'ok', value: 'yes' }],
          });
        }
      } finally {
        hostile.status = 200;
      }
    },
  );
});
