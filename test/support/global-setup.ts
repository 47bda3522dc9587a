import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';

/**
 * The tests talk to a real Redis. Use REDIS_URL, or the one on 127.0.0.1:6379;
 * when neither answers, start a throwaway redis-server on a free loopback port
 * (nothing saved to disk) so `npm test` works on a fresh machine too.
 */
let child: ChildProcess | undefined;

export async function setup(): Promise<void> {
  if (process.env.REDIS_URL) return;
  if (await answers(6379)) {
    process.env.REDIS_URL = 'redis://127.0.0.1:6379';
    return;
  }
  const port = await freePort();
  child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  const failed = new Promise<never>((_, reject) =>
    child!.once('error', () =>
      reject(
        new Error(
          'No Redis answers on 127.0.0.1:6379 and redis-server is not installed; install it or set REDIS_URL.',
        ),
      ),
    ),
  );
  for (let i = 0; i < 100; i++) {
    if (await Promise.race([answers(port), failed])) {
      process.env.REDIS_URL = `redis://127.0.0.1:${port}`;
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('redis-server did not start within 5 s.');
}

export async function teardown(): Promise<void> {
  child?.kill('SIGTERM');
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.setTimeout(500);
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}
