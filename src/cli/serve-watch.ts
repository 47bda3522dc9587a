import { type FSWatcher, watch } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { Settings } from '../config/settings.ts';
import { reviewTools } from '../designer/check-sculpts.ts';
import { type Finding, formatFinding } from '../designer/findings.ts';
import { LOCK_FILE } from '../designer/signature-lock.ts';
import { backendsMissingCredentials, missingCredentialsHint } from '../engine/attach-credentials.ts';
import { SculptLoadError } from '../errors/sculptor-error.ts';
import { type Gateway, type GatewayOptions, startGateway } from '../server/start-gateway.ts';

/** Quiet time after the last change before rebuilding: editors write a file in several steps. */
export const WATCH_DEBOUNCE_MS = 150;

export interface SculptWatcher {
  /** Resolves once every folder is watched. */
  ready: Promise<void>;
  close(): void;
}

/**
 * Calls `onChange` after files below `dir` change, debounced, never twice at
 * once: changes during a run cause one more run. Changes to the lock file and
 * editor temporaries are ignored.
 *
 * Each folder is watched on its own (non-recursive fs.watch) and the set of
 * watched folders is brought up to date after every change: Node's recursive
 * mode on Linux watches files, and loses a file an editor saves atomically
 * (write a temporary, rename it over the original).
 */
export function watchSculpts(
  dir: string,
  onChange: () => Promise<void>,
  debounceMs = WATCH_DEBOUNCE_MS,
): SculptWatcher {
  const root = path.resolve(dir);
  const watchers = new Map<string, FSWatcher>();
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let pending = false;
  let closed = false;
  const run = async (): Promise<void> => {
    if (closed) return;
    if (running) {
      pending = true;
      return;
    }
    running = true;
    try {
      await syncWatchers();
      await onChange();
    } finally {
      running = false;
      if (pending && !closed) {
        pending = false;
        schedule();
      }
    }
  };
  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(() => void run(), debounceMs);
  };
  const watchFolder = (folder: string) => {
    if (watchers.has(folder) || closed) return;
    try {
      const watcher = watch(folder, (_event, file) => {
        const name = file ? path.basename(String(file)) : '';
        if (name === LOCK_FILE || name.endsWith('~') || name.endsWith('.swp') || /^\.#|^4913$/.test(name))
          return;
        schedule();
      });
      // A folder removed while watched: forget it at the next sync.
      watcher.on('error', () => {
        watcher.close();
        watchers.delete(folder);
      });
      watchers.set(folder, watcher);
    } catch {
      // Gone or unreadable already.
    }
  };
  const syncWatchers = async () => {
    const folders = new Set([root]);
    try {
      for (const entry of await readdir(root, { withFileTypes: true, recursive: true })) {
        if (entry.isDirectory() && !entry.name.startsWith('.') && entry.name !== 'node_modules') {
          folders.add(path.join(entry.parentPath, entry.name));
        }
      }
    } catch {
      // The root itself is gone: keep what is watched.
    }
    for (const [folder, watcher] of watchers) {
      if (!folders.has(folder)) {
        watcher.close();
        watchers.delete(folder);
      }
    }
    for (const folder of folders) watchFolder(folder);
  };
  const ready = syncWatchers();
  return {
    ready,
    close() {
      closed = true;
      clearTimeout(timer);
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}

function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

function summarize(findings: Finding[]): string {
  const errors = findings.filter((f) => f.severity === 'error').length;
  return `${errors} error(s), ${findings.length - errors} warning(s)`;
}

/**
 * `sculptor serve DIR --watch`, the designer's dev server: the gateway as
 * `serve` starts it, plus a watcher that recompiles on every change and swaps
 * the catalog with `gateway.reload()`. A change that breaks a sculpt is
 * printed (file:line:col code message) and the last good catalog keeps being
 * served. Human-readable lines instead of JSON logs; stops on SIGINT/SIGTERM.
 */
export async function serveWatching(
  settings: Settings,
  env: Readonly<Record<string, string | undefined>> = process.env,
  mounts: GatewayOptions['mounts'] = [],
): Promise<number> {
  const dir = settings.sculpts;
  let gateway: Gateway;
  try {
    gateway = await startGateway({ settings, env, mounts });
  } catch (err) {
    if (!(err instanceof SculptLoadError)) throw err;
    for (const e of err.errors) process.stderr.write(`${formatFinding({ severity: 'error', error: e })}\n`);
    process.stderr.write(`\n${err.errors.length} error(s); nothing was served. Fix them and start again.\n`);
    return 1;
  }
  const report = async (verb: string) => {
    const tools = gateway
      .catalog()
      .list()
      .flatMap((t) => t.versions);
    const review = await reviewTools(tools, dir);
    for (const f of review.findings) print(formatFinding(f));
    for (const backend of backendsMissingCredentials(tools)) {
      print(
        `sculptor: warning: backend '${backend.name}' has no credentials: ${missingCredentialsHint(backend)}`,
      );
    }
    print(`sculptor: ${verb} ${gateway.catalog().size} tool(s) from ${dir} (${summarize(review.findings)})`);
  };
  let generation = 0;
  const watcher = watchSculpts(dir, async () => {
    const n = ++generation;
    try {
      await gateway.reload();
      await report(`reloaded (#${n})`);
    } catch (err) {
      if (!(err instanceof SculptLoadError)) {
        print(`sculptor: reload #${n} failed: ${(err as Error).message}`);
        return;
      }
      for (const e of err.errors) print(formatFinding({ severity: 'error', error: e }));
      print(
        `sculptor: reload #${n} failed with ${err.errors.length} error(s); still serving the last good catalog (${gateway.catalog().size} tool(s))`,
      );
    }
  });

  await watcher.ready;
  print(`sculptor: serving at ${gateway.url}${settings.prefix}/tools, watching ${dir} for changes`);
  await report('loaded');
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', () => resolve());
    process.once('SIGINT', () => resolve());
  });
  watcher.close();
  print('sculptor: stopping');
  await gateway.close();
  return 0;
}
