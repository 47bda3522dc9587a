/**
 * Bench processes: every server and the load generator run in a child of
 * their own (one event loop each), forked with IPC. A child says `ready`
 * once it listens, and stops on `stop` or when its parent goes away, so a
 * crashed or interrupted bench leaves nothing behind.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { openSync, readFileSync } from 'node:fs';

/**
 * The node flags production starts with, read from `npm start` (`node <flags> --import …`;
 * test/deploy keeps the image's CMD the same command): every bench process gets them, the
 * hand-written handler too, so that start-up memory is measured as deployed and both servers
 * of a throughput comparison run under the same V8 settings.
 */
export const PRODUCTION_NODE_FLAGS: string[] = (() => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    scripts: { start: string };
  };
  // `exec node <flags> --import …`: the flags between node and --import.
  const words = pkg.scripts.start.split(/\s+/);
  return words.slice(words.indexOf('node') + 1, words.indexOf('--import'));
})();

export interface ReadyMessage {
  type: 'ready';
  /** Where a server child listens. */
  url?: string;
}

export interface Child<R extends ReadyMessage = ReadyMessage> {
  process: ChildProcess;
  ready: R;
  stop(): Promise<void>;
}

export interface ChildOptions {
  args?: string[];
  env?: Record<string, string>;
  /** Extra flags for node, e.g. --cpu-prof. */
  execArgv?: string[];
  /** Start with PRODUCTION_NODE_FLAGS before execArgv (default true; false: node's defaults, for A/B runs). */
  productionFlags?: boolean;
  /** How long the child may take to say ready. */
  readyTimeoutMs?: number;
  /** A file for the child's stdout (logs); by default it shares the bench's stderr. */
  stdout?: string;
  /** A command the child runs under, with its arguments (`valgrind --tool=callgrind …`); node follows them. */
  wrapper?: string[];
}

/** Forks `script` (a path relative to bench/) on this very Node and waits for its `ready`. */
export async function startChild<R extends ReadyMessage = ReadyMessage>(
  script: string,
  options: ChildOptions = {},
): Promise<Child<R>> {
  const wrapper = options.wrapper ?? [];
  const child = fork(new URL(script, import.meta.url), options.args ?? [], {
    execPath: wrapper[0] ?? process.execPath,
    execArgv: [
      ...(wrapper.length > 0 ? [...wrapper.slice(1), process.execPath] : []),
      ...(options.productionFlags === false ? [] : PRODUCTION_NODE_FLAGS),
      ...(options.execArgv ?? []),
    ],
    env: { ...process.env, ...options.env },
    stdio: ['ignore', options.stdout ? openSync(options.stdout, 'w') : 2, 'inherit', 'ipc'],
  });
  const timeoutMs = options.readyTimeoutMs ?? 60_000;
  const ready = await new Promise<R>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} was not ready within ${timeoutMs} ms`));
    }, timeoutMs);
    child.on('message', function onMessage(message: unknown) {
      const m = message as { type?: string; error?: string };
      if (m.type === 'ready' || m.type === 'failed') {
        clearTimeout(timer);
        child.off('message', onMessage);
        if (m.type === 'ready') resolve(m as R);
        else reject(new Error(`${script}: ${m.error}`));
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited before it was ready (${signal ?? code})`));
    });
  });
  return { process: child, ready, stop: () => stopChild(child) };
}

/** Asks the child to stop, and kills that child (by its pid) if it has not exited in time. */
export async function stopChild(child: ChildProcess, timeoutMs = 15_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  if (child.connected) child.send({ type: 'stop' });
  else child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  await exited;
  clearTimeout(timer);
}

/** In a child: reports ready, then runs `close` and exits on `stop` or when the parent goes away. */
export function serveUntilStopped(ready: object, close: () => Promise<void>): void {
  let closing = false;
  const stop = async () => {
    if (closing) return;
    closing = true;
    try {
      await close();
    } finally {
      // process.exit also writes the --cpu-prof profile.
      process.exit(0);
    }
  };
  process.on('message', (message: unknown) => {
    if ((message as { type?: string }).type === 'stop') void stop();
  });
  process.on('disconnect', () => void stop());
  process.send?.({ type: 'ready', ...ready });
}

/** In a child: `main().catch(failStart)` reports a start-up failure to the parent, then exits. */
export function failStart(err: unknown): void {
  const error = err instanceof Error ? (err.stack ?? err.message) : String(err);
  if (process.send) process.send({ type: 'failed', error }, () => process.exit(1));
  else {
    console.error(error);
    process.exit(1);
  }
}
