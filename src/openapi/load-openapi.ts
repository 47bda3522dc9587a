/**
 * Loads one OpenAPI document (Swagger 2.0, OAS 3.0 or 3.1; JSON or YAML; one
 * file or several joined by relative `$ref`s) into the version-independent
 * model the compile stage works from. Loading happens once at boot or reload,
 * never per request (RELIABILITY H6).
 *
 * swagger-parser dereferences; it does not validate here, because real vendor
 * documents often break the schema in ways that do not matter to us (a missing
 * `info.version`), and a designer should still be able to use them. What we
 * read is checked as we read it instead.
 */
import { resolve } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { SculptorError } from '../errors/sculptor-error.ts';
import { isRecord } from './is-record.ts';
import { type ByteBudget, localRefResolver } from './local-ref-resolver.ts';
import { normalizeOperations, type Operation, type SpecVersion } from './normalize-operations.ts';
import { readServers } from './read-servers.ts';
import { strictYamlParser } from './strict-yaml-parser.ts';

export type { Operation, OperationResponse, RequestBody, SpecVersion } from './normalize-operations.ts';
// The model's parts are defined where they are produced; callers import them from here.
export type { OperationParameter, ParameterLocation } from './normalize-parameter.ts';

export interface OpenApiDocument {
  /** The path as given to `loadOpenApi`. */
  file: string;
  specVersion: SpecVersion;
  title: string;
  /** Declared base URLs, server variables replaced by their defaults, no trailing slash. */
  servers: string[];
  operations: Operation[];
}

/** RELIABILITY H1: an OpenAPI document, all its files together, is at most 10 MiB. */
export const MAX_OPENAPI_BYTES = 10 * 1024 * 1024;
/** Dereferencing time budget; the 3 MB GitHub description needs well under a second. */
const DEREFERENCE_TIMEOUT_MS = 10_000;

export async function loadOpenApi(file: string): Promise<OpenApiDocument> {
  let api: unknown;
  const refNames = new Map<object, string>();
  try {
    api = await new SwaggerParser().dereference(resolve(file), parserOptions(refNames));
  } catch (error) {
    throw new SculptorError('load.openapi', `Cannot load OpenAPI document ${file}: ${reasonOf(error)}`, {
      cause: error,
    });
  }
  try {
    if (!isRecord(api)) throw new Error('the document is not an object');
    const specVersion = versionOf(api);
    const info = isRecord(api.info) ? api.info : {};
    return {
      file,
      specVersion,
      title: typeof info.title === 'string' ? info.title : '',
      servers: readServers(api),
      operations: normalizeOperations(api, specVersion, refNames),
    };
  } catch (error) {
    throw new SculptorError('load.openapi', `Invalid OpenAPI document ${file}: ${reasonOf(error)}`, {
      cause: error,
    });
  }
}

function parserOptions(refNames: Map<object, string>): SwaggerParser.Options {
  const budget: ByteBudget = { limit: MAX_OPENAPI_BYTES, remaining: MAX_OPENAPI_BYTES };
  return {
    // Text and binary parsers would let a $ref pull any file in as a string.
    parse: { yaml: strictYamlParser, text: false, binary: false },
    resolve: { external: true, file: localRefResolver(budget), http: false },
    dereference: {
      // Recursive schemas become object cycles (never an endless walk), which
      // json-safe-schema.ts cuts when copying what we keep. With 'ignore' the
      // library would leave the whole recursive schema as an opaque `$ref`.
      circular: true,
      onDereference: (ref: string, value: object) => {
        if (!refNames.has(value)) refNames.set(value, ref);
      },
    },
    timeoutMs: DEREFERENCE_TIMEOUT_MS,
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
