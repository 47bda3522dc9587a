/**
 * Raw TCP clients for socket-level tests: what a hostile or broken HTTP
 * client sends, byte for byte, and what the gateway does with the socket.
 * Every socket is bounded in time and destroyed by the caller's cleanup.
 */
import { connect, type Socket } from 'node:net';
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';

export interface RawExchange {
  /** Everything the server sent, as latin1 text. */
  text: string;
  /** The status of the first response line, or undefined when none came. */
  status: number | undefined;
  /** ms from connect to the socket's close. */
  closedAfterMs: number;
  /**
   * Whether the server ended the connection, rather than our cleanup destroying it: a FIN, or a
   * reset (a server closing a socket with bytes of ours still unread, or our next byte arriving
   * after its close, resets it; under load that races the FIN).
   */
  endedByServer: boolean;
}

export interface RawClient {
  socket: Socket;
  /** Resolves when the socket closes, whoever closed it. */
  closed: Promise<RawExchange>;
}

/** Connects to `url`'s host and port; `onConnect` writes what the test wants sent. */
export function rawClient(url: string, onConnect: (socket: Socket) => void): RawClient {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  const started = performance.now();
  let text = '';
  let endedByServer = false;
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => (text += chunk));
  socket.on('end', () => {
    endedByServer = true;
    socket.end();
  });
  socket.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'ECONNRESET' || err.code === 'EPIPE') endedByServer = true;
  });
  socket.once('connect', () => onConnect(socket));
  const closed = new Promise<RawExchange>((resolve) =>
    socket.once('close', () =>
      resolve({
        text,
        status: statusOf(text),
        closedAfterMs: performance.now() - started,
        endedByServer,
      }),
    ),
  );
  return { socket, closed };
}

/**
 * Sends `bytes` and waits (at most `timeoutMs`) for one complete response
 * (framed by Content-Length), then closes the socket.
 */
export function rawRequest(url: string, bytes: string, timeoutMs = 5_000): Promise<RawExchange> {
  return sendRaw(url, bytes, timeoutMs).response;
}

/** rawRequest, also saying when the bytes were handed to the kernel. */
export function sendRaw(
  url: string,
  bytes: string,
  timeoutMs = 5_000,
): { written: Promise<void>; response: Promise<RawExchange> } {
  let wrote!: () => void;
  const written = new Promise<void>((resolve) => (wrote = resolve));
  const client = rawClient(url, (socket) => socket.write(bytes, 'latin1', () => wrote()));
  let text = '';
  client.socket.on('data', (chunk: string) => {
    text += chunk;
    const end = text.indexOf('\r\n\r\n');
    if (end < 0) return;
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
    if (Buffer.byteLength(text.slice(end + 4), 'latin1') >= length) client.socket.destroy();
  });
  const timer = setTimeout(() => client.socket.destroy(), timeoutMs);
  const response = client.closed.finally(() => clearTimeout(timer));
  return { written, response };
}

/** The response head's header fields, names lower-cased, in order. */
export function headerFields(exchange: RawExchange): Array<[string, string]> {
  const head = exchange.text.split('\r\n\r\n')[0] ?? '';
  return head
    .split('\r\n')
    .slice(1)
    .map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()] as [string, string];
    });
}

/** Sends `bytes` at once and waits (at most `timeoutMs`) for the server to close the connection. */
export async function rawExchange(url: string, bytes: string, timeoutMs = 5_000): Promise<RawExchange> {
  const client = rawClient(url, (socket) => socket.write(bytes, 'latin1'));
  const timer = setTimeout(() => client.socket.destroy(), timeoutMs);
  try {
    return await client.closed;
  } finally {
    clearTimeout(timer);
  }
}

function statusOf(text: string): number | undefined {
  const match = /^HTTP\/1\.1 (\d{3}) /.exec(text);
  return match ? Number(match[1]) : undefined;
}

let gcFunction: (() => void) | undefined;

/** A full garbage collection, so heap figures compare like with like. */
export function collectGarbage(): void {
  if (!gcFunction) {
    setFlagsFromString('--expose-gc');
    gcFunction = runInNewContext('gc') as () => void;
  }
  gcFunction();
}

/** Heap in use after a full collection, in MiB. */
export function heapAfterGcMiB(): number {
  collectGarbage();
  return process.memoryUsage().heapUsed / 2 ** 20;
}
