/**
 * For tests: a value of every field a schema (the form src/xml reads and writes by) describes,
 * and a check that an element holds what the schema allows — written against the schema, not
 * through the code under test, so an envelope the builder writes can be held to it.
 */
import { attributeOf, childElements, textOf, type XmlElement } from '../../src/xml/parse-xml.ts';
import {
  flatten,
  isArraySchema,
  isAttribute,
  isObjectSchema,
  isText,
  itemName,
  namespaceOf,
  scalarKind,
  XSI,
  type XmlSchema,
  xmlName,
} from '../../src/xml/xml-schema.ts';

const MAX_DEPTH = 5;
const ENVELOPES = new Set([
  'http://schemas.xmlsoap.org/soap/envelope/',
  'http://www.w3.org/2003/05/soap-envelope',
]);

/** A value for every property down to MAX_DEPTH, required ones only below it. */
export function sampleValue(
  schema: XmlSchema | undefined,
  depth = 0,
  seen: Set<object> = new Set(),
): unknown {
  const s = flatten(schema);
  if (!s) return 'x';
  if (Array.isArray(s.enum) && s.enum.length > 0) return String(s.enum[0]);
  if (isArraySchema(s)) return [sampleValue(s.items, depth + 1, seen)];
  const kind = scalarKind(s);
  if (kind === 'integer') return 1;
  if (kind === 'number') return 1.5;
  if (kind === 'boolean') return true;
  if (kind === 'string') {
    if (s.format === 'date') return '2026-01-20';
    if (s.format === 'date-time') return '2026-01-20T06:00:00Z';
    return 'text';
  }
  if (!isObjectSchema(s)) return 'text';
  const value: Record<string, unknown> = {};
  const own = (schema as object) ?? s;
  if (seen.has(own) && depth > 1) return value;
  const inner = new Set(seen).add(own);
  for (const [name, property] of Object.entries(s.properties ?? {})) {
    const required = s.required?.includes(name) ?? false;
    if (depth >= MAX_DEPTH && !required) continue;
    if (depth >= MAX_DEPTH * 2) continue;
    value[name] = sampleValue(property, depth + 1, inner);
  }
  return value;
}

/** Every way `element` departs from `schema`: names, namespaces, order, required fields, scalar types. */
export function schemaProblems(
  element: XmlElement,
  schema: XmlSchema | undefined,
  path = element.local,
): string[] {
  const problems: string[] = [];
  const s = flatten(schema);
  if (!s) return problems;
  if (attributeOf(element, 'nil', XSI) === 'true') {
    if (s['x-nillable'] !== true) problems.push(`${path}: nil, but not nillable`);
    return problems;
  }
  if (isArraySchema(s)) {
    for (const child of childElements(element))
      problems.push(...schemaProblems(child, s.items, `${path}/${child.local}`));
    return problems;
  }
  const kind = scalarKind(s);
  if (kind !== undefined || !isObjectSchema(s)) {
    if (childElements(element).length > 0) problems.push(`${path}: a simple value holds elements`);
    const text = textOf(element);
    if (kind === 'integer' && !/^[+-]?\d+$/.test(text)) problems.push(`${path}: '${text}' is not an integer`);
    if (kind === 'number' && Number.isNaN(Number(text))) problems.push(`${path}: '${text}' is not a number`);
    if (kind === 'boolean' && !['true', 'false', '1', '0'].includes(text))
      problems.push(`${path}: '${text}' is not a boolean`);
    if (Array.isArray(s.enum) && !s.enum.map(String).includes(text))
      problems.push(`${path}: '${text}' is not one of the enumeration`);
    return problems;
  }
  const properties = Object.entries(s.properties ?? {});
  for (const attribute of element.attributes) {
    // xsi:type and xsi:nil, and SOAP's encodingStyle on an rpc/encoded wrapper, are not the schema's.
    if (attribute.uri === XSI || ENVELOPES.has(attribute.uri)) continue;
    const match = properties.find(
      ([n, p]) => isAttribute(flatten(p)) && xmlName(n, flatten(p)) === attribute.local,
    );
    if (!match) problems.push(`${path}/@${attribute.local}: not an attribute of the schema`);
  }
  let lastIndex = -1;
  const seen = new Set<string>();
  for (const child of childElements(element)) {
    const index = properties.findIndex(([n, p]) => {
      const f = flatten(p);
      if (isAttribute(f) || isText(f)) return false;
      const unwrapped = isArraySchema(f) && f!.xml?.wrapped !== true;
      const name = unwrapped ? itemName(n, f) : xmlName(n, f);
      const uri = unwrapped
        ? namespaceOf(flatten(f!.items)) || namespaceOf(f!.items)
        : namespaceOf(f) || namespaceOf(p);
      return name === child.local && uri === child.uri;
    });
    if (index < 0) {
      if (s.additionalProperties !== false) continue;
      problems.push(`${path}/${child.local} {${child.uri}}: not an element of the schema here`);
      continue;
    }
    if (index < lastIndex) problems.push(`${path}/${child.local}: out of the schema's order`);
    lastIndex = index;
    const [name, property] = properties[index]!;
    seen.add(name);
    const f = flatten(property);
    const itemSchema = isArraySchema(f) && f!.xml?.wrapped !== true ? f!.items : property;
    problems.push(...schemaProblems(child, itemSchema, `${path}/${child.local}`));
  }
  for (const name of s.required ?? []) {
    const p = flatten(s.properties?.[name]);
    if (
      !seen.has(name) &&
      !isAttribute(p) &&
      !isText(p) &&
      attributeOf(element, xmlName(name, p)) === undefined
    ) {
      problems.push(`${path}: required ${name} missing`);
    }
  }
  return problems;
}
