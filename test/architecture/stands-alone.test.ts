/**
 * The repository stands alone: a clone with nothing beside it must pass `npm test`, so no
 * tracked file may read, import or link a path outside the checkout. Every relative path that
 * climbs (`../…`) is resolved from the file that writes it and must stay inside the repository;
 * absolute paths into a workstation's folders, and the names of the corpora the project once
 * read from beside itself, are refused wherever they appear. What the tests need is copied into
 * test/fixtures with its provenance (each folder's SOURCES.md).
 */
import path from 'node:path';
import { expect, it } from 'vitest';
import { repositoryFiles, ROOT, textOf } from './repository-files.ts';

/** Where a file's relative paths start from, when not its own folder: the lint's import globs are written from a face's folder. */
const WRITTEN_FROM: Record<string, string> = { 'eslint.config.js': 'src/faces/a2t' };

function leaves(file: string, climbing: string): boolean {
  const target = path.resolve(ROOT, WRITTEN_FROM[file] ?? path.dirname(file), climbing);
  return target !== ROOT && !target.startsWith(ROOT + path.sep);
}

/** A path that climbs: one or more `../`, then whatever names follow. */
const CLIMBING = /(?<![\w.])(?:\.\.\/)+[\w@.-]*(?:\/[\w@.-]+)*/g;
/** Places that exist only on the team's machines. */
const OUTSIDE = /\/work\/|(?<![\w-])shared\/(?:specs|recordings|seeds|design|jsonata-test-suite|hooks)\b/g;

it('no file refers to a path outside the repository', () => {
  const found: string[] = [];
  for (const file of repositoryFiles()) {
    const text = textOf(file);
    if (text === undefined) continue;
    const lineOf = (index: number) => text.slice(0, index).split('\n').length;
    for (const match of text.matchAll(CLIMBING)) {
      if (leaves(file, match[0]))
        found.push(`${file}:${lineOf(match.index)} ${match[0]} leaves the repository`);
    }
    for (const match of text.matchAll(OUTSIDE))
      found.push(`${file}:${lineOf(match.index)} ${match[0]} is not part of the repository`);
  }
  expect(found).toEqual([]);
});

it('catches a reference to a folder beside the checkout', () => {
  // The same patterns, on what a careless edit would write (assembled, so this file holds none).
  const up = (n: number) => '../'.repeat(n);
  const shared = (folder: string) => ['shared', folder].join('/');
  const samples = [
    ['test/x.test.ts', `join(import.meta.dirname, '${up(3)}${shared('specs')}')`],
    ['README.md', `[a2t-lite](${up(1)}${shared('seeds')}/a2t-lite-protocol.md)`],
    ['test/y.ts', `const RECORDINGS = '${['', 'work', shared('recordings')].join('/')}';`],
    ['src/faces/a2t/a2t-face.ts', `import x from '${up(4)}elsewhere/x.ts';`],
  ] as const;
  for (const [file, text] of samples) {
    const climbs = [...text.matchAll(CLIMBING)].some((m) => leaves(file, m[0]));
    const outside = [...text.matchAll(OUTSIDE)].length > 0;
    expect(climbs || outside, `${file}: ${text}`).toBe(true);
  }
  // And lets a path inside the repository be.
  expect(leaves('src/faces/a2t/a2t-face.ts', `${up(1)}common/face.ts`)).toBe(false);
});
