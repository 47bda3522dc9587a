/**
 * Every real document under test/fixtures/specs (see its SOURCES.md): entry
 * documents load, except the ones listed below whose authors broke them
 * (swagger-parser cannot dereference those either); schema fragments of
 * multi-file documents are refused with load.openapi, never a crash. For a
 * sample of operations per document a request is built from synthetic values.
 * The large GitHub description is loaded once per form (JSON, YAML).
 */
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, describe, expect, it } from 'vitest';
import { type ErrorCode, SculptorError } from '../../src/errors/sculptor-error.ts';
import { buildRequest, parametersByKey, requiredParameters } from '../../src/openapi/build-request.ts';
import { loadOpenApi, type Operation } from '../../src/openapi/load-openapi.ts';
import { acceptsJson } from '../../src/openapi/media-type.ts';
import { corpusFiles, SPECS } from '../support/spec-corpus.ts';

const specs = SPECS;
const SAMPLE_PER_DOCUMENT = 5;
const FALLBACK_BASE = 'https://backend.example.test/base';

/** Entry documents that fail to load, and why. */
const EXPECTED_FAILURES: Record<string, string> = {
  // `$ref: /components/schemas/petdetails#pet_details_id` points at a 3.1 `$anchor`,
  // which json-schema-ref-parser does not resolve: "Invalid $ref pointer".
  'petstore/v3.1/petstore-code-first.openapi.json': 'Invalid $ref pointer "pet_details_id"',
  // Same `$anchor` reference (and an unquoted `$ref: #/…` that YAML reads as a comment, i.e. null).
  'petstore/v3.1/petstore-design-first.yaml': 'Invalid $ref pointer "pet_details_id"',
};

const { entries, fragments } = await corpusFiles();

let built = 0;
afterAll(() => {
  // The sample must exercise the builder, not only the refusals.
  expect(built).toBeGreaterThanOrEqual(150);
});

describe('the shared corpus', () => {
  it('has what SOURCES.md describes', () => {
    expect(entries.length).toBeGreaterThanOrEqual(60);
    expect(fragments.length).toBeGreaterThanOrEqual(30);
    for (const failing of Object.keys(EXPECTED_FAILURES)) expect(entries).toContain(failing);
  });
});

describe.each(entries)('%s', (file) => {
  const path = join(specs, file);
  const expectedFailure = EXPECTED_FAILURES[file];

  if (expectedFailure !== undefined) {
    it('fails with load.openapi, as it fails in swagger-parser itself', async () => {
      const error = await loadOpenApi(path).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SculptorError);
      expect((error as SculptorError).code).toBe('load.openapi');
      expect((error as SculptorError).message).toContain(expectedFailure);
      await expect(SwaggerParser.dereference(path, { resolve: { http: false } })).rejects.toThrow();
    });
    return;
  }

  it('loads, serializes, and builds requests for a sample of operations', async () => {
    const doc = await loadOpenApi(path);
    expect(['2.0', '3.0', '3.1']).toContain(doc.specVersion);
    expect(() => JSON.stringify(doc)).not.toThrow();

    const baseUrl = doc.servers.find((s) => /^https?:\/\/[^{}]+$/.test(s)) ?? FALLBACK_BASE;
    const base = new URL(baseUrl);
    const basePath = base.pathname.replace(/\/+$/, '');
    for (const op of sample(doc.operations)) {
      expect(op.method).toMatch(/^[A-Z]+$/);
      expect(op.path.startsWith('/')).toBe(true);
      const { params, body } = syntheticCall(op);
      const refusal = expectedRefusal(op);
      if (refusal !== undefined) {
        expect(() => buildRequest(op, baseUrl, params, body), `${op.method} ${op.path}`).toThrow(
          expect.objectContaining({ code: refusal }),
        );
        continue;
      }
      const request = buildRequest(op, baseUrl, params, body);
      built++;
      const url = new URL(request.url);
      const staticPrefix = op.path.slice(0, op.path.indexOf('{') === -1 ? undefined : op.path.indexOf('{'));
      expect(url.origin).toBe(base.origin);
      expect(decodeURIComponent(url.pathname).startsWith(`${basePath}${staticPrefix}`)).toBe(true);
      // Every placeholder was filled (synthetic values contain no braces).
      expect(decodeURIComponent(url.pathname), `${op.method} ${op.path}`).not.toMatch(/[{}]/);
      expect(request.method).toBe(op.method);
    }
  });
});

describe.each(fragments)('fragment %s', (file) => {
  it('is refused with load.openapi', async () => {
    const error = await loadOpenApi(join(specs, file)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SculptorError);
    expect((error as SculptorError).code).toBe('load.openapi');
  });
});

/** Up to SAMPLE_PER_DOCUMENT operations spread over the document. */
function sample(operations: Operation[]): Operation[] {
  if (operations.length <= SAMPLE_PER_DOCUMENT) return operations;
  const step = operations.length / SAMPLE_PER_DOCUMENT;
  return Array.from({ length: SAMPLE_PER_DOCUMENT }, (_, i) => operations[Math.floor(i * step)]!);
}

/** What building must refuse for operations the gateway cannot call as documented. */
function expectedRefusal(op: Operation): ErrorCode | undefined {
  // weatherbit.io writes query strings into its path templates (`/current?city={city}`).
  if (/[?#]/.test(op.path)) return 'compile.unsupported_operation';
  // A required body the gateway cannot send (multipart uploads, XML).
  if (op.requestBody?.required && !acceptsJson(op.requestBody.mediaType)) return 'compile.missing_param';
  return undefined;
}

function syntheticCall(op: Operation): { params: Record<string, unknown>; body?: unknown } {
  const byKey = parametersByKey(op);
  const params: Record<string, unknown> = {};
  for (const key of requiredParameters(op)) params[key] = syntheticValue(byKey.get(key)!.schema);
  const body = op.requestBody && acceptsJson(op.requestBody.mediaType) ? {} : undefined;
  return body === undefined ? { params } : { params, body };
}

/** enum first value, integer 1, string "x", boolean true (and arrays of those). */
function syntheticValue(schema: unknown): unknown {
  const s = (schema ?? {}) as Record<string, unknown>;
  const usable = Array.isArray(s.enum)
    ? s.enum.find((v) => ['string', 'number', 'boolean'].includes(typeof v) && v !== '')
    : undefined;
  if (usable !== undefined) return usable;
  const alternatives = s.oneOf ?? s.anyOf ?? s.allOf;
  if (Array.isArray(alternatives) && alternatives.length > 0) return syntheticValue(alternatives[0]);
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  if (type === 'integer' || type === 'number') return 1;
  if (type === 'boolean') return true;
  if (type === 'array') return [syntheticValue(s.items)];
  return 'x';
}
