/**
 * The gateway exactly as production starts it, for the telemetry scenario:
 *
 *   node --max-semi-space-size=16 --no-allocation-site-pretenuring --import ./src/telemetry/register.ts src/cli/main.ts serve <dir>
 *
 * with JSON logs on stdout (to a file here) and traces exported over OTLP.
 * It says where it listens in its `serving` log line; SIGTERM drains it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { openSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { PRODUCTION_NODE_FLAGS } from './child.ts';

const ROOT = new URL('..', import.meta.url).pathname;

export interface CliGateway {
  process: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

export async function startCliGateway(
  sculpts: string,
  env: Record<string, string>,
  logFile: string,
  options: { execArgv?: string[]; timeoutMs?: number } = {},
): Promise<CliGateway> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const out = openSync(logFile, 'w');
  const child = spawn(
    process.execPath,
    [
      ...PRODUCTION_NODE_FLAGS,
      ...(options.execArgv ?? []),
      '--import',
      './src/telemetry/register.ts',
      'src/cli/main.ts',
      'serve',
      sculpts,
    ],
    {
      cwd: ROOT,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env },
      stdio: ['ignore', out, 'inherit'],
    },
  );
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  };
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the gateway exited (${child.exitCode}); see ${logFile}`);
    for (const line of readFileSync(logFile, 'utf8').split('\n')) {
      if (!line.includes('"serving"')) continue;
      const entry = JSON.parse(line) as { event?: string; url?: string; tracing?: boolean };
      if (entry.event !== 'serving' || !entry.url) continue;
      if (entry.tracing !== true) {
        await stop();
        throw new Error(`the gateway started without tracing; see ${logFile}`);
      }
      return { process: child, url: entry.url, stop };
    }
    await sleep(100);
  }
  await stop();
  throw new Error(`the gateway did not log 'serving' within ${timeoutMs} ms; see ${logFile}`);
}
