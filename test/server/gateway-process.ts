import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));

export interface GatewayProcess {
  /** http://127.0.0.1:PORT, from the "serving" log line. */
  url: string;
  child: ChildProcess;
  /** Every stdout line so far. */
  stdout: string[];
  stderr: string[];
  /** stdout lines parsed as JSON (the structured log). */
  logs(): Array<Record<string, unknown>>;
  /** Resolves when the process exits, with the code and ms since `since` (or since start). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  /** SIGKILL if still running (test clean-up). */
  kill(): void;
}

export interface GatewayProcessOptions {
  sculpts: string;
  /** Added to a minimal environment (PATH only): the test runner's own variables never leak in. */
  env?: Record<string, string>;
  /** Load src/telemetry/register.ts first, as `npm start` and the image do. Default true. */
  register?: boolean;
  /** More --import modules, loaded after the register (e.g. a crash trigger). */
  imports?: string[];
  cwd?: string;
  /** The program to run; default this Node (process.execPath). */
  command?: string;
  /** The command line after the program; default `[--import register] src/cli/main.ts serve <sculpts>`. */
  args?: string[];
  startTimeoutMs?: number;
}

/** Runs `node src/cli/main.ts serve` as a child process on Node 24 (process.execPath) and waits until it serves. */
export async function startGatewayProcess(options: GatewayProcessOptions): Promise<GatewayProcess> {
  const args = options.args ?? [
    ...(options.register === false ? [] : ['--import', './src/telemetry/register.ts']),
    ...(options.imports ?? []).flatMap((m) => ['--import', m]),
    'src/cli/main.ts',
    'serve',
    options.sculpts,
  ];
  const child = spawn(options.command ?? process.execPath, args, {
    cwd: options.cwd ?? REPO,
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      SCULPTOR_SECRET: 'process-test-secret-0123456789',
      SCULPTOR_ALLOW_PRIVATE_EGRESS: 'true',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const started = performance.now();
  const stdout: string[] = [];
  const stderr: string[] = [];
  let partial = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>(
    (resolve) => {
      child.once('exit', (code, signal) => resolve({ code, signal, at: performance.now() - started }));
    },
  );
  const serving = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`gateway did not start in time:\n${stderr.join('')}\n${stdout.join('\n')}`)),
      options.startTimeoutMs ?? 15_000,
    );
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      const text = partial + chunk;
      const lines = text.split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        stdout.push(line);
        try {
          const entry = JSON.parse(line) as { event?: string; url?: string };
          if (entry.event === 'serving' && entry.url) {
            clearTimeout(timer);
            resolve(entry.url);
          }
        } catch {
          // not a log line
        }
      }
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => stderr.push(chunk));
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(
        new Error(
          `gateway exited (${code ?? signal}) before serving:\n${stderr.join('')}\n${stdout.join('\n')}`,
        ),
      );
    });
  });
  let url: string;
  try {
    url = await serving;
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  return {
    url,
    child,
    stdout,
    stderr,
    logs: () =>
      stdout.flatMap((line) => {
        try {
          return [JSON.parse(line) as Record<string, unknown>];
        } catch {
          return [];
        }
      }),
    exited,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
