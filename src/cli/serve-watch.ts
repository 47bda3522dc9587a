import { type FSWatcher, watch } from 'node:fs';
import path from 'node:path';
import type { Settings } from '../config/settings.ts';
import { reviewTools } from '../designer/check-sculpts.ts';
import { type Finding, formatFinding } from '../designer/findings.ts';
import { LOCK_FILE } from '../designer/signature-lock.ts';
import { SculptLoadError } from '../errors/sculptor-error.ts';
import { type Gateway, startGateway } from '../server/start-gateway.ts';

/** Quiet time after the last change before rebuilding: editors write a file in several steps. */
export const WATCH_DEBOUNCE_MS = 150;

export interface SculptWatcher {
  close(): void;
}

/**
 * Calls `onChange` after files below `dir` change (fs.watch, recursive),
 * debounced, never twice at once: changes during a run cause one more run.
 * Changes to the lock file and editor temporaries are ignored.
 */
export function watchSculpts(
  dir: string,
  onChange: () => Promise<void>,
  debounceMs = WATCH_DEBOUNCE_MS,
): SculptWatcher {
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
  const watcher: FSWatcher = watch(dir, { recursive: true }, (_event, file) => {
    const name = file ? path.basename(String(file)) : '';
    if (name === LOCK_FILE || name.endsWith('~') || name.endsWith('.swp') || /^\.#|^4913$/.test(name)) return;
    schedule();
  });
  watcher.on('error', () => {
    // A watched folder removed or unreadable: keep serving what was loaded.
  });
  return {
    close() {
      closed = true;
      clearTimeout(timer);
      watcher.close();
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
): Promise<number> {
  const dir = settings.sculpts;
  let gateway: Gateway;
  try {
    gateway = await startGateway({ settings, env });
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
    print(`sculptor: ${verb} ${gateway.catalog().size} tool(s) from ${dir} (${summarize(review.findings)})`);
  };
  print(`sculptor: serving at ${gateway.url}${settings.prefix}/tools, watching ${dir} for changes`);
  await report('loaded');

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

  await new Promise<void>((resolve) => {
    process.once('SIGTERM', () => resolve());
    process.once('SIGINT', () => resolve());
  });
  watcher.close();
  print('sculptor: stopping');
  await gateway.close();
  return 0;
}
