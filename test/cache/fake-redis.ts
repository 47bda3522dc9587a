import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';

/**
 * How the fake answers commands other than the handshake (CLIENT, INFO, PING,
 * SELECT, QUIT), which it always answers so that ioredis reaches `ready`:
 * - `memory`: a tiny Redis (GET, SET … PX, DEL) over an in-process Map;
 * - `error`: every command gets `-ERR`;
 * - `stall`: the connection goes silent at its first such command and stays
 *   silent (a real server answers in order, so nothing after can be answered).
 */
export type FakeRedisMode = 'memory' | 'error' | 'stall';

export interface FakeRedis {
  readonly port: number;
  readonly url: string;
  mode: FakeRedisMode;
  /** Connections accepted since start (restarts included). */
  readonly connections: number;
  /** Non-handshake commands received, by name (upper case). */
  readonly commands: Map<string, number>;
  /** Stop listening and cut every client: Redis went away. */
  stop(): Promise<void>;
  /** Listen again on the same port: Redis came back. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** A RESP2 server on 127.0.0.1 that speaks just enough Redis for ioredis. */
export async function startFakeRedis(mode: FakeRedisMode, port = 0): Promise<FakeRedis> {
  const sockets = new Set<Socket>();
  const data = new Map<string, string>();
  const commands = new Map<string, number>();
  let connections = 0;
  let server: Server | undefined;

  function onConnection(socket: Socket): void {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let buffer = Buffer.alloc(0);
    let stalled = false;
    socket.on('data', (chunk: Buffer) => {
      if (stalled) return;
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const parsed = parseCommand(buffer);
        if (!parsed) return;
        buffer = buffer.subarray(parsed.consumed);
        const reply = answer(parsed.args);
        if (reply === undefined) {
          stalled = true;
          return;
        }
        socket.write(reply);
      }
    });
  }

  function answer(args: string[]): string | undefined {
    const name = (args[0] ?? '').toUpperCase();
    switch (name) {
      case 'CLIENT':
      case 'SELECT':
        return '+OK\r\n';
      case 'PING':
        return '+PONG\r\n';
      case 'INFO':
        return bulk('# Server\r\nredis_version:7.0.0\r\n# Persistence\r\nloading:0\r\n');
      case 'QUIT':
        return '+OK\r\n';
    }
    commands.set(name, (commands.get(name) ?? 0) + 1);
    if (fake.mode === 'stall') return undefined;
    if (fake.mode === 'error') return '-ERR fake failure\r\n';
    if (name === 'GET') {
      const value = data.get(args[1] ?? '');
      return value === undefined ? '$-1\r\n' : bulk(value);
    }
    if (name === 'SET') {
      data.set(args[1] ?? '', args[2] ?? '');
      return '+OK\r\n';
    }
    if (name === 'DEL') return `:${data.delete(args[1] ?? '') ? 1 : 0}\r\n`;
    return `-ERR unknown command '${name}'\r\n`;
  }

  async function listen(at: number): Promise<number> {
    server = createServer(onConnection);
    server.listen(at, '127.0.0.1');
    await once(server, 'listening');
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    return address.port;
  }

  async function stop(): Promise<void> {
    for (const socket of sockets) socket.destroy();
    const current = server;
    server = undefined;
    if (current) await new Promise<void>((resolve) => current.close(() => resolve()));
  }

  const actualPort = await listen(port);
  const fake: FakeRedis = {
    port: actualPort,
    url: `redis://127.0.0.1:${actualPort}`,
    mode,
    get connections() {
      return connections;
    },
    commands,
    stop,
    async restart() {
      await listen(actualPort);
    },
    close: stop,
  };
  return fake;
}

function bulk(text: string): string {
  return `$${Buffer.byteLength(text)}\r\n${text}\r\n`;
}

/** Parses one RESP array of bulk strings (what ioredis sends), or undefined if incomplete. */
function parseCommand(buffer: Buffer): { args: string[]; consumed: number } | undefined {
  let offset = 0;
  const line = (): string | undefined => {
    const end = buffer.indexOf('\r\n', offset);
    if (end < 0) return undefined;
    const text = buffer.toString('latin1', offset, end);
    offset = end + 2;
    return text;
  };
  const header = line();
  if (header === undefined) return undefined;
  if (!header.startsWith('*')) throw new Error(`fake redis: unexpected ${JSON.stringify(header)}`);
  const count = Number(header.slice(1));
  const args: string[] = [];
  for (let i = 0; i < count; i++) {
    const size = line();
    if (size === undefined) return undefined;
    const length = Number(size.slice(1));
    if (buffer.length < offset + length + 2) return undefined;
    args.push(buffer.toString('utf8', offset, offset + length));
    offset += length + 2;
  }
  return { args, consumed: offset };
}

/** A port on 127.0.0.1 that refuses connections: bound once, then released. */
export async function refusedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return address.port;
}

/** A TCP server on 127.0.0.1 that accepts connections and never sends a byte. */
export async function startBlackhole(): Promise<{
  url: string;
  connections: () => number;
  close(): Promise<void>;
}> {
  const sockets = new Set<Socket>();
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    url: `redis://127.0.0.1:${address.port}`,
    connections: () => connections,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
