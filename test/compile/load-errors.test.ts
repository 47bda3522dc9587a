import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type CompileOptions, compileSculpts } from '../../src/compile/compile-sculpts.ts';
import { SculptLoadError } from '../../src/errors/sculptor-error.ts';

interface LoadCase {
  name: string;
  files: Record<string, string>;
  /** Compile options, e.g. `requireHttps` as a serving gateway sets it. */
  options?: CompileOptions;
  expect: Array<{ code: string; file: string; line: number; column: number }>;
}

const here = path.dirname(new URL(import.meta.url).pathname);
const data = parse(await readFile(path.join(here, '../cases/load-errors.yaml'), 'utf8'), {
  maxAliasCount: 100,
}) as {
  backends: string;
  cases: LoadCase[];
};
const miniOpenApi = await readFile(path.join(here, '../fixtures/mini.openapi.yaml'), 'utf8');

/** Writes the case's files to a fresh folder and returns every error loading it reports. */
async function loadCase(c: LoadCase) {
  const dir = await mkdtemp(path.join(tmpdir(), 'sculptor-load-'));
  try {
    const files = { 'backends.yaml': data.backends, 'mini.openapi.yaml': miniOpenApi, ...c.files };
    for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, name), text);
    try {
      await compileSculpts(dir, {}, c.options);
      return [];
    } catch (err) {
      if (!(err instanceof SculptLoadError)) throw err;
      return err.errors.map((e) => ({
        code: e.code,
        file: path.relative(dir, e.at?.file ?? ''),
        line: e.at?.line,
        column: e.at?.column,
      }));
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('sculpt load errors (data cases in test/cases/load-errors.yaml)', () => {
  it.each(data.cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const errors = await loadCase(c);
    const order = (e: { line?: number; column?: number; code: string }) => `${e.line}:${e.column}:${e.code}`;
    expect([...errors].sort((a, b) => order(a).localeCompare(order(b)))).toEqual(
      [...c.expect].sort((a, b) => order(a).localeCompare(order(b))),
    );
  });
});
