import { rename, writeFile } from 'node:fs/promises';
import type { CompiledTool } from '../compile/compile-tool.ts';
import {
  LOCK_FORMAT,
  lockDrift,
  lockFileOf,
  type SignatureLock,
  signatureHash,
} from '../compile/signature-lock.ts';
import { error, type Finding } from './findings.ts';

/*
 * Reading and comparing the lock lives with the compiled signatures
 * (src/compile/signature-lock.ts), where the gateway checks it at start and
 * on every reload; writing it is the designer's (`sculptor lock`).
 */
export {
  LOCK_FILE,
  LOCK_FORMAT,
  lockFileOf,
  readLock,
  type SignatureLock,
  signatureHash,
} from '../compile/signature-lock.ts';

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

/**
 * What changed since the lock, as error findings (lint.signature_drift at the
 * sculpt's `version`, lint.version_removed at the lock file): the same errors
 * the gateway refuses a catalog for.
 */
export function checkLock(tools: readonly CompiledTool[], lock: SignatureLock, lockFile: string): Finding[] {
  return lockDrift(tools, lock, lockFile).map(error);
}

/** Writes the lock atomically (temporary file, then rename). Returns the file written. */
export async function writeLock(dir: string, lock: SignatureLock): Promise<string> {
  const file = lockFileOf(dir);
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, formatLock(lock), 'utf8');
  await rename(temporary, file);
  return file;
}
