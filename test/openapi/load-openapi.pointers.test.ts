/**
 * loadOpenApi follows the references of a one-file, local-pointer document
 * where the model reads them, instead of having swagger-parser dereference the
 * whole document (docs/PERFORMANCE.md, start-up memory). Both ways must give
 * the same model: for every document of the shared corpus and of the test
 * fixtures, the default load is compared with a full dereference.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { SculptorError } from '../../src/errors/sculptor-error.ts';
import { loadOpenApi, localPointersOnly } from '../../src/openapi/load-openapi.ts';

const specs = join(import.meta.dirname, '../fixtures/specs');
const fixtures = join(import.meta.dirname, 'fixtures');

const documents = [
  ...(await readdir(specs, { recursive: true })).map((f) => join(specs, f)),
  ...(await readdir(fixtures, { recursive: true })).map((f) => join(fixtures, f)),
]
  .filter((f) => /\.(json|ya?ml)$/.test(f))
  .sort();

async function outcome(file: string, fullDereference: boolean): Promise<unknown> {
  try {
    const doc = await loadOpenApi(file, { fullDereference });
    return { doc: JSON.parse(JSON.stringify(doc)) as unknown };
  } catch (error) {
    return { error: error instanceof SculptorError ? error.code : String(error) };
  }
}

let followed = 0;
afterAll(() => {
  // The comparison must cover documents read the new way, large ones included.
  expect(followed).toBeGreaterThanOrEqual(50);
});

describe.each(documents)('%s', (file) => {
  // Two loads of the GitHub YAML (2.4 MB) take ~10 s each on a busy 2-core machine.
  it('gives the same model as a full dereference', { timeout: 90_000 }, async () => {
    const text = await readFile(file, 'utf8');
    let pointers = false;
    try {
      pointers = localPointersOnly(file.endsWith('.json') ? JSON.parse(text) : parseYaml(text));
    } catch {
      // Not parseable here (duplicate keys, alias bombs…): both loads refuse it.
    }
    const [followedWay, dereferencedWay] = [await outcome(file, false), await outcome(file, true)];
    expect(followedWay).toEqual(dereferencedWay);
    if (pointers && 'doc' in (followedWay as object)) followed++;
  });
});
