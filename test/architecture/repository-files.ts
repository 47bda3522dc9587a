/**
 * The repository's files as a commit of this checkout would hold them, for the architecture
 * tests that read every file: tracked ones and new ones not ignored.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');

export function repositoryFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
    cwd: ROOT,
    maxBuffer: 64 * 1024 * 1024,
  });
  return out.toString('utf8').split('\0').filter(Boolean);
}

/** A file's text; undefined for a binary file or one deleted in the work tree but still in the index. */
export function textOf(file: string): string | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path.join(ROOT, file));
  } catch {
    return undefined;
  }
  return bytes.includes(0) ? undefined : bytes.toString('utf8');
}
