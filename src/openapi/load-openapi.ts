/**
 * Loads one OpenAPI document (Swagger 2.0, OAS 3.0 or 3.1; JSON or YAML; one
 * file or several joined by relative `$ref`s) into the version-independent
 * model the compile stage works from. Loading happens once at boot or reload,
 * never per request (RELIABILITY H6).
 *
 * swagger-parser reads and parses every file and checks the version; it does
 * not validate here, because real vendor documents often break the schema in
 * ways that do not matter to us (a missing `info.version`), and a designer
 * should still be able to use them. What we read is checked as we read it.
 *
 * Dereferencing: a one-file document whose references are all plain JSON
 * pointers (`{ "$ref": "#/…" }`, nothing beside them, no `$id` or other
 * scope) — the large vendor descriptions — is not dereferenced as a whole. Its references are
 * followed where the model reads them, through swagger-parser's own pointer
 * resolution, so only what the operations reach is walked, and once; nor is
 * it crawled for references to other files, since it has none. Schemas,
 * however the document was read, are lazy views (schema-views.ts): a
 * reference inside a schema is followed when a reader first goes through it,
 * and recursion stays a reference, so Stripe's recursive "expandable" fields
 * cost what is read of them.
 * swagger-parser's resolve and dereference of the 6.6 MB GitHub description
 * (path strings and bookkeeping per node) raised the peak RSS of a process by
 * ≈ 200 MB and took over a second (docs/PERFORMANCE.md). Every other
 * document (several files, `$id` scopes, `$ref`s with siblings) is dereferenced
 * by swagger-parser as before. Both ways give the same model (a test compares
 * them over the spec corpus); one difference: a broken reference that no
 * operation reaches is not an error on the first way, and one inside a schema
 * reads as an open schema (`x-unresolved-ref`). The limits (bytes, schema
 * depth, schema nodes materialized) are settings (openapi-limits.ts).
 */
import { resolve } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { SculptorError } from '../errors/sculptor-error.ts';
import { isRecord } from './is-record.ts';
import { type ByteBudget, localRefResolver } from './local-ref-resolver.ts';
import { normalizeOperations, type Operation, type SpecVersion } from './normalize-operations.ts';
import { type OpenApiLimits, openApiLimits, raiseHint } from './openapi-limits.ts';
import { readServers } from './read-servers.ts';
import { type Deref, schemaViews } from './schema-views.ts';
import { type ClientCredentialsFlow, clientCredentialsFlow } from './security-schemes.ts';
import { strictYamlParser } from './strict-yaml-parser.ts';

export type { Operation, OperationResponse, RequestBody, SpecVersion } from './normalize-operations.ts';
// The model's parts are defined where they are produced; callers import them from here.
export type { OperationParameter, ParameterLocation } from './normalize-parameter.ts';

/** A described API: an OpenAPI document, or a WSDL 1.1 description loaded into the same model (src/soap/load-wsdl.ts). */
export interface OpenApiDocument {
  /** The path as given to `loadOpenApi`. */
  file: string;
  specVersion: SpecVersion;
  title: string;
  /** Declared base URLs, server variables replaced by their defaults, no trailing slash. */
  servers: string[];
  operations: Operation[];
  /** Operations the description declares that cannot be called, and why (a WSDL's non-SOAP ports…). */
  unsupported?: Array<{ operation: string; reason: string }>;
  /** The client-credentials flow the document declares, for `oauth` blocks that leave it out. */
  oauthFlow: ClientCredentialsFlow | undefined;
}

/** Dereferencing time budget; the 3 MB GitHub description needs well under a second. */
const DEREFERENCE_TIMEOUT_MS = 10_000;

export interface LoadOptions {
  /** Dereference the whole document with the library, whatever it holds (tests compare both ways). */
  fullDereference?: boolean;
  /** Instead of the SCULPTOR_OPENAPI_* settings of the environment (openapi-limits.ts). */
  limits?: Partial<OpenApiLimits>;
}

export async function loadOpenApi(file: string, options: LoadOptions = {}): Promise<OpenApiDocument> {
  const limits = { ...openApiLimits(), ...options.limits };
  let api: unknown;
  let deref: Deref | undefined;
  const refNames = new Map<object, string>();
  try {
    // Parsing alone (the entry file, version checked): the library's resolve step would
    // crawl the whole document for references to other files, which a document of
    // local pointers does not have.
    const parser = new SwaggerParser();
    const parsed: unknown = await parser.parse(resolve(file), parserOptions(refNames, limits));
    const files = parser.$refs.paths();
    if (!options.fullDereference && files.length === 1 && localPointersOnly(parsed)) {
      api = parsed;
      deref = followPointers(parser.$refs, files[0]!, refNames);
    } else {
      // Read again (a fresh byte budget): the library dereferences it all, exactly as it always did.
      api = await new SwaggerParser().dereference(resolve(file), parserOptions(refNames, limits));
    }
  } catch (error) {
    throw new SculptorError('load.openapi', `Cannot load OpenAPI document ${file}: ${reasonOf(error)}`, {
      cause: error,
    });
  }
  try {
    if (!isRecord(api)) throw new Error('the document is not an object');
    const specVersion = versionOf(api);
    const views = schemaViews({ file, limits, refNames, ...(deref ? { deref } : {}) });
    const declared = deref ? deref(api.info) : api.info;
    const info = isRecord(declared) ? declared : {};
    return {
      file,
      specVersion,
      title: typeof info.title === 'string' ? info.title : '',
      servers: readServers(api, deref),
      operations: normalizeOperations(api, specVersion, views, deref),
      oauthFlow: clientCredentialsFlow(api, (value) => (deref ? deref(value) : value)),
    };
  } catch (error) {
    if (error instanceof SculptorError) throw error; // a limit hit, which says what to do
    throw new SculptorError('load.openapi', `Invalid OpenAPI document ${file}: ${reasonOf(error)}`, {
      cause: error,
    });
  }
}

function parserOptions(refNames: Map<object, string>, limits: OpenApiLimits): SwaggerParser.Options {
  const budget: ByteBudget = {
    limit: limits.maxBytes,
    remaining: limits.maxBytes,
    hint: raiseHint('maxBytes', limits),
  };
  return {
    // Text and binary parsers would let a $ref pull any file in as a string.
    parse: { yaml: strictYamlParser, text: false, binary: false },
    resolve: { external: true, file: localRefResolver(budget), http: false },
    dereference: {
      // Recursive schemas become object cycles (never an endless walk), which
      // schema-views.ts represents as they are. With 'ignore' the
      // library would leave the whole recursive schema as an opaque `$ref`.
      circular: true,
      onDereference: (ref: string, value: object) => {
        if (!refNames.has(value)) refNames.set(value, ref);
      },
    },
    timeoutMs: DEREFERENCE_TIMEOUT_MS,
  };
}

/** Keys that give JSON Schema references a scope of their own: left to the library. */
const SCOPE_KEYS = new Set(['$id', '$schema', '$anchor', '$dynamicAnchor', '$dynamicRef', '$recursiveRef']);
/** Beyond these, the walk gives up and the library dereferences (a nest this deep is unusual). */
const MAX_WALK_DEPTH = 1_000;
const MAX_WALK_NODES = 5_000_000;

/**
 * Whether every reference in a parsed (not dereferenced) document is a plain
 * local JSON pointer — `{ "$ref": "#/…" }` with nothing beside it — and no
 * schema sets a scope. Then following a reference means resolving a pointer.
 */
export function localPointersOnly(root: unknown): boolean {
  const stack: Array<[unknown, number]> = [[root, 0]];
  let nodes = 0;
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (++nodes > MAX_WALK_NODES || depth > MAX_WALK_DEPTH) return false;
    if (Array.isArray(value)) {
      for (const item of value) if (typeof item === 'object' && item !== null) stack.push([item, depth + 1]);
      continue;
    }
    const record = value as Record<string, unknown>;
    if (typeof record.$ref === 'string' && record.$ref !== '') {
      if (!record.$ref.startsWith('#/') || Object.keys(record).length !== 1) return false;
      continue;
    }
    for (const key in record) {
      if (SCOPE_KEYS.has(key)) return false;
      const child = record[key];
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return true;
}

/**
 * Follows `{ "$ref": "#/…" }` through swagger-parser's `$refs` (its pointer
 * rules, its chains of references, its error messages). Each reference is
 * resolved once; `refNames` learns which reference first named each target,
 * as the library's `onDereference` would have told it.
 */
function followPointers(
  $refs: { get(path: string): unknown },
  rootPath: string,
  refNames: Map<object, string>,
): Deref {
  const targets = new Map<string, unknown>();
  return (value) => {
    if (!isRecord(value) || typeof value.$ref !== 'string' || value.$ref === '') return value;
    const ref = value.$ref;
    if (targets.has(ref)) return targets.get(ref);
    const target = $refs.get(`${rootPath}${ref}`);
    targets.set(ref, target);
    if (typeof target === 'object' && target !== null && !refNames.has(target)) refNames.set(target, ref);
    return target;
  };
}

function versionOf(api: Record<string, unknown>): SpecVersion {
  // swagger-parser has already refused versions it does not know.
  if (api.swagger === '2.0') return '2.0';
  if (typeof api.openapi === 'string' && api.openapi.startsWith('3.0')) return '3.0';
  if (typeof api.openapi === 'string' && api.openapi.startsWith('3.1')) return '3.1';
  throw new Error(`unsupported version ${String(api.openapi ?? api.swagger)}`);
}

function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // Library messages can span lines (YAML excerpts); one line reads better in a report.
  return message.replace(/\s*\n\s*/g, ' ').trim() || 'unknown error';
}
