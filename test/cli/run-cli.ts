import { type ChildProcess, spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The CLI entry point; tests run it as designers do, as a process under the same Node (24). */
const here = path.dirname(fileURLToPath(import.meta.url));
export const MAIN = path.resolve(here, '../../src/cli/main.ts');
export const REPO = path.resolve(here, '../..');
export const FIXTURES = path.resolve(here, '../fixtures');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * An environment without what would reach outside the test: no Redis, no
 * telemetry endpoint, no sculpt folder default. Load shedding is off, as in
 * startTestGateway: it answers the event loop's lag, which on a busy test
 * machine is the other test files' doing. `extra` is added on top.
 */
export function cliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const key of ['PATH', 'HOME', 'TMPDIR', 'LANG', 'SYSTEMROOT']) {
    if (process.env[key] !== undefined) env[key] = process.env[key];
  }
  return { ...env, NO_COLOR: '1', SCULPTOR_SHED_LAG_MS: '0', ...extra };
}

/** Runs `sculptor ...args` to completion, killed after `timeoutMs`. */
export function runCli(
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], {
      cwd: options.cwd ?? REPO,
      env: cliEnv(options.env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `sculptor ${args.join(' ')} did not finish in ${options.timeoutMs ?? 15_000} ms\n${stdout}\n${stderr}`,
        ),
      );
    }, options.timeoutMs ?? 15_000);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A long-running `sculptor` process whose output can be awaited line by line. */
export interface CliProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves with the first match in the output after `from` (an offset into output()). */
  waitFor(pattern: RegExp, options?: { from?: number; timeoutMs?: number }): Promise<RegExpExecArray>;
  /** The exit code once the process ends on its own (rejects after `timeoutMs`). */
  exit(timeoutMs?: number): Promise<number | null>;
  /** SIGINT, then the exit code (SIGKILL after `timeoutMs`). */
  stop(timeoutMs?: number): Promise<number | null>;
}

export function startCli(args: string[], options: { env?: Record<string, string> } = {}): CliProcess {
  const child = spawn(process.execPath, [MAIN, ...args], {
    cwd: REPO,
    env: cliEnv(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const listeners = new Set<() => void>();
  const append = (d: string) => {
    output += d;
    for (const l of listeners) l();
  };
  child.stdout!.setEncoding('utf8').on('data', append);
  child.stderr!.setEncoding('utf8').on('data', append);
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    child,
    output: () => output,
    waitFor(pattern, { from = 0, timeoutMs = 10_000 } = {}) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = new RegExp(pattern.source, pattern.flags.replace('g', '')).exec(output.slice(from));
          if (!match) return false;
          cleanup();
          resolve(match);
          return true;
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`Timed out after ${timeoutMs} ms waiting for ${pattern}; output:\n${output}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          listeners.delete(listener);
        };
        const listener = () => void check();
        listeners.add(listener);
        void exited.then(() => {
          if (listeners.has(listener) && !check()) {
            cleanup();
            reject(new Error(`The process exited while waiting for ${pattern}; output:\n${output}`));
          }
        });
        check();
      });
    },
    exit(timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`Still running after ${timeoutMs} ms:\n${output}`)),
          timeoutMs,
        );
        void exited.then((code) => {
          clearTimeout(timer);
          resolve(code);
        });
      });
    },
    async stop(timeoutMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** A fresh temporary folder; `files` written into it (relative paths). */
export async function tempFolder(
  files: Record<string, string> = {},
  prefix = 'sculptor-cli-',
): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  for (const [name, text] of Object.entries(files)) {
    await writeFile(path.join(dir, name), text);
  }
  return dir;
}

/** A copy of one of the repository's sample folders (sculpts/petstore…) in a temporary folder. */
export async function copySamples(name: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), `sculptor-${name}-`));
  await cp(path.join(REPO, 'sculpts', name), dir, { recursive: true });
  return dir;
}

export async function removeFolder(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** The mini OpenAPI document of the load-error cases, and a backends.yaml naming it `mini`. */
export async function miniFiles(): Promise<Record<string, string>> {
  return {
    'mini.openapi.yaml': await readFile(path.join(FIXTURES, 'mini.openapi.yaml'), 'utf8'),
    'backends.yaml':
      'backends:\n  mini:\n    openapi: mini.openapi.yaml\n    baseUrl: http://127.0.0.1:9/api\n',
  };
}

export interface ReportedFinding {
  file: string;
  line: number;
  column: number;
  code: string;
  warning: boolean;
  message: string;
}

/** `file:line:col code [warning: ]message` lines of a report, files relative to `dir`. */
export function findingsOf(text: string, dir: string): ReportedFinding[] {
  const out: ReportedFinding[] = [];
  for (const line of text.split('\n')) {
    const m = /^(.+?):(\d+):(\d+) ([a-z]+\.[a-z_]+|internal) (warning: )?(.*)$/.exec(line);
    if (!m) continue;
    out.push({
      file: path.relative(dir, path.resolve(REPO, m[1]!)),
      line: Number(m[2]),
      column: Number(m[3]),
      code: m[4]!,
      warning: m[5] !== undefined,
      message: m[6]!,
    });
  }
  return out;
}
