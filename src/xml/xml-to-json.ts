/**
 * An XML element as the JSON value a projection reads: the documented mapping
 * (docs/SCULPT-FORMAT.md, "XML answers and bodies"), the same with or without a schema, the
 * schema only making it exact:
 *
 * - an element with neither attributes nor child elements is its text; `xsi:nil="true"` is null;
 * - any other element is an object: each attribute and each child element under its local name
 *   (namespaces and prefixes dropped), its own non-blank text under `_text`;
 * - a name that repeats is an array; where the schema says array, always an array, even of one;
 * - text is a string, unless the schema types it: integer (beyond 2^53 kept as the exact
 *   decimal string, as JSON answers are), number, boolean (`true`/`1`, `false`/`0`);
 * - with a schema, names follow its properties (`xml.name`, `xml.attribute`, wrapped arrays,
 *   `nodeType: text`): the JSON an API documents for both media types is what a sculpt reads
 *   from its XML too.
 */
import { attributeOf, childElements, textOf, type XmlElement } from './parse-xml.ts';
import {
  flatten,
  INTEGER_TEXT,
  isArraySchema,
  isAttribute,
  isObjectSchema,
  isText,
  itemName,
  NUMBER_TEXT,
  type ScalarKind,
  scalarKind,
  TEXT_KEY,
  XSI,
  type XmlSchema,
  xmlName,
} from './xml-schema.ts';

export function xmlToJson(element: XmlElement, schema?: XmlSchema): unknown {
  const nil = attributeOf(element, 'nil', XSI);
  if (nil === 'true' || nil === '1') return null;
  const s = flatten(schema);
  if (isArraySchema(s)) {
    // A wrapped array: the element holds the items.
    return childElements(element).map((child) => xmlToJson(child, s!.items));
  }
  const kind = scalarKind(s);
  const attributes = element.attributes.filter((a) => a.uri !== XSI);
  const children = childElements(element);
  if (kind !== undefined) return scalar(textOf(element), kind);
  if (!isObjectSchema(s) && attributes.length === 0 && children.length === 0) return textOf(element);

  const properties = Object.entries(s?.properties ?? {});
  const members = new Members();
  for (const attribute of attributes) {
    const match = properties.find(([name, p]) => isAttribute(p) && xmlName(name, p) === attribute.local);
    if (!match) members.add(attribute.local, attribute.value);
    else members.add(match[0], scalar(attribute.value, scalarKind(flatten(match[1])) ?? 'string'));
  }
  for (const child of children) {
    const match = properties.find(
      ([name, p]) => !isAttribute(p) && !isText(p) && elementNameOf(name, p) === child.local,
    );
    if (!match) {
      members.add(child.local, xmlToJson(child));
      continue;
    }
    const [key, property] = match;
    const p = flatten(property);
    if (isArraySchema(p) && p!.xml?.wrapped !== true) members.push(key, xmlToJson(child, p!.items));
    else members.add(key, xmlToJson(child, property));
  }
  const text = textOf(element);
  if (text.trim() !== '') {
    const match = properties.find(([, p]) => isText(p));
    if (!match) members.add(TEXT_KEY, text);
    else members.add(match[0], scalar(text, scalarKind(flatten(match[1])) ?? 'string'));
  }
  return members.value;
}

/** The element name a property is matched by: an unwrapped array's items are named like the property. */
function elementNameOf(name: string, property: XmlSchema): string {
  const p = flatten(property);
  return isArraySchema(p) && p!.xml?.wrapped !== true ? itemName(name, p) : xmlName(name, p);
}

/**
 * Collects one element's keys: a key met again becomes an array of its values, in document
 * order, whether or not a schema said how many there are (a value is never lost).
 */
class Members {
  readonly value: Record<string, unknown> = {};
  private readonly lists = new Set<string>();

  add(key: string, item: unknown): void {
    const { value } = this;
    if (this.lists.has(key)) (value[key] as unknown[]).push(item);
    else if (Object.hasOwn(value, key)) {
      value[key] = [value[key], item];
      this.lists.add(key);
    } else value[key] = item;
  }

  /** An item of a property the schema says is an array: an array from the first one on. */
  push(key: string, item: unknown): void {
    if (!this.lists.has(key)) {
      this.value[key] = Object.hasOwn(this.value, key) ? [this.value[key]] : [];
      this.lists.add(key);
    }
    (this.value[key] as unknown[]).push(item);
  }
}

/** Text as the schema's scalar; text that does not read as one stays the string it is. */
export function scalar(text: string, kind: ScalarKind): unknown {
  const trimmed = text.trim();
  switch (kind) {
    case 'integer': {
      if (!INTEGER_TEXT.test(trimmed)) return text;
      const n = Number(trimmed);
      return Number.isSafeInteger(n) ? n : trimmed.replace(/^\+/, '');
    }
    case 'number': {
      if (!NUMBER_TEXT.test(trimmed)) return text;
      const n = Number(trimmed);
      return Number.isFinite(n) ? n : text;
    }
    case 'boolean':
      if (trimmed === 'true' || trimmed === '1') return true;
      if (trimmed === 'false' || trimmed === '0') return false;
      return text;
    default:
      return text;
  }
}
