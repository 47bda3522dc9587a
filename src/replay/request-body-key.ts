/**
 * What makes two request bodies "the same" for replay, where the method, path and query do not
 * tell requests apart — every call of a SOAP service is a POST to one endpoint, and its body
 * says which operation, with which values:
 *
 * - XML is compared as XML (read by the safe parser: no DTD, bounded): elements and attributes
 *   by namespace URI and local name, attributes in any order, prefixes and the white space
 *   between elements ignored, and the WS-Security header left out (its nonce and timestamp
 *   change on every call);
 * - JSON as JSON (object keys in any order);
 * - anything else as its exact text.
 */
import { isXmlMediaType } from '../xml/xml-media-type.ts';
import { parseXml, type XmlElement } from '../xml/parse-xml.ts';

const WSSE = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd';

/** Recorded bodies are small: anything larger is compared as text rather than parsed. */
const MAX_PARSED = 5 * 1024 * 1024;

export function requestBodyKey(contentType: string | undefined, body: string): string {
  const trimmed = body.trim();
  if (trimmed === '') return '';
  if (body.length <= MAX_PARSED && (isXmlMediaType(contentType ?? '') || trimmed.startsWith('<'))) {
    try {
      return `xml:${canonicalXml(parseXml(body, { code: 'load.schema', source: 'A recorded request body' }))}`;
    } catch {
      // Not XML after all: compared as text.
    }
  }
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return `json:${canonicalJson(JSON.parse(body))}`;
    } catch {
      // Not JSON after all: compared as text.
    }
  }
  return `text:${body}`;
}

function canonicalXml(element: XmlElement): string {
  const attributes = element.attributes
    .map((a) => `${JSON.stringify(`{${a.uri}}${a.local}`)}=${JSON.stringify(a.value)}`)
    .sort();
  const children: string[] = [];
  for (const child of element.children) {
    if (typeof child === 'string') {
      if (child.trim() !== '') children.push(JSON.stringify(child));
    } else if (!(child.uri === WSSE && child.local === 'Security')) {
      children.push(canonicalXml(child));
    }
  }
  return `<${JSON.stringify(`{${element.uri}}${element.local}`)} ${attributes.join(' ')}>${children.join('')}</>`;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
