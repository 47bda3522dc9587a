import { readFile } from 'node:fs/promises';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { SculptorError } from '../errors/sculptor-error.ts';
import { schemaErrors } from '../sculpt/validate-schema.ts';
import { parseYamlSource, type YamlSource } from '../sculpt/yaml-source.ts';
import type { ArazzoDocument } from './arazzo-document.ts';
import arazzoSchema from './arazzo.schema.json' with { type: 'json' };

/**
 * An Arazzo description is data a third party may have written (its Security Considerations say
 * so): the largest of the 40 real descriptions in the test corpus is ≈ 90 KB; 4 MiB is far past
 * any hand-written or generated one, and still cheap to parse with positions.
 */
export const MAX_ARAZZO_BYTES = 4 * 1024 * 1024;

/** A parsed Arazzo description that still knows where every value came from. */
export interface ArazzoSource {
  file: string;
  source: YamlSource;
  doc: ArazzoDocument;
}

/*
 * The specification's own JSON Schema (2020-12), as published with it, checks the shape: the one
 * validator every Arazzo tool agrees on, so a document Sculptor accepts is one the others accept.
 * Semantics the schema cannot say (references, runtime expressions, criteria) are checked where
 * the workflow is compiled, each at its own position.
 */
// `uri-reference` is the only format it names (a source's url): resolved, and so checked, where
// the source is loaded.
// Compiled on the first description read, so commands and folders without one do not pay for it.
let validate: ValidateFunction | undefined;
const validator = () =>
  (validate ??= new Ajv2020({ allErrors: true, strict: false, formats: { 'uri-reference': true } }).compile(
    arazzoSchema,
  ));

/** Reads and checks one Arazzo description (JSON or YAML); every problem, each at `file:line:col`. */
export async function loadArazzo(file: string): Promise<{ arazzo?: ArazzoSource; errors: SculptorError[] }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const message = `Cannot read the Arazzo description: ${(err as Error).message}`;
    return {
      errors: [new SculptorError('load.io', message, { at: { file, line: 1, column: 1 }, cause: err })],
    };
  }
  return parseArazzo(file, text);
}

export function parseArazzo(file: string, text: string): { arazzo?: ArazzoSource; errors: SculptorError[] } {
  // JSON is YAML: one parser gives positions for both forms (and refuses duplicate keys in both).
  const parsed = parseYamlSource(file, text, MAX_ARAZZO_BYTES);
  if (!parsed.source) return { errors: parsed.errors };
  const source = parsed.source;
  const value = source.value as { arazzo?: unknown } | null;
  if (typeof value !== 'object' || value === null || typeof value.arazzo !== 'string') {
    return {
      errors: [
        new SculptorError(
          'load.schema',
          "Not an Arazzo description: it has no 'arazzo' version field (e.g. arazzo: 1.0.1).",
          { at: source.at([]) },
        ),
      ],
    };
  }
  const errors = schemaErrors(validator(), source);
  if (errors.length > 0) return { errors };
  return { arazzo: { file, source, doc: source.value as ArazzoDocument }, errors: [] };
}
