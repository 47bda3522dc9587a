/**
 * The only way json-schema-ref-parser may read anything while an OpenAPI
 * document loads: local files reached by relative `$ref`s, within a byte budget.
 *
 * Why a resolver of our own rather than the library's `file` and `http` ones:
 * - no network at load (RELIABILITY H5): an `http(s)://` reference must fail
 *   before any socket opens, whatever the library's defaults become;
 * - no reads outside what a multi-file document needs: absolute references
 *   (`file:///etc/passwd`, `/etc/passwd`) and files that are not JSON/YAML are
 *   refused, so a document cannot pull arbitrary local files into memory;
 * - the size cap (H1/H6) holds for the whole document, checked with `fstat`
 *   before a byte is read, not after parsing.
 */
import { open } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** Bytes left for the entry file and every file it references, shared by one load. */
export interface ByteBudget {
  readonly limit: number;
  remaining: number;
  /** What to do about a document over the limit (the setting to raise). */
  readonly hint: string;
}

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
const REFERENCED_EXTENSIONS = new Set(['.json', '.yaml', '.yml']);

/** Minimal shape of json-schema-ref-parser's `FileInfo` that this resolver reads. */
interface RefFile {
  url: string;
  /** The `$ref` as written; absent for the entry file. */
  reference?: string;
  /** Where the `$ref` was found: the referencing file's URL with a JSON pointer. */
  baseUrl?: string;
  extension: string;
}

export function localRefResolver(budget: ByteBudget) {
  return {
    name: 'local',
    // Runs before anything else and claims every URL, so refusal is decided here.
    order: 1,
    canRead: true,
    read: (file: RefFile): Promise<Buffer> => readLocal(file, budget),
  };
}

function refusal(ref: string, extension: string): string | undefined {
  if (SCHEME.test(ref)) return `$ref "${ref}" refused: only relative references to local files`;
  if (ref.startsWith('/') || ref.startsWith('\\')) return `absolute $ref "${ref}" refused`;
  if (!REFERENCED_EXTENSIONS.has(extension)) {
    return `$ref "${ref}" refused: only .json, .yaml and .yml files may be referenced`;
  }
  return undefined;
}

/** True when the pointer part of `base` passes through an `x-…` key (a schema property named so does not count). */
function inVendorExtension(base: string | undefined): boolean {
  const pointer = base?.split('#')[1] ?? '';
  const segments = pointer.split('/');
  return segments.some((segment, i) => segment.startsWith('x-') && segments[i - 1] !== 'properties');
}

async function readLocal(file: RefFile, budget: ByteBudget): Promise<Buffer> {
  const ref = file.reference;
  if (ref !== undefined) {
    const refused = refusal(ref, file.extension);
    if (refused !== undefined) {
      // Vendor extensions (`x-codeSamples: [{ source: { $ref: get.cs } }]`) are
      // not part of the model, so what they point at is never fetched or read:
      // it resolves to nothing instead of failing the document.
      if (inVendorExtension(file.baseUrl)) return Buffer.alloc(0);
      throw new Error(refused);
    }
  }
  // A relative reference inside a document reached over a non-file base (an
  // OAS 3.1 `$id` such as https://…) resolves to a network URL: refused too.
  const scheme = SCHEME.exec(file.url)?.[0].toLowerCase();
  if (scheme !== undefined && scheme !== 'file:')
    throw new Error(`$ref to "${file.url}" refused: no network access at load`);

  const path = fileURLToPath(scheme === 'file:' ? file.url : new URL(`file://${file.url}`));
  const handle = await open(path, 'r');
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new Error(`${path} is not a regular file`);
    if (stat.size > budget.remaining) {
      throw new Error(
        `${path} (${stat.size} bytes) takes the document over its ${budget.limit}-byte limit; ${budget.hint}`,
      );
    }
    budget.remaining -= stat.size;
    const data = Buffer.alloc(stat.size);
    const { bytesRead } = await handle.read(data, 0, stat.size, 0);
    return data.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
