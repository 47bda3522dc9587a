/**
 * A step's body written in the media type its operation takes: JSON as it is; XML by the
 * schema and its `xml` objects (the root named by `xml.name`, or by the schema's component name,
 * as OpenAPI says); `application/x-www-form-urlencoded` as form fields; `multipart/form-data` as
 * one part per field (text, or JSON for an object or array). The same value always encodes to
 * the same bytes (a multipart boundary is derived from the content), so cache keys built from
 * the request stay stable.
 */
import { createHash } from 'node:crypto';
import { type InputProblem, SculptorError } from '../errors/sculptor-error.ts';
import { jsonToXml, type ValueProblem } from '../xml/json-to-xml.ts';
import { isXmlMediaType } from '../xml/xml-media-type.ts';
import type { XmlSchema } from '../xml/xml-schema.ts';
import { writeXml } from '../xml/write-xml.ts';
import { acceptsJson, essence, isJsonMediaType } from './media-type.ts';
import type { RequestBody } from './normalize-operations.ts';

export interface EncodedBody {
  text: string;
  contentType: string;
}

/** The encoded body, or the problems of its values; throws `compile.unsupported_operation` for a media type it cannot write. */
export function encodeBody(
  requestBody: RequestBody,
  body: unknown,
  route: string,
): EncodedBody | { problems: InputProblem[] } {
  const { mediaType } = requestBody;
  const type = essence(mediaType);
  if (acceptsJson(mediaType)) {
    const text = JSON.stringify(body);
    if (text === undefined)
      return { problems: [{ parameter: 'body', reason: 'the request body cannot be serialized as JSON' }] };
    return { text, contentType: isJsonMediaType(mediaType) ? mediaType : 'application/json' };
  }
  if (isXmlMediaType(type)) return xmlBody(requestBody, body, route);
  if (type === 'application/x-www-form-urlencoded') {
    const fields = formFields(body);
    if ('problems' in fields) return fields;
    return { text: new URLSearchParams(fields).toString(), contentType: 'application/x-www-form-urlencoded' };
  }
  if (type === 'multipart/form-data') return multipart(body);
  throw new SculptorError(
    'compile.unsupported_operation',
    `${route} takes a ${mediaType} body; Sculptor sends JSON, XML, form-urlencoded and multipart bodies.`,
  );
}

function xmlBody(
  requestBody: RequestBody,
  body: unknown,
  route: string,
): EncodedBody | { problems: InputProblem[] } {
  const schema = requestBody.schema as XmlSchema | undefined;
  const name = schema?.xml?.name ?? componentName(schema);
  if (name === undefined) {
    throw new SculptorError(
      'compile.unsupported_operation',
      `${route} takes an XML body whose root element has no name: its schema has neither xml.name nor a component name.`,
    );
  }
  const problems: ValueProblem[] = [];
  const root = jsonToXml({ uri: schema?.xml?.namespace ?? '', local: name }, body, schema, problems);
  if (problems.length > 0 || !root) {
    return {
      problems: (problems.length > 0 ? problems : [{ path: '', reason: 'is empty' }]).map((p) => ({
        parameter: p.path === '' ? 'body' : `body.${p.path}`,
        reason: p.reason,
      })),
    };
  }
  const prefix = schema?.xml?.prefix;
  const prefixes = prefix && schema?.xml?.namespace ? { [schema.xml.namespace]: prefix } : {};
  return { text: writeXml(root, { declaration: true, prefixes }), contentType: requestBody.mediaType };
}

/** `#/components/schemas/Pet` → `Pet`: the name a schema view serializes as (schema-views.ts). */
function componentName(schema: XmlSchema | undefined): string | undefined {
  const json = (schema as { toJSON?: () => unknown } | undefined)?.toJSON?.();
  const ref = (json as { $ref?: unknown } | undefined)?.$ref;
  return typeof ref === 'string' ? decodeURIComponent(ref.slice(ref.lastIndexOf('/') + 1)) : undefined;
}

/** An object's fields as form pairs: arrays repeat their field, objects spread theirs (OpenAPI's form style, exploded). */
function formFields(body: unknown): Array<[string, string]> | { problems: InputProblem[] } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { problems: [{ parameter: 'body', reason: 'a form body must be an object of fields' }] };
  }
  const pairs: Array<[string, string]> = [];
  const add = (name: string, value: unknown): void => {
    if (value === undefined || value === null) return;
    if (Array.isArray(value)) for (const item of value) add(name, item);
    else if (typeof value === 'object') for (const [key, inner] of Object.entries(value)) add(key, inner);
    else pairs.push([name, String(value)]);
  };
  for (const [name, value] of Object.entries(body)) add(name, value);
  return pairs;
}

function multipart(body: unknown): EncodedBody | { problems: InputProblem[] } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { problems: [{ parameter: 'body', reason: 'a multipart body must be an object of fields' }] };
  }
  const parts: Array<{ name: string; type: string; text: string }> = [];
  for (const [name, value] of Object.entries(body)) {
    if (value === undefined || value === null) continue;
    const json = typeof value === 'object';
    parts.push({
      name,
      type: json ? 'application/json' : 'text/plain; charset=utf-8',
      text: json ? JSON.stringify(value) : String(value),
    });
  }
  const digest = createHash('sha256').update(JSON.stringify(parts)).digest('hex');
  let boundary = `sculptor-${digest.slice(0, 32)}`;
  while (parts.some((p) => p.text.includes(boundary) || p.name.includes(boundary)))
    boundary += digest.slice(0, 8);
  const quoted = (name: string) => name.replace(/["\\\r\n]/g, (c) => encodeURIComponent(c));
  const text =
    parts
      .map(
        (p) =>
          `--${boundary}\r\ncontent-disposition: form-data; name="${quoted(p.name)}"\r\ncontent-type: ${p.type}\r\n\r\n${p.text}\r\n`,
      )
      .join('') + `--${boundary}--\r\n`;
  return { text, contentType: `multipart/form-data; boundary=${boundary}` };
}
