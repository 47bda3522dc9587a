/**
 * Runs documented shell commands as a newcomer would type them (README's quick-start blocks,
 * every `--help` example), in a scratch copy of the checkout so that what they write (`init`,
 * `lock`, the Studio) never touches the repository. `sculptor …` is a shell function calling the
 * project's CLI with the Node it brings, exactly what `npx sculptor` runs; `npm run …` runs the
 * copy's scripts.
 *
 * The one thing changed is the port: every server gets a free one (through `PORT`,
 * `REPLAY_PORT` or its `--port`), and a later command's `localhost:8080` follows it, so the check
 * never collides with what else the machine serves. A command that serves (npm start, demo,
 * serve, studio, replay) runs in the background until the block ends, once its start-up line
 * shows; every other command must exit 0 within its bound. Every wait is bounded, and every
 * server started is stopped (its whole process group) when the block ends, passed or not.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const REPO = path.resolve(import.meta.dirname, '../..');
const NODE = path.join(REPO, 'node_modules/node/bin/node');
const MAIN = path.join(REPO, 'src/cli/main.ts');

/** One command of a block: its text, and what a `# → …` comment after it says the output holds. */
export interface ShellCommand {
  text: string;
  expect: string[];
}

/** A fenced ```sh block's commands: `\` continuations joined, comments and blank lines dropped. */
export function commandsOf(block: string): ShellCommand[] {
  const commands: ShellCommand[] = [];
  let pending = '';
  for (const raw of block.split('\n')) {
    const arrow = /^\s*#\s*→\s*(.*)$/.exec(raw);
    if (arrow && commands.length > 0) {
      // "name doggie, status AVAILABLE": each part's last word must be in the output.
      commands
        .at(-1)!
        .expect.push(
          ...arrow[1]!.split(',').map((part) => part.trim().split(/\s+/).at(-1)!.replace(/^"|"$/g, '')),
        );
      continue;
    }
    const line = raw.replace(/\s+#\s.*$/, '');
    if (pending === '' && /^\s*(#|$)/.test(line)) continue;
    pending += line.replace(/\\$/, ' ');
    if (!line.endsWith('\\')) {
      commands.push({ text: pending.replace(/\s+/g, ' ').trim(), expect: [] });
      pending = '';
    }
  }
  return commands;
}

/** The ```sh blocks under a `## heading` of a Markdown text, up to the next `## `. */
export function shellBlocks(markdown: string, heading: string): string[] {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README has no section "## ${heading}"`);
  const end = markdown.indexOf('\n## ', start + 1);
  const section = markdown.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

/** A scratch checkout: the samples and callers file copied, the code and packages linked. */
export async function scratchCheckout(): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sculptor-newcomer-'));
  await cp(path.join(REPO, 'sculpts'), path.join(dir, 'sculpts'), { recursive: true });
  await mkdir(path.join(dir, 'deploy/overlays/production'), { recursive: true });
  await cp(
    path.join(REPO, 'deploy/overlays/production/callers.yaml'),
    path.join(dir, 'deploy/overlays/production/callers.yaml'),
  );
  await cp(path.join(REPO, 'package.json'), path.join(dir, 'package.json'));
  for (const linked of ['src', 'test', 'node_modules'])
    await symlink(path.join(REPO, linked), path.join(dir, linked));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Commands that serve until stopped, and the line each prints once it listens. */
const SERVING =
  /^(?:[A-Z_]+=\S+ )*(npm start|npm run (start:offline|demo)$|npm run demo -- (?!--check)|(npm run sculptor -- |sculptor )(serve|studio|replay)\b)/;
const READY = /"event":"serving"|sculptor: serving at|Sculptor Studio on|replay: serving|Ctrl-C to stop/;

export interface ShellResult {
  command: string;
  code: number | null;
  output: string;
}

/**
 * Runs commands in order in `cwd`; serving ones in the background until the end. Resolves with
 * every result, or rejects naming the first command that failed (its output included).
 */
export async function runCommands(
  commands: readonly ShellCommand[],
  cwd: string,
  options: { timeoutMs?: number } = {},
): Promise<ShellResult[]> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const servers: ChildProcess[] = [];
  const results: ShellResult[] = [];
  let port = 8080;
  try {
    for (const { text, expect } of commands) {
      const env: Record<string, string> = {};
      let command = text.replace(/localhost:8080|127\.0\.0\.1:8080/g, (m) => m.replace('8080', String(port)));
      if (SERVING.test(text)) {
        port = await freePort();
        env.PORT = String(port);
        env.REPLAY_PORT = String(await freePort());
        command = command.replace(/\bPORT=\d+/, `PORT=${port}`).replace(/--port \d+/, `--port ${port}`);
        // The Studio takes its port as an option only.
        if (/\bstudio\b/.test(command) && !command.includes('--port')) command += ` --port ${port}`;
        const server = start(command, cwd, env);
        servers.push(server.child);
        const output = await server.ready(timeoutMs);
        results.push({ command: text, code: null, output });
        continue;
      }
      const result = await run(command, cwd, env, timeoutMs);
      results.push({ command: text, ...result });
      if (result.code !== 0) {
        throw new Error(`\`${text}\` exited ${result.code}:\n${result.output}`);
      }
      if (/"type":\s*"urn:sculptor:error/.test(result.output)) {
        throw new Error(`\`${text}\` answered an error:\n${result.output}`);
      }
      for (const word of expect) {
        if (!result.output.includes(word)) {
          throw new Error(
            `\`${text}\`: the README says its answer holds "${word}"; it was:\n${result.output}`,
          );
        }
      }
    }
  } finally {
    await Promise.all(servers.map((s) => stop(s)));
  }
  return results;
}

/** bash with `sculptor` defined as the project's CLI (what `npx sculptor` runs). */
function bash(command: string, cwd: string, env: Record<string, string>, detached: boolean): ChildProcess {
  const prelude = `sculptor() { "${NODE}" "${MAIN}" "$@"; }\n`;
  return spawn('bash', ['-c', `${prelude}${command}`], {
    cwd,
    env: { ...process.env, ...env, CI: process.env.CI ?? '', FORCE_COLOR: '0', NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached,
  });
}

function collect(child: ChildProcess, onData: () => void = () => {}): () => string {
  let output = '';
  const append = (d: Buffer) => {
    output += d.toString('utf8');
    onData();
  };
  child.stdout!.on('data', append);
  child.stderr!.on('data', append);
  return () => output;
}

async function run(command: string, cwd: string, env: Record<string, string>, timeoutMs: number) {
  const child = bash(command, cwd, env, true);
  const output = collect(child);
  return new Promise<{ code: number | null; output: string }>((resolve) => {
    const timer = setTimeout(() => {
      killGroup(child, 'SIGKILL');
      resolve({ code: null, output: `${output()}\n(killed after ${timeoutMs} ms)` });
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output: output() });
    });
  });
}

function start(command: string, cwd: string, env: Record<string, string>) {
  let check = () => {};
  const child = bash(command, cwd, env, true);
  const output = collect(child, () => check());
  const ready = (timeoutMs: number) =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`\`${command}\` did not start in ${timeoutMs} ms:\n${output()}`)),
        timeoutMs,
      );
      check = () => {
        if (READY.test(output())) {
          clearTimeout(timer);
          resolve(output());
        }
      };
      child.on('close', (code) => {
        clearTimeout(timer);
        reject(new Error(`\`${command}\` exited ${code} instead of serving:\n${output()}`));
      });
      check();
    });
  return { child, ready };
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

/** SIGTERM to the server's process group, SIGKILL after 10 s: never left running. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  killGroup(child, 'SIGTERM');
  const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 10_000);
  await closed;
  clearTimeout(timer);
}
