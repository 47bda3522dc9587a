import { readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { SculptorError } from '../errors/sculptor-error.ts';
import { type ArazzoSpec, type BackendSpec, loadBackends } from './load-backends.ts';
import { parseSculpt, type SculptSpec } from './parse-sculpt.ts';
import { readYamlSource, type YamlSource } from './yaml-source.ts';

export const SCULPT_SUFFIX = '.sculpt.yaml';
export const BACKENDS_FILE = 'backends.yaml';

export interface LoadedSculpts {
  root: string;
  /** Backends by the backends file that declares them. */
  backendFiles: Map<string, BackendSpec[]>;
  /** Arazzo descriptions by the backends file that declares them. */
  arazzoFiles: Map<string, ArazzoSpec[]>;
  /** Each sculpt with the backends file that serves it (nearest in its folder or above). */
  sculpts: Array<SculptSpec & { backendsFile: string | undefined }>;
  errors: SculptorError[];
}

/**
 * Reads every `*.sculpt.yaml` and `backends.yaml` below `root`. Collects every
 * error instead of stopping at the first, so a designer sees them all at once.
 */
export async function loadSculpts(
  root: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<LoadedSculpts> {
  const absRoot = path.resolve(root);
  const result: LoadedSculpts = {
    root: absRoot,
    backendFiles: new Map(),
    arazzoFiles: new Map(),
    sculpts: [],
    errors: [],
  };
  let files: string[];
  try {
    files = await listFiles(absRoot);
  } catch (err) {
    result.errors.push(
      new SculptorError('load.io', `Cannot read folder: ${(err as Error).message}`, {
        at: { file: absRoot, line: 1, column: 1 },
        cause: err,
      }),
    );
    return result;
  }

  for (const file of files.filter((f) => path.basename(f) === BACKENDS_FILE)) {
    const source = await readSource(file, result.errors);
    if (!source) continue;
    const { backends, arazzo, errors } = loadBackends(source, env);
    result.errors.push(...errors);
    result.backendFiles.set(file, backends);
    if (arazzo.length > 0) result.arazzoFiles.set(file, arazzo);
  }
  for (const file of files.filter((f) => f.endsWith(SCULPT_SUFFIX))) {
    const source = await readSource(file, result.errors);
    if (!source) continue;
    const { sculpt, errors } = parseSculpt(source);
    result.errors.push(...errors);
    if (sculpt) result.sculpts.push({ ...sculpt, backendsFile: nearestBackendsFile(file, absRoot, files) });
  }
  return result;
}

async function readSource(file: string, errors: SculptorError[]): Promise<YamlSource | undefined> {
  const parsed = await readYamlSource(file);
  errors.push(...parsed.errors);
  return parsed.source;
}

function nearestBackendsFile(file: string, root: string, files: string[]): string | undefined {
  for (let dir = path.dirname(file); dir.startsWith(root); dir = path.dirname(dir)) {
    const candidate = path.join(dir, BACKENDS_FILE);
    if (files.includes(candidate)) return candidate;
    if (dir === root) break;
  }
  return undefined;
}

/**
 * Every file below `dir`, symlinks followed (each folder walked once, so a
 * link loop ends), hidden entries skipped. A Kubernetes ConfigMap volume is
 * that shape: its files are symlinks through `..data` to a hidden
 * `..<timestamp>` folder, which an update replaces by renaming `..data`; read
 * through the links, the files are loaded once, at the paths the designer
 * knows, from whichever version `..data` points at when each is read (a load
 * that straddles the rename is followed by another: the rename is a change in
 * the watched folder). A dangling link is skipped.
 */
async function listFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  const seen = new Set<string>();
  const walk = async (folder: string): Promise<void> => {
    const real = await realpath(folder);
    if (seen.has(real)) return;
    seen.add(real);
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const full = path.join(folder, entry.name);
      let isDirectory = entry.isDirectory();
      let isFile = entry.isFile();
      if (entry.isSymbolicLink()) {
        const target = await stat(full).catch(() => undefined);
        isDirectory = target?.isDirectory() ?? false;
        isFile = target?.isFile() ?? false;
      }
      if (isDirectory) await walk(full);
      else if (isFile) files.push(full);
    }
  };
  await walk(dir);
  return files.sort();
}
