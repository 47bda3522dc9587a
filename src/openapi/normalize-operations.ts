/**
 * The operations of a Swagger 2 / OAS 3.x document, as one version-independent
 * list. Only what later stages use is kept (parameters, bodies, response media
 * types and schemas, security). Schemas are lazy views (schema-views.ts): what
 * a sculpt's tooling never reads is never materialized. The document is either
 * dereferenced already, or read through `deref`, which follows each `$ref`
 * where one is met (load-openapi.ts).
 */
import { SculptorError } from '../errors/sculptor-error.ts';
import { isRecord } from './is-record.ts';
import type { OperationCodec } from './operation-codec.ts';
import type { Deref, SchemaCopier, SchemaViews } from './schema-views.ts';
import { jsonFirst } from './media-type.ts';
import {
  normalizeOas3Parameter,
  normalizeSwagger2Parameter,
  type OperationParameter,
  swagger2Schema,
} from './normalize-parameter.ts';

/** The description's kind and version: Swagger 2.0, OpenAPI 3.0 or 3.1, or a WSDL 1.1 SOAP service (src/soap). */
export type SpecVersion = '2.0' | '3.0' | '3.1' | 'wsdl-1.1';

export interface RequestBody {
  required: boolean;
  /** The one media type the gateway will send: the first JSON-ish one declared, else the first declared. */
  mediaType: string;
  schema?: object;
  /**
   * The body's fields are exactly its schema's (a SOAP message): `check` refuses a field the
   * schema lacks and a required one never supplied, as it does for parameters.
   */
  strictFields?: boolean;
}

export interface OperationResponse {
  /** Every media type declared for this response, in document order. */
  mediaTypes: string[];
  /** Schema of the first JSON-ish media type (else the first one). */
  schema?: object;
}

export interface Operation {
  operationId?: string;
  /** Upper-case HTTP method. */
  method: string;
  /**
   * Path template exactly as written in the document, e.g. `/gridpoints/{wfo}/{x},{y}/forecast`;
   * for a SOAP operation, `#` and its name (it is posted to the base URL itself).
   */
  path: string;
  summary?: string;
  description?: string;
  /** Path-level and operation-level parameters merged (operation wins); never Swagger 2 `body`/`formData`. */
  parameters: OperationParameter[];
  /** OAS 3 `requestBody`, or Swagger 2 `in: body` / `formData` parameters. */
  requestBody?: RequestBody;
  /** By status code string (`"200"`, `"2XX"`) or `"default"`. */
  responses: Record<string, OperationResponse>;
  security: Array<Record<string, string[]>>;
  deprecated: boolean;
  /** How a call is built and its answer read, when not by OpenAPI's rules (a SOAP binding's). */
  codec?: OperationCodec;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** What a Swagger 2 operation inherits from the document. */
interface Inherited {
  version: SpecVersion;
  consumes: string[];
  produces: string[];
  security: Array<Record<string, string[]>>;
  views: SchemaViews;
  deref: Deref;
}

/** `views`: the document's schemas. `deref`: follows references, for a document that is not dereferenced. */
export function normalizeOperations(
  api: Record<string, unknown>,
  version: SpecVersion,
  views: SchemaViews,
  deref: Deref = (value) => value,
): Operation[] {
  const paths = deref(api.paths) ?? {}; // OAS 3.1 documents may hold only webhooks
  if (!isRecord(paths)) throw new Error('"paths" is not an object');
  const inherited: Inherited = {
    version,
    consumes: strings(api.consumes, deref),
    produces: strings(api.produces, deref),
    security: securityRequirements(api.security, deref),
    views,
    deref,
  };
  const operations: Operation[] = [];
  for (const [path, entry] of Object.entries(paths)) {
    if (path.startsWith('x-')) continue;
    if (!path.startsWith('/')) throw new Error(`path "${path}" does not start with "/"`);
    const item = deref(entry);
    if (!isRecord(item)) throw new Error(`path "${path}" is not an object`);
    for (const method of METHODS) {
      const raw = deref(item[method]);
      if (raw === undefined) continue;
      const where = `${method.toUpperCase()} ${path}`;
      if (!isRecord(raw)) throw new Error(`${where} is not an object`);
      try {
        operations.push(normalizeOperation(path, method, item.parameters, raw, inherited, where));
      } catch (error) {
        if (error instanceof SculptorError) throw error; // a limit: it names the operation already
        throw new Error(`${where}: ${(error as Error).message}`, { cause: error });
      }
    }
  }
  return operations;
}

function normalizeOperation(
  path: string,
  method: string,
  shared: unknown,
  raw: Record<string, unknown>,
  inherited: Inherited,
  where: string,
): Operation {
  const { deref } = inherited;
  const copySchema = inherited.views.forOperation(where);
  // Parameters are identified by name *and* location; the operation's own win.
  const merged = new Map<string, Record<string, unknown>>();
  for (const list of [deref(shared), deref(raw.parameters)]) {
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw new Error('"parameters" is not an array');
    for (const entry of list) {
      const p = deref(entry);
      if (!isRecord(p)) throw new Error('a parameter is not an object');
      merged.set(`${String(p.in)}\u0000${String(p.name)}`, p);
    }
  }
  const raws = [...merged.values()];
  const op: Operation = {
    method: method.toUpperCase(),
    path,
    parameters: [],
    responses: {},
    security: raw.security === undefined ? inherited.security : securityRequirements(raw.security, deref),
    deprecated: raw.deprecated === true,
  };
  if (typeof raw.operationId === 'string') op.operationId = raw.operationId;
  if (typeof raw.summary === 'string') op.summary = raw.summary;
  if (typeof raw.description === 'string') op.description = raw.description;

  if (inherited.version === '2.0') {
    const consumes = raw.consumes === undefined ? inherited.consumes : strings(raw.consumes, deref);
    const produces = raw.produces === undefined ? inherited.produces : strings(raw.produces, deref);
    const plain = raws.filter((p) => p.in !== 'body' && p.in !== 'formData');
    op.parameters = plain.map((p) => normalizeSwagger2Parameter(p, copySchema, deref));
    const body = swagger2Body(raws, consumes, copySchema, deref);
    if (body) op.requestBody = body;
    op.responses = swagger2Responses(raw.responses, produces, copySchema, deref);
  } else {
    op.parameters = raws.map((p) => normalizeOas3Parameter(p, copySchema, deref));
    const body = oas3Body(raw.requestBody, copySchema, deref);
    if (body) op.requestBody = body;
    op.responses = oas3Responses(raw.responses, copySchema, deref);
  }
  return op;
}

function oas3Body(entry: unknown, copySchema: SchemaCopier, deref: Deref): RequestBody | undefined {
  const raw = deref(entry);
  if (!isRecord(raw)) return undefined;
  const content = deref(raw.content);
  if (!isRecord(content)) return undefined;
  const mediaType = jsonFirst(Object.keys(content))[0];
  if (mediaType === undefined) return undefined;
  const body: RequestBody = { required: raw.required === true, mediaType };
  const media = deref(content[mediaType]);
  const schema = copySchema(isRecord(media) ? media.schema : undefined);
  if (schema) body.schema = schema;
  return body;
}

function oas3Responses(
  raw: unknown,
  copySchema: SchemaCopier,
  deref: Deref,
): Record<string, OperationResponse> {
  const responses: Record<string, OperationResponse> = {};
  for (const [status, response] of responseEntries(raw, deref)) {
    const declared = deref(response.content);
    const content = isRecord(declared) ? declared : {};
    const mediaTypes = Object.keys(content);
    const entry: OperationResponse = { mediaTypes };
    const preferred = jsonFirst(mediaTypes)[0];
    const media = preferred === undefined ? undefined : deref(content[preferred]);
    const schema = copySchema(isRecord(media) ? media.schema : undefined);
    if (schema) entry.schema = schema;
    responses[status] = entry;
  }
  return responses;
}

/** Swagger 2 `in: body`, or the `formData` fields gathered into one object schema. */
function swagger2Body(
  raws: Record<string, unknown>[],
  consumes: string[],
  copySchema: SchemaCopier,
  deref: Deref,
): RequestBody | undefined {
  const body = raws.find((p) => p.in === 'body');
  if (body) {
    const result: RequestBody = {
      required: body.required === true,
      mediaType: jsonFirst(consumes)[0] ?? 'application/json',
    };
    const schema = copySchema(body.schema);
    if (schema) result.schema = schema;
    return result;
  }
  const fields = raws.filter((p) => p.in === 'formData');
  if (fields.length === 0) return undefined;
  const declared = consumes.find(
    (t) => t === 'multipart/form-data' || t === 'application/x-www-form-urlencoded',
  );
  const hasFile = fields.some((p) => p.type === 'file');
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const field of fields) {
    const name = String(field.name);
    properties[name] = swagger2Schema(field, deref);
    if (field.required === true) required.push(name);
  }
  return {
    required: required.length > 0,
    mediaType: declared ?? (hasFile ? 'multipart/form-data' : 'application/x-www-form-urlencoded'),
    schema: copySchema({ type: 'object', properties, ...(required.length > 0 ? { required } : {}) })!,
  };
}

function swagger2Responses(
  raw: unknown,
  produces: string[],
  copySchema: SchemaCopier,
  deref: Deref,
): Record<string, OperationResponse> {
  const responses: Record<string, OperationResponse> = {};
  for (const [status, response] of responseEntries(raw, deref)) {
    const schema = copySchema(response.schema);
    // `produces` is often omitted from Swagger 2 documents whose APIs answer
    // JSON; a response with a schema then has a body, and JSON is the one
    // media type the gateway reads. A response without a schema has no body.
    const mediaTypes = schema ? (produces.length > 0 ? produces : ['application/json']) : [];
    responses[status] = schema ? { mediaTypes, schema } : { mediaTypes };
  }
  return responses;
}

function responseEntries(entry: unknown, deref: Deref): [string, Record<string, unknown>][] {
  const raw = deref(entry);
  if (raw === undefined) return [];
  if (!isRecord(raw)) throw new Error('"responses" is not an object');
  return Object.entries(raw)
    .map(([status, response]): [string, unknown] => [status, deref(response)])
    .filter((entry): entry is [string, Record<string, unknown>] => {
      return !entry[0].startsWith('x-') && isRecord(entry[1]);
    });
}

function securityRequirements(entry: unknown, deref: Deref): Array<Record<string, string[]>> {
  const raw = deref(entry);
  if (!Array.isArray(raw)) return [];
  return raw
    .map(deref)
    .filter(isRecord)
    .map((req) => Object.fromEntries(Object.entries(req).map(([k, v]) => [k, strings(v, deref)])));
}

function strings(entry: unknown, deref: Deref): string[] {
  const raw = deref(entry);
  return Array.isArray(raw) ? raw.map(deref).filter((s): s is string => typeof s === 'string') : [];
}
