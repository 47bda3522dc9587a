/**
 * A JSON value written as XML by its schema: the reverse of xml-to-json.ts. Properties become
 * child elements in the schema's order (XSD sequences are ordered), `xml.attribute` ones
 * attributes, a `nodeType: text` one the element's text; arrays repeat their element (or sit in
 * a wrapper, `xml.wrapped`); a null is `xsi:nil="true"` where the schema is nillable and is left
 * out otherwise. Scalars are checked against the schema's type and enum, and every problem is
 * collected, so the caller can say all of them at once. Without a schema the value is written as
 * it reads: objects as elements by key, arrays as repeated elements.
 */
import { canBeXmlText, element, type OutAttribute, type OutElement } from './write-xml.ts';
import {
  flatten,
  INTEGER_TEXT,
  isArraySchema,
  isAttribute,
  isObjectSchema,
  isText,
  itemName,
  namespaceOf,
  NUMBER_TEXT,
  type QualifiedName,
  scalarKind,
  XSI,
  type XmlSchema,
  xmlName,
} from './xml-schema.ts';

export interface ValueProblem {
  /** Where in the value, dotted: `weatherParameters.maxt`, `items.2`; '' for the value itself. */
  path: string;
  reason: string;
  /** A field the schema does not have (the sculpt's mistake, not the caller's). */
  unknownField?: boolean;
}

export interface ToXmlOptions {
  /** Write `xsi:type` from `x-xsd-type` on each element (SOAP's rpc/encoded). */
  xsiTypes?: boolean;
}

/** The element `name` holding `value`; undefined when the value is left out (undefined, or a null that is not nillable). */
export function jsonToXml(
  name: QualifiedName,
  value: unknown,
  schema: XmlSchema | undefined,
  problems: ValueProblem[],
  options: ToXmlOptions = {},
  path = '',
): OutElement | undefined {
  const s = flatten(schema);
  if (value === undefined) return undefined;
  const typed = (out: OutElement): OutElement => {
    const type = s?.['x-xsd-type'];
    if (options.xsiTypes && type) out.attributes.push({ uri: XSI, local: 'type', value: type });
    return out;
  };
  if (value === null) {
    if (s?.['x-nillable'] !== true) return undefined;
    return element(name.uri, name.local, [], [{ uri: XSI, local: 'nil', value: 'true' }]);
  }
  if (isArraySchema(s)) {
    // Reached only for a wrapped array (an unwrapped one repeats in its parent).
    const items = Array.isArray(value) ? value : [value];
    const inner: QualifiedName = { uri: namespaceOf(s!.items), local: itemName(name.local, s) };
    const children = items.flatMap((item, i) => {
      const out = jsonToXml(inner, item, s!.items, problems, options, join(path, String(i)));
      return out ? [out] : [];
    });
    return element(name.uri, name.local, children);
  }
  const kind = scalarKind(s);
  if (kind !== undefined || (s && !isObjectSchema(s) && (typeof value !== 'object' || value === null))) {
    const text = scalarText(value, s, kind, path, problems);
    return typed(element(name.uri, name.local, text === '' ? [] : [text]));
  }
  if (typeof value !== 'object' || Array.isArray(value)) {
    if (isObjectSchema(s)) {
      problems.push({ path, reason: 'must be an object' });
      return undefined;
    }
    // No schema: a scalar is text; an array here has no element name of its own.
    if (Array.isArray(value)) {
      problems.push({ path, reason: 'an array needs a field name' });
      return undefined;
    }
    return element(name.uri, name.local, [scalarText(value, undefined, undefined, path, problems)]);
  }
  return typed(objectElement(name, value as Record<string, unknown>, s, problems, options, path));
}

function objectElement(
  name: QualifiedName,
  value: Record<string, unknown>,
  s: XmlSchema | undefined,
  problems: ValueProblem[],
  options: ToXmlOptions,
  path: string,
): OutElement {
  const out = element(name.uri, name.local);
  const properties = s?.properties ?? {};
  for (const key of s?.required ?? []) {
    if (value[key] === undefined && properties[key]?.['x-nillable'] !== true) {
      problems.push({ path: join(path, key), reason: 'is required' });
    }
  }
  for (const [key, property] of Object.entries(properties)) {
    const field = value[key];
    if (field === undefined) continue;
    const p = flatten(property);
    const at = join(path, key);
    if (isAttribute(p)) {
      if (field === null) continue;
      out.attributes.push(
        attribute(namespaceOf(p), xmlName(key, p), scalarText(field, p, scalarKind(p), at, problems)),
      );
    } else if (isText(p)) {
      if (field !== null) out.children.push(scalarText(field, p, scalarKind(p), at, problems));
    } else if (isArraySchema(p) && p!.xml?.wrapped !== true) {
      const items = Array.isArray(field) ? field : [field];
      const inner: QualifiedName = { uri: namespaceOf(p!.items), local: itemName(key, p) };
      items.forEach((item, i) => {
        const child = jsonToXml(inner, item, p!.items, problems, options, join(at, String(i)));
        if (child) out.children.push(child);
      });
    } else {
      const child = jsonToXml(
        { uri: namespaceOf(p), local: xmlName(key, p) },
        field,
        property,
        problems,
        options,
        at,
      );
      if (child) out.children.push(child);
    }
  }
  for (const [key, field] of Object.entries(value)) {
    if (Object.hasOwn(properties, key) || field === undefined) continue;
    if (s && s.additionalProperties === false) {
      const known = Object.keys(properties);
      problems.push({
        path: join(path, key),
        reason: `is not a field here (fields: ${known.join(', ') || 'none'})`,
        unknownField: true,
      });
      continue;
    }
    for (const item of Array.isArray(field) ? field : [field]) {
      const child = jsonToXml({ uri: '', local: key }, item, undefined, problems, options, join(path, key));
      if (child) out.children.push(child);
    }
  }
  return out;
}

function attribute(uri: string, local: string, value: string): OutAttribute {
  return { uri, local, value };
}

/** A scalar's text, checked against the schema's type and enum; a problem (and '') when it does not fit. */
function scalarText(
  value: unknown,
  s: XmlSchema | undefined,
  kind: ReturnType<typeof scalarKind>,
  path: string,
  problems: ValueProblem[],
): string {
  const fits = scalarFit(value, s, kind);
  if ('reason' in fits) {
    problems.push({ path, reason: fits.reason });
    return '';
  }
  return fits.text;
}

/**
 * A scalar as the text XML carries for it, or why it does not fit its schema: its type
 * (`integer`, `number`, `boolean`: `true`/`1`, `false`/`0`), its enumeration, characters XML
 * can carry. `check` holds a sculpt's constants to the same rules (compile/check-body-fields.ts).
 */
export function scalarFit(
  value: unknown,
  s: XmlSchema | undefined,
  kind: ReturnType<typeof scalarKind> = scalarKind(s),
): { text: string } | { reason: string } {
  if (typeof value === 'object' && value !== null) {
    const what = Array.isArray(value) ? 'an array' : 'an object';
    return { reason: `must be ${kind ? `a ${kind}` : 'a single value'}, not ${what}` };
  }
  let text = typeof value === 'string' ? value : String(value);
  if (
    kind === 'integer' &&
    !(typeof value === 'number' ? Number.isInteger(value) : INTEGER_TEXT.test(text.trim()))
  ) {
    return { reason: 'must be an integer' };
  }
  if (
    kind === 'number' &&
    !(typeof value === 'number' ? Number.isFinite(value) : NUMBER_TEXT.test(text.trim()))
  ) {
    return { reason: 'must be a number' };
  }
  if (kind === 'boolean') {
    if (value === true || value === 'true' || value === '1' || value === 1) text = 'true';
    else if (value === false || value === 'false' || value === '0' || value === 0) text = 'false';
    else return { reason: 'must be true or false' };
  }
  if (kind === 'integer' || kind === 'number') text = text.trim();
  if (Array.isArray(s?.enum) && !s!.enum.some((allowed) => String(allowed) === text)) {
    return { reason: `must be one of ${s!.enum.map(String).join(', ')}` };
  }
  if (!canBeXmlText(text)) return { reason: 'holds characters XML cannot carry' };
  return { text };
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}
