import { type FSWatcher, watch } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';

/** Quiet time after the last change before rebuilding: editors write a file in several steps. */
export const WATCH_DEBOUNCE_MS = 150;

export interface SculptWatcher {
  /** Resolves once every folder is watched. */
  ready: Promise<void>;
  close(): void;
}

export interface WatchOptions {
  debounceMs?: number;
  /**
   * Single files outside the folder to watch too (the callers file): each
   * through its own folder, non-recursively, reacting to that file's name and
   * to a Kubernetes ConfigMap's `..data` swap there.
   */
  files?: readonly string[];
  /**
   * Which names, changed in the watched folders, call `onChange` (by default every name but an
   * editor temporary's). The Studio leaves out what it writes itself (test files, recordings).
   */
  relevant?: (name: string) => boolean;
  /** Folder names below `dir` not watched, besides hidden folders and node_modules. */
  skipFolders?: readonly string[];
}

/** Editor temporaries: backups, swap files, Emacs locks, Vim's write test. */
function isEditorTemporary(name: string): boolean {
  return name.endsWith('~') || name.endsWith('.swp') || /^\.#|^4913$/.test(name);
}

/**
 * Calls `onChange` after files below `dir` change, debounced, never twice at
 * once: changes during a run cause one more run, and `changedSince()` tells the
 * run that one is coming (a load that read the folder while it changed — a
 * ConfigMap swap between listing a file and reading it — is superseded by it). Editor temporaries are
 * ignored; the lock file is not (the gateway checks the sculpts against it).
 *
 * Each folder is watched on its own (non-recursive fs.watch) and the set of
 * watched folders is brought up to date after every change: Node's recursive
 * mode on Linux watches files, and loses a file an editor saves atomically
 * (write a temporary, rename it over the original). Hidden folders are not
 * watched, but events in a watched folder about hidden names are seen: a
 * ConfigMap volume is updated by writing a new `..<timestamp>` folder and
 * renaming a `..data_tmp` symlink over `..data`, which the files are
 * symlinks through, so the rename is the change, and every path is resolved
 * again when the sculpts are read.
 */
export function watchSculpts(
  dir: string,
  onChange: (changedSince: () => boolean) => Promise<void>,
  options: WatchOptions = {},
): SculptWatcher {
  const debounceMs = options.debounceMs ?? WATCH_DEBOUNCE_MS;
  const root = path.resolve(dir);
  const watchers = new Map<string, FSWatcher>();
  let timer: NodeJS.Timeout | undefined;
  /** Relevant events seen so far: a run compares it with its start (changedSince). */
  let changes = 0;
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
      const seen = changes;
      await onChange(() => changes !== seen);
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
  /** Watches `folder` (once); `relevant` filters the names its events carry. */
  const watchFolder = (folder: string, relevant: (name: string) => boolean) => {
    if (watchers.has(folder) || closed) return;
    try {
      const watcher = watch(folder, (_event, file) => {
        const name = file ? path.basename(String(file)) : '';
        if (relevant(name)) {
          changes++;
          schedule();
        }
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
  const anyButTemporaries = options.relevant ?? ((name: string) => !isEditorTemporary(name));
  const skipped = new Set(['node_modules', ...(options.skipFolders ?? [])]);
  // The single files, by folder: their names, and ConfigMap internals (`..data`, `..data_tmp`, `..<timestamp>`).
  const fileFolders = new Map<string, Set<string>>();
  for (const file of options.files ?? []) {
    const absolute = path.resolve(file);
    const folder = path.dirname(absolute);
    if (folder === root || folder.startsWith(`${root}${path.sep}`)) continue; // watched with the sculpts
    fileFolders.set(folder, new Set([...(fileFolders.get(folder) ?? []), path.basename(absolute)]));
  }
  const syncWatchers = async () => {
    const folders = new Set([root]);
    try {
      for (const entry of await readdir(root, { withFileTypes: true, recursive: true })) {
        if (entry.isDirectory() && !isHiddenBelow(root, entry.parentPath, entry.name, skipped)) {
          folders.add(path.join(entry.parentPath, entry.name));
        }
      }
    } catch {
      // The root itself is gone: keep what is watched.
    }
    for (const [folder, watcher] of watchers) {
      if (!folders.has(folder) && !fileFolders.has(folder)) {
        watcher.close();
        watchers.delete(folder);
      }
    }
    for (const folder of folders) watchFolder(folder, anyButTemporaries);
    for (const [folder, names] of fileFolders) {
      watchFolder(folder, (name) => names.has(name) || name.startsWith('..'));
    }
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

/** Whether a folder below `root` is hidden, or skipped by name (it or a folder between). */
function isHiddenBelow(root: string, parent: string, name: string, skipped: ReadonlySet<string>): boolean {
  const segments = [...path.relative(root, parent).split(path.sep).filter(Boolean), name];
  return segments.some((s) => s.startsWith('.') || skipped.has(s));
}
