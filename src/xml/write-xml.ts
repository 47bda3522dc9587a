/**
 * Writes XML from a small tree of namespaced elements. Every namespace gets a prefix declared
 * once on the root (a schema's `xml.prefix` where one is given, else `ns1`, `ns2`…), unqualified
 * elements stay in no namespace (no default namespace is ever declared, so an unqualified child
 * of a qualified parent is written right), and text and attribute values are escaped, so no
 * value can open an element, close one or add an attribute.
 */
import type { QualifiedName } from './xml-schema.ts';

export interface OutAttribute {
  uri: string;
  local: string;
  /** A string, or a QName (`xsi:type="xsd:int"`) written with the prefix its namespace gets. */
  value: string | QualifiedName;
}

export interface OutElement {
  uri: string;
  local: string;
  attributes: OutAttribute[];
  children: Array<OutElement | string>;
}

export interface WriteOptions {
  /** Prefixes to use for these namespaces (URI → prefix), e.g. `soap` for the envelope's. */
  prefixes?: Readonly<Record<string, string>>;
  /** Start with `<?xml version="1.0" encoding="UTF-8"?>`. */
  declaration?: boolean;
}

const XML_NS = 'http://www.w3.org/XML/1998/namespace';

export function element(
  uri: string,
  local: string,
  children: OutElement['children'] = [],
  attributes: OutAttribute[] = [],
): OutElement {
  return { uri, local, attributes, children };
}

export function writeXml(root: OutElement, options: WriteOptions = {}): string {
  const prefixes = new Map<string, string>([[XML_NS, 'xml']]);
  const taken = new Set<string>(['xml', 'xmlns']);
  for (const [uri, prefix] of Object.entries(options.prefixes ?? {})) {
    if (!taken.has(prefix)) {
      prefixes.set(uri, prefix);
      taken.add(prefix);
    }
  }
  let counter = 0;
  const prefixFor = (uri: string): string => {
    let prefix = prefixes.get(uri);
    if (prefix === undefined) {
      do prefix = `ns${++counter}`;
      while (taken.has(prefix));
      prefixes.set(uri, prefix);
      taken.add(prefix);
    }
    return prefix;
  };
  const used = new Set<string>();
  const collect = (node: OutElement): void => {
    if (node.uri !== '') used.add(node.uri);
    for (const a of node.attributes) {
      if (a.uri !== '') used.add(a.uri);
      if (typeof a.value !== 'string' && a.value.uri !== '') used.add(a.value.uri);
    }
    for (const child of node.children) if (typeof child !== 'string') collect(child);
  };
  collect(root);
  for (const uri of used) prefixFor(uri);

  const nameOf = (uri: string, local: string): string => (uri === '' ? local : `${prefixFor(uri)}:${local}`);
  const parts: string[] = [];
  if (options.declaration) parts.push('<?xml version="1.0" encoding="UTF-8"?>');
  const write = (node: OutElement, isRoot: boolean): void => {
    const name = nameOf(node.uri, node.local);
    parts.push(`<${name}`);
    if (isRoot) {
      for (const uri of used) {
        if (uri !== XML_NS) parts.push(` xmlns:${prefixFor(uri)}="${escapeAttribute(uri)}"`);
      }
    }
    for (const a of node.attributes) {
      const value = typeof a.value === 'string' ? a.value : nameOf(a.value.uri, a.value.local);
      parts.push(` ${nameOf(a.uri, a.local)}="${escapeAttribute(value)}"`);
    }
    if (node.children.length === 0) {
      parts.push('/>');
      return;
    }
    parts.push('>');
    for (const child of node.children) {
      if (typeof child === 'string') parts.push(escapeText(child));
      else write(child, false);
    }
    parts.push(`</${name}>`);
  };
  write(root, true);
  return parts.join('');
}

/** Characters XML 1.0 cannot carry at all, even as references: refused rather than sent mangled. */
const NOT_XML_CHAR =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function canBeXmlText(value: string): boolean {
  return !NOT_XML_CHAR.test(value);
}

export function escapeText(value: string): string {
  return value.replace(/[&<>\r]/g, (c) => ATTRIBUTE_ESCAPES[c]!);
}

export function escapeAttribute(value: string): string {
  return value.replace(/[&<>"\t\n\r]/g, (c) => ATTRIBUTE_ESCAPES[c]!);
}

const ATTRIBUTE_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  '\t': '&#9;',
  '\n': '&#10;',
  '\r': '&#13;',
};
