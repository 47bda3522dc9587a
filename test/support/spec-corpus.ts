/** The corpus of real OpenAPI descriptions (test/fixtures/specs, provenance in its SOURCES.md). */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

export const SPECS = join(import.meta.dirname, '../fixtures/specs');

/** A document, not a fragment: its top level has `openapi` or `swagger` (without parsing 2 MB of YAML twice). */
export function isEntryDocument(file: string, text: string): boolean {
  if (file.endsWith('.json')) {
    const top = JSON.parse(text) as Record<string, unknown>;
    return 'openapi' in top || 'swagger' in top;
  }
  // Top-level keys share the indentation of the first key (some files indent the whole document).
  const first = text.split('\n').find((line) => line.trim() !== '' && !/^\s*(#|---)/.test(line)) ?? '';
  const indent = /^\s*/.exec(first)![0];
  return new RegExp(`^${indent}(openapi|swagger):`, 'm').test(text);
}

/** Every JSON or YAML file of the corpus, relative to SPECS, sorted, split into entry documents and fragments. */
export async function corpusFiles(): Promise<{ entries: string[]; fragments: string[] }> {
  const files = (await readdir(SPECS, { recursive: true })).filter((f) => /\.(json|ya?ml)$/.test(f)).sort();
  const entries: string[] = [];
  const fragments: string[] = [];
  for (const file of files) {
    (isEntryDocument(file, await readFile(join(SPECS, file), 'utf8')) ? entries : fragments).push(file);
  }
  return { entries, fragments };
}
