/**
 * The schema XML is read and written by: a JSON Schema with OpenAPI's `xml` object on any
 * node — `name`, `namespace`, `prefix`, `attribute`, `wrapped`, and `nodeType` (OpenAPI 3.2:
 * `element`, `attribute`, `text`). An OpenAPI document's schemas are used as they are; a WSDL's
 * XSD is compiled into the same form (src/soap/read-xsd.ts), so one mapping serves both.
 *
 * Two keys of Sculptor's own ride along from XSD: `x-xsd-type`, the XSD type a value is written
 * with when a SOAP binding asks for `xsi:type` (rpc/encoded), and `x-nillable`, which writes a
 * null as `xsi:nil="true"` instead of leaving the element out.
 */

export interface XmlObject {
  name?: string;
  namespace?: string;
  prefix?: string;
  attribute?: boolean;
  wrapped?: boolean;
  nodeType?: 'element' | 'attribute' | 'text' | 'cdata' | 'none';
}

export interface QualifiedName {
  uri: string;
  local: string;
}

export interface XmlSchema {
  type?: string | string[];
  properties?: Record<string, XmlSchema>;
  required?: string[];
  additionalProperties?: boolean | XmlSchema;
  items?: XmlSchema;
  allOf?: XmlSchema[];
  oneOf?: XmlSchema[];
  anyOf?: XmlSchema[];
  enum?: unknown[];
  nullable?: boolean;
  description?: string;
  xml?: XmlObject;
  'x-xsd-type'?: QualifiedName;
  'x-nillable'?: boolean;
  [key: string]: unknown;
}

export const XSI = 'http://www.w3.org/2001/XMLSchema-instance';
export const XSD = 'http://www.w3.org/2001/XMLSchema';

/** The name of the property mapped from an element's own text when it also has attributes or children. */
export const TEXT_KEY = '_text';

export type ScalarKind = 'string' | 'integer' | 'number' | 'boolean';

/** The text of an XSD integer, and of an XSD decimal or double (no NaN, no INF). */
export const INTEGER_TEXT = /^[+-]?\d+$/;
export const NUMBER_TEXT = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * `allOf` merged into one schema: its parts first, in order, then the schema's own keys over
 * them; `properties` and `required` are unions. XSD-compiled schemas use `allOf` for every use
 * of a named type (and for extension), OpenAPI ones for composition.
 */
export function flatten(schema: XmlSchema | undefined, depth = 0): XmlSchema | undefined {
  if (!schema || typeof schema !== 'object') return undefined;
  if (!Array.isArray(schema.allOf) || schema.allOf.length === 0) return schema;
  // allOf nests only as deep as a type hierarchy; a cycle of them is not a schema.
  if (depth > MAX_ALLOF_DEPTH) return schema;
  const merged: XmlSchema = {};
  const properties: Record<string, XmlSchema> = {};
  const required: string[] = [];
  const { allOf, ...own } = schema;
  for (const part of [...allOf.map((p) => flatten(p, depth + 1)), own as XmlSchema]) {
    if (!part) continue;
    const { properties: partProperties, required: partRequired, xml, ...rest } = part;
    for (const [key, value] of Object.entries(rest)) if (value !== undefined) merged[key] = value;
    if (xml) merged.xml = { ...merged.xml, ...xml };
    Object.assign(properties, partProperties ?? {});
    required.push(...(partRequired ?? []));
  }
  if (Object.keys(properties).length > 0 || merged.type === 'object') merged.properties = properties;
  if (required.length > 0) merged.required = [...new Set(required)];
  return merged;
}

const MAX_ALLOF_DEPTH = 64;

function types(schema: XmlSchema): string[] {
  if (Array.isArray(schema.type)) return schema.type;
  return typeof schema.type === 'string' ? [schema.type] : [];
}

/** The scalar a schema describes, if it describes one (`null` beside it is allowed). */
export function scalarKind(schema: XmlSchema | undefined): ScalarKind | undefined {
  if (!schema) return undefined;
  const named = types(schema).filter((t) => t !== 'null');
  if (named.length !== 1) return undefined;
  const [type] = named;
  return type === 'string' || type === 'integer' || type === 'number' || type === 'boolean'
    ? type
    : undefined;
}

export function isArraySchema(schema: XmlSchema | undefined): boolean {
  return !!schema && types(schema).includes('array');
}

export function isObjectSchema(schema: XmlSchema | undefined): boolean {
  if (!schema) return false;
  return types(schema).includes('object') || (schema.type === undefined && schema.properties !== undefined);
}

/** Whether a property is written as an attribute of its parent. */
export function isAttribute(schema: XmlSchema | undefined): boolean {
  return schema?.xml?.attribute === true || schema?.xml?.nodeType === 'attribute';
}

/** Whether a property is its parent's own text. */
export function isText(schema: XmlSchema | undefined): boolean {
  return schema?.xml?.nodeType === 'text' || schema?.xml?.nodeType === 'cdata';
}

/** The element or attribute name a property is written as. */
export function xmlName(property: string, schema: XmlSchema | undefined): string {
  return schema?.xml?.name ?? property;
}

/** The element name each item of an array property is written as (OpenAPI: the items' name, else the property's). */
export function itemName(property: string, schema: XmlSchema | undefined): string {
  return schema?.items?.xml?.name ?? xmlName(property, schema);
}

/**
 * The namespace an element (or attribute) of this schema is in; '' for none. Not inherited
 * from the parent, as in OpenAPI's examples and XSD's default (`elementFormDefault="unqualified"`).
 */
export function namespaceOf(schema: XmlSchema | undefined): string {
  return schema?.xml?.namespace ?? '';
}
