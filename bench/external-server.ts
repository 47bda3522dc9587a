/**
 * Peers the bench did not write (a generated server, a Python one) run as programs of their own,
 * without the IPC `ready` of child.ts: each is started on a free loopback port and is ready once
 * that port accepts a connection. Its pid is the process under test (the program itself, not a
 * wrapper such as npm, so its CPU is what /proc reports for it).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { openSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';

export interface ExternalServer {
  process: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

/** A port nothing listens on now (the kernel's pick), for a program that must be told its port. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const accepts = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/**
 * Starts `command args` with `env` added, its output to `logFile` (a peer may log every request:
 * what it writes is part of its cost, as it would be in production), and waits for `port`.
 */
export async function startExternal(options: {
  command: string;
  args: string[];
  port: number;
  env?: Record<string, string>;
  cwd?: string;
  logFile: string;
  readyTimeoutMs?: number;
}): Promise<ExternalServer> {
  const log = openSync(options.logFile, 'a');
  const child = spawn(options.command, options.args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', log, log],
  });
  const exited = once(child, 'exit');
  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${options.command} exited before it listened (see ${options.logFile})`);
    }
    if (await accepts(options.port)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${options.command} did not listen within the time allowed (see ${options.logFile})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    process: child,
    url: `http://127.0.0.1:${options.port}`,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
