import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { canonicalJson } from '../cache/canonical-json.ts';
import { SculptorError } from '../errors/sculptor-error.ts';
import type { CompiledTool } from './compile-tool.ts';
import type { ToolSignature } from './tool-signature.ts';

/** Written beside the sculpts (in the folder `check` and `serve` are given). */
export const LOCK_FILE = 'sculptor.lock.json';
export const LOCK_FORMAT = 1;

/**
 * `sculptor.lock.json`: for every published tool version, the hash of the
 * signature the gateway serves for it. A2T §6.1: for a given version "the
 * signature is completely locked" — any change, even to a description, needs
 * a new version; the lock lets `check` catch the edit before an agent does,
 * and the gateway refuse to serve it (`lockErrors`). `sculptor lock` writes it
 * (src/designer/signature-lock.ts).
 */
export interface SignatureLock {
  lockfileVersion: typeof LOCK_FORMAT;
  /** tool name → version (as a string key) → "sha256:<hex>". */
  tools: Record<string, Record<string, string>>;
}

/**
 * sha256 over the canonical JSON (sorted keys) of the version's A2T signature.
 * `currentVersion` is left out: it changes, legitimately, whenever a newer
 * version is published.
 */
export function signatureHash(signature: ToolSignature): string {
  const { toolId, name, description, version, tags, input_parameters, output_parameters } = signature;
  const canonical = canonicalJson({
    toolId,
    name,
    description,
    version,
    tags,
    input_parameters,
    output_parameters,
  });
  return `sha256:${createHash('sha256').update(canonical, 'utf8').digest('hex')}`;
}

export function lockFileOf(dir: string): string {
  return path.join(path.resolve(dir), LOCK_FILE);
}

/** Reads the lock beside the sculpts; undefined when there is none. Throws lint.lock_file when it is unreadable. */
export async function readLock(dir: string): Promise<SignatureLock | undefined> {
  const file = lockFileOf(dir);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw lockError(file, `Cannot read ${LOCK_FILE}: ${(err as Error).message}`, err);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw lockError(file, `${LOCK_FILE} is not JSON: ${(err as Error).message}`, err);
  }
  if (!isLock(value)) {
    throw lockError(
      file,
      `${LOCK_FILE} is not a lock file of format ${LOCK_FORMAT} ({lockfileVersion, tools: {name: {version: "sha256:…"}}}). Delete it and run sculptor lock.`,
    );
  }
  return value;
}

function isLock(value: unknown): value is SignatureLock {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  if (v.lockfileVersion !== LOCK_FORMAT || typeof v.tools !== 'object' || v.tools === null) return false;
  return Object.values(v.tools).every(
    (versions) =>
      typeof versions === 'object' &&
      versions !== null &&
      Object.entries(versions).every(([k, h]) => /^[1-9][0-9]*$/.test(k) && typeof h === 'string'),
  );
}

function lockError(file: string, message: string, cause?: unknown): SculptorError {
  return new SculptorError('lint.lock_file', message, {
    at: { file, line: 1, column: 1 },
    ...(cause ? { cause } : {}),
  });
}

/**
 * What changed since the lock: a locked version whose signature hash differs
 * (lint.signature_drift, at the sculpt's `version`), or a locked version no
 * sculpt defines any more (lint.version_removed, at the lock file). Versions
 * not in the lock yet are not errors: they are unpublished until `sculptor
 * lock` runs. `check` reports these as error findings; the gateway refuses a
 * catalog that has any.
 */
export function lockDrift(
  tools: readonly CompiledTool[],
  lock: SignatureLock,
  lockFile: string,
): SculptorError[] {
  const errors: SculptorError[] = [];
  const byKey = new Map(tools.map((t) => [`${t.signature.name}@${t.signature.version}`, t]));
  for (const [name, versions] of Object.entries(lock.tools)) {
    for (const [version, hash] of Object.entries(versions)) {
      const tool = byKey.get(`${name}@${version}`);
      if (!tool) {
        errors.push(
          new SculptorError(
            'lint.version_removed',
            `${name} version ${version} is published (in ${LOCK_FILE}) but no sculpt defines it any more; agents pinned to it would break. Restore its file.`,
            { at: { file: lockFile, line: 1, column: 1 } },
          ),
        );
      } else if (signatureHash(tool.signature) !== hash) {
        errors.push(
          new SculptorError(
            'lint.signature_drift',
            `The signature of ${name} version ${version} changed since it was locked in ${LOCK_FILE}. A published version never changes (A2T §6.1): restore this file and put the change in a new version (version ${nextVersion(tools, name)}), then run sculptor lock.`,
            { at: tool.versionAt },
          ),
        );
      }
    }
  }
  return errors;
}

/**
 * The lock errors of the tools compiled from `dir`: none without a lock file;
 * an unreadable lock file (lint.lock_file) or the drift from a readable one.
 * What the gateway checks at start and on every reload.
 */
export async function lockErrors(tools: readonly CompiledTool[], dir: string): Promise<SculptorError[]> {
  let lock: SignatureLock | undefined;
  try {
    lock = await readLock(dir);
  } catch (err) {
    if (err instanceof SculptorError) return [err];
    throw err;
  }
  return lock ? lockDrift(tools, lock, lockFileOf(dir)) : [];
}

function nextVersion(tools: readonly CompiledTool[], name: string): number {
  return Math.max(0, ...tools.filter((t) => t.signature.name === name).map((t) => t.signature.version)) + 1;
}
