/**
 * One OpenAPI parameter (Swagger 2 or OAS 3) → the version-independent
 * `OperationParameter`, with OAS 3 serialization rules (style/explode) filled
 * in, so the request builder never has to know which version a document was.
 */
import { isRecord } from './is-record.ts';
import type { Deref, SchemaCopier } from './schema-views.ts';

const same: Deref = (value) => value;

export type ParameterLocation = 'path' | 'query' | 'header' | 'cookie';

export interface OperationParameter {
  name: string;
  in: ParameterLocation;
  /** Always true for path parameters, whatever the document says (OAS: path parameters are required). */
  required: boolean;
  schema?: object;
  /** OAS 3 style: simple, label, matrix, form, spaceDelimited, pipeDelimited, deepObject (+ tabDelimited from Swagger 2 `tsv`). */
  style: string;
  explode: boolean;
  allowReserved: boolean;
  /** Set when an OAS 3 parameter uses `content` instead of `schema`: the value is sent serialized as this media type. */
  mediaType?: string;
}

const LOCATIONS = new Set<string>(['path', 'query', 'header', 'cookie']);

/** OAS 3 default styles by location. */
export function defaultStyle(location: ParameterLocation): string {
  return location === 'query' || location === 'cookie' ? 'form' : 'simple';
}

export function normalizeOas3Parameter(
  raw: Record<string, unknown>,
  copySchema: SchemaCopier,
  deref: Deref = same,
): OperationParameter {
  const { name, location } = nameAndLocation(raw);
  const style = typeof raw.style === 'string' ? raw.style : defaultStyle(location);
  const param: OperationParameter = {
    name,
    in: location,
    required: location === 'path' || raw.required === true,
    style,
    explode: typeof raw.explode === 'boolean' ? raw.explode : style === 'form',
    allowReserved: raw.allowReserved === true,
  };
  const content = deref(raw.content);
  if (isRecord(content)) {
    // `content` holds exactly one media type; its schema describes the value.
    const [mediaType, entry] = Object.entries(content)[0] ?? [];
    if (mediaType !== undefined) param.mediaType = mediaType;
    const media = deref(entry);
    const schema = copySchema(isRecord(media) ? media.schema : undefined);
    if (schema) param.schema = schema;
  } else {
    const schema = copySchema(raw.schema);
    if (schema) param.schema = schema;
  }
  return param;
}

/** Swagger 2 `collectionFormat` → OAS 3 style/explode (OAS 3.0 spec, "Style Values" vs 2.0). */
const COLLECTION_FORMATS: Record<string, { style?: string; explode: boolean }> = {
  csv: { explode: false }, // style stays the location default: form (query) or simple (path/header)
  ssv: { style: 'spaceDelimited', explode: false },
  pipes: { style: 'pipeDelimited', explode: false },
  // No OAS 3 equivalent; kept under a name of our own so the builder joins with a tab rather than guess.
  tsv: { style: 'tabDelimited', explode: false },
  multi: { style: 'form', explode: true },
};

/** A Swagger 2 non-body parameter (path, query, header). */
export function normalizeSwagger2Parameter(
  raw: Record<string, unknown>,
  copySchema: SchemaCopier,
  deref: Deref = same,
): OperationParameter {
  const { name, location } = nameAndLocation(raw);
  let style = defaultStyle(location);
  let explode = style === 'form';
  if (raw.type === 'array') {
    const format = typeof raw.collectionFormat === 'string' ? raw.collectionFormat : 'csv';
    const mapped = COLLECTION_FORMATS[format];
    if (!mapped) throw new Error(`parameter "${name}" has unknown collectionFormat "${format}"`);
    style = mapped.style ?? style;
    explode = mapped.explode;
  }
  const param: OperationParameter = {
    name,
    in: location,
    required: location === 'path' || raw.required === true,
    style,
    explode,
    allowReserved: false,
  };
  const schema = copySchema(swagger2Schema(raw, deref));
  if (schema) param.schema = schema;
  return param;
}

/** JSON Schema keywords a Swagger 2 parameter or items object may carry next to `type`. */
const SCHEMA_KEYWORDS = [
  'type',
  'format',
  'enum',
  'default',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'uniqueItems',
];

/**
 * The schema a Swagger 2 parameter describes inline (`type`, `format`, `items`…),
 * as a JSON Schema. Nested `items` keep their own keywords; their
 * `collectionFormat` (arrays of arrays) has no OAS 3 equivalent and is dropped.
 */
export function swagger2Schema(raw: Record<string, unknown>, deref: Deref = same): Record<string, unknown> {
  const schema: Record<string, unknown> = {};
  // Keyword values are copied (and their references followed) by the schema copier.
  for (const key of SCHEMA_KEYWORDS) if (raw[key] !== undefined) schema[key] = raw[key];
  // A formData file upload is a binary string in OAS 3 terms.
  if (raw.type === 'file') Object.assign(schema, { type: 'string', format: 'binary' });
  const items = deref(raw.items);
  if (isRecord(items)) schema.items = swagger2Schema(items, deref);
  return schema;
}

function nameAndLocation(raw: Record<string, unknown>): { name: string; location: ParameterLocation } {
  const { name, in: location } = raw;
  if (typeof name !== 'string' || name === '') throw new Error('a parameter has no name');
  if (typeof location !== 'string' || !LOCATIONS.has(location)) {
    throw new Error(`parameter "${name}" has unsupported location "${String(location)}"`);
  }
  return { name, location: location as ParameterLocation };
}
