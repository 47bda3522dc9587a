/**
 * How `sculptor init` reads a schema of the document: its type, its
 * properties (`allOf` merged, the main alternative of a `oneOf`/`anyOf`),
 * and whether null is one of its values. Best effort over whatever vendors
 * write; schemas are the loader's lazy views, read only as far as asked.
 */

export type Json = Record<string, unknown>;

export function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function typeOf(schema: unknown): string | undefined {
  if (!isRecord(schema)) return undefined;
  const t = schema.type;
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) return t.find((x) => x !== 'null') as string | undefined;
  // allOf: the type its parts say (a WSDL's XSD wraps every use of a named type so), else an object.
  if (Array.isArray(schema.allOf)) {
    const found = schema.allOf.map(typeOf).find((x) => x !== undefined && x !== 'null');
    if (found) return found;
  }
  if (isRecord(schema.properties) || Array.isArray(schema.allOf)) return 'object';
  if (schema.items) return 'array';
  for (const key of ['oneOf', 'anyOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options)) {
      const found = options.map(typeOf).find((x) => x !== undefined && x !== 'null');
      if (found) return found;
    }
  }
  return undefined;
}

export interface ObjectShape {
  properties: Record<string, Json>;
  /** Properties every value has (null may still be one of their values: see isNullable). */
  required: Set<string>;
}

/**
 * Properties of an object schema, `allOf` parts merged. A schema that is
 * only a `oneOf`/`anyOf` of objects (Stripe's `customer | deleted_customer`)
 * reads as its largest alternative, a property required only when every
 * alternative requires it: the answer may be any of them.
 */
export function propertiesOf(schema: unknown, depth = 0): ObjectShape {
  const properties: Record<string, Json> = {};
  const required = new Set<string>();
  const visit = (s: unknown, level: number) => {
    if (!isRecord(s) || level > 8) return;
    if (isRecord(s.properties)) {
      for (const [k, v] of Object.entries(s.properties)) if (isRecord(v)) properties[k] = v;
    }
    if (Array.isArray(s.required)) for (const r of s.required) if (typeof r === 'string') required.add(r);
    if (Array.isArray(s.allOf)) for (const part of s.allOf) visit(part, level + 1);
  };
  visit(schema, depth);
  if (Object.keys(properties).length > 0 || !isRecord(schema) || depth > 8) return { properties, required };
  const options = Array.isArray(schema.oneOf)
    ? schema.oneOf
    : Array.isArray(schema.anyOf)
      ? schema.anyOf
      : [];
  const shapes = options
    .map((o) => propertiesOf(o, depth + 1))
    .filter((s) => Object.keys(s.properties).length > 0);
  if (shapes.length === 0) return { properties, required };
  const largest = shapes.reduce((a, b) =>
    Object.keys(b.properties).length > Object.keys(a.properties).length ? b : a,
  );
  const everywhere = [...largest.required].filter((r) => shapes.every((s) => s.required.has(r)));
  return { properties: largest.properties, required: new Set(everywhere) };
}

export function isScalar(schema: unknown): boolean {
  const t = typeOf(schema);
  return t === 'string' || t === 'integer' || t === 'number' || t === 'boolean';
}

/**
 * Whether null is a value of the schema, however the document says it:
 * OpenAPI 3.0 `nullable: true`, Swagger 2.0 `x-nullable`, 3.1
 * `type: [string, "null"]`, `null` in an `enum`, `const: null`, or a
 * `oneOf`/`anyOf` alternative that is.
 */
export function isNullable(schema: unknown, depth = 0): boolean {
  if (!isRecord(schema) || depth > 8) return false;
  if (schema.nullable === true || schema['x-nullable'] === true) return true;
  if (schema.type === 'null' || (Array.isArray(schema.type) && schema.type.includes('null'))) return true;
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true;
  if (Object.hasOwn(schema, 'const') && schema.const === null) return true;
  for (const key of ['oneOf', 'anyOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options) && options.some((o) => isNullable(o, depth + 1))) return true;
  }
  return false;
}
