import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { SculptorError } from '../errors/sculptor-error.ts';
import { type BackendSpec, loadBackends } from './load-backends.ts';
import { parseSculpt, type SculptSpec } from './parse-sculpt.ts';
import { parseYamlSource, type YamlSource } from './yaml-source.ts';

export const SCULPT_SUFFIX = '.sculpt.yaml';
export const BACKENDS_FILE = 'backends.yaml';

export interface LoadedSculpts {
  root: string;
  /** Backends by the backends file that declares them. */
  backendFiles: Map<string, BackendSpec[]>;
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
  const result: LoadedSculpts = { root: absRoot, backendFiles: new Map(), sculpts: [], errors: [] };
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
    const { backends, errors } = loadBackends(source, env);
    result.errors.push(...errors);
    result.backendFiles.set(file, backends);
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
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    errors.push(
      new SculptorError('load.io', `Cannot read file: ${(err as Error).message}`, {
        at: { file, line: 1, column: 1 },
        cause: err,
      }),
    );
    return undefined;
  }
  const parsed = parseYamlSource(file, text);
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

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}
