import { createHash } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { canonicalJson } from '../cache/canonical-json.ts';
import type { CompiledTool } from '../compile/compile-tool.ts';
import type { ToolSignature } from '../compile/tool-signature.ts';
import { SculptorError } from '../errors/sculptor-error.ts';
import { error, type Finding } from './findings.ts';

/** Written beside the sculpts (in the folder `check` and `serve` are given). */
export const LOCK_FILE = 'sculptor.lock.json';
export const LOCK_FORMAT = 1;

/**
 * `sculptor.lock.json`: for every published tool version, the hash of the
 * signature the gateway serves for it. A2T §6.1: for a given version "the
 * signature is completely locked" — any change, even to a description, needs
 * a new version; the lock lets `check` catch the edit before an agent does.
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

/** The lock of these tools: every version present, names and versions sorted. */
export function buildLock(tools: readonly CompiledTool[]): SignatureLock {
  const byName = new Map<string, CompiledTool[]>();
  for (const t of tools) byName.set(t.signature.name, [...(byName.get(t.signature.name) ?? []), t]);
  const lock: SignatureLock = { lockfileVersion: LOCK_FORMAT, tools: {} };
  for (const name of [...byName.keys()].sort()) {
    const versions = byName.get(name)!.sort((a, b) => a.signature.version - b.signature.version);
    lock.tools[name] = Object.fromEntries(
      versions.map((t) => [String(t.signature.version), signatureHash(t.signature)]),
    );
  }
  return lock;
}

/** The lock file's text: stable key order, one version per line, a final newline. */
export function formatLock(lock: SignatureLock): string {
  return `${JSON.stringify(lock, null, 2)}\n`;
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
 * What changed since the lock, as error findings: a locked version whose
 * signature hash differs (lint.signature_drift, at the sculpt's `version`),
 * or a locked version no sculpt defines any more (lint.version_removed, at
 * the lock file). Versions not in the lock yet are not findings: they are
 * unpublished until `sculptor lock` runs.
 */
export function checkLock(tools: readonly CompiledTool[], lock: SignatureLock, lockFile: string): Finding[] {
  const findings: Finding[] = [];
  const byKey = new Map(tools.map((t) => [`${t.signature.name}@${t.signature.version}`, t]));
  for (const [name, versions] of Object.entries(lock.tools)) {
    for (const [version, hash] of Object.entries(versions)) {
      const tool = byKey.get(`${name}@${version}`);
      if (!tool) {
        findings.push(
          error(
            new SculptorError(
              'lint.version_removed',
              `${name} version ${version} is published (in ${LOCK_FILE}) but no sculpt defines it any more; agents pinned to it would break. Restore its file.`,
              { at: { file: lockFile, line: 1, column: 1 } },
            ),
          ),
        );
      } else if (signatureHash(tool.signature) !== hash) {
        findings.push(
          error(
            new SculptorError(
              'lint.signature_drift',
              `The signature of ${name} version ${version} changed since it was locked in ${LOCK_FILE}. A published version never changes (A2T §6.1): restore this file and put the change in a new version (version ${nextVersion(tools, name)}), then run sculptor lock.`,
              { at: tool.versionAt },
            ),
          ),
        );
      }
    }
  }
  return findings;
}

function nextVersion(tools: readonly CompiledTool[], name: string): number {
  return Math.max(0, ...tools.filter((t) => t.signature.name === name).map((t) => t.signature.version)) + 1;
}

/** Writes the lock atomically (temporary file, then rename). Returns the file written. */
export async function writeLock(dir: string, lock: SignatureLock): Promise<string> {
  const file = lockFileOf(dir);
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, formatLock(lock), 'utf8');
  await rename(temporary, file);
  return file;
}
