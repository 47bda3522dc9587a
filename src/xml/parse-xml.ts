/**
 * Safe XML parsing, for everything Sculptor reads as XML: backend answers, WSDL and XSD
 * documents at load, recorded exchanges. One parser, one set of refusals:
 *
 * - no DTD at all: a `<!DOCTYPE` is refused when it is met, so no entity is ever declared,
 *   expanded or fetched (billion laughs, external entities and parameter entities have nothing
 *   to work with); only the five predefined entities and character references are read;
 * - bounded: input size, nesting depth, element count, attributes per element, name length and
 *   text length, each counted while the document streams, so a bomb stops at its limit instead
 *   of after it is built.
 *
 * saxes does the XML itself: a conformant, namespace-aware streaming parser with no network or
 * file access of its own, which reports (and never expands) an undefined entity as an error. The
 * tree it yields is the small model below: elements with their namespace URI, attributes and
 * children (elements and text), and the namespace bindings in scope, which WSDL and XSD read
 * QNames (`type="tns:Forecast"`) through.
 */
import { SaxesParser, type SaxesTagNS } from 'saxes';
import { type ErrorCode, SculptorError } from '../errors/sculptor-error.ts';
import { XML_LIMITS, type XmlLimits } from './xml-limits.ts';

export interface XmlAttribute {
  /** Namespace URI; '' for an unprefixed attribute. */
  uri: string;
  local: string;
  value: string;
}

export interface XmlElement {
  /** Namespace URI; '' when the element is in no namespace. */
  uri: string;
  local: string;
  /** The prefix as written (for messages only: prefixes carry no meaning). */
  prefix: string;
  /** Attributes, namespace declarations left out. */
  attributes: XmlAttribute[];
  /** Child elements and text, in document order (adjacent text and CDATA joined). */
  children: Array<XmlElement | string>;
  /** Namespace bindings in scope here, prefix → URI ('' for the default namespace). */
  ns: Readonly<Record<string, string>>;
  /** 1-based line of the start tag. */
  line: number;
}

export interface ParseXmlOptions {
  /** The code of every refusal: `upstream.invalid_response` for an answer, `load.wsdl` at load… */
  code: ErrorCode;
  /** What is being read, for messages: "the backend answer", a file name. */
  source: string;
  limits?: Partial<XmlLimits>;
}

const XMLNS = 'http://www.w3.org/2000/xmlns/';
const ROOT_NS: Readonly<Record<string, string>> = Object.freeze(
  Object.assign(Object.create(null) as Record<string, string>, {
    xml: 'http://www.w3.org/XML/1998/namespace',
  }),
);

/** Parses a whole document into its root element, or throws a SculptorError of `options.code`. */
export function parseXml(text: string, options: ParseXmlOptions): XmlElement {
  const limits = { ...XML_LIMITS, ...options.limits };
  const refuse = (message: string, line?: number): never => {
    const where = line === undefined ? '' : ` (line ${line})`;
    throw new SculptorError(
      options.code,
      `${options.source} is not XML Sculptor accepts${where}: ${message}`,
    );
  };
  if (text.length > limits.maxBytes) {
    refuse(`it is larger than ${limits.maxBytes} characters.`);
  }

  const parser = new SaxesParser({ xmlns: true, position: true });
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  let elements = 0;
  let attributesOnTag = 0;

  const appendText = (value: string): void => {
    const parent = stack[stack.length - 1];
    if (!parent) return; // white space around the root element
    const children = parent.children;
    const last = children[children.length - 1];
    const joined = typeof last === 'string' ? last.length + value.length : value.length;
    if (joined > limits.maxTextLength) {
      refuse(`a text is longer than ${limits.maxTextLength} characters.`, parser.line);
    }
    if (typeof last === 'string') children[children.length - 1] = last + value;
    else children.push(value);
  };

  parser.on('doctype', () =>
    refuse(
      'it declares a DTD (<!DOCTYPE>); DTDs and entities are refused, nothing is expanded.',
      parser.line,
    ),
  );
  parser.on('opentagstart', (tag) => {
    if (tag.name.length > limits.maxNameLength) {
      refuse(`an element name is longer than ${limits.maxNameLength} characters.`, parser.line);
    }
    attributesOnTag = 0;
    if (++elements > limits.maxElements) refuse(`it has more than ${limits.maxElements} elements.`);
    if (stack.length + 1 > limits.maxDepth) {
      refuse(`elements nest deeper than ${limits.maxDepth} levels.`, parser.line);
    }
  });
  parser.on('attribute', (attribute) => {
    if (++attributesOnTag > limits.maxAttributes) {
      refuse(`an element has more than ${limits.maxAttributes} attributes.`, parser.line);
    }
    if (attribute.name.length > limits.maxNameLength) {
      refuse(`an attribute name is longer than ${limits.maxNameLength} characters.`, parser.line);
    }
    if (attribute.value.length > limits.maxTextLength) {
      refuse(`an attribute value is longer than ${limits.maxTextLength} characters.`, parser.line);
    }
  });
  parser.on('opentag', (tag: SaxesTagNS) => {
    const attributes: XmlAttribute[] = [];
    for (const attribute of Object.values(tag.attributes)) {
      if (attribute.uri === XMLNS) continue;
      attributes.push({ uri: attribute.uri, local: attribute.local, value: attribute.value });
    }
    const parent = stack[stack.length - 1];
    const declared = Object.keys(tag.ns);
    const ns =
      declared.length === 0
        ? (parent?.ns ?? ROOT_NS)
        : Object.assign(Object.create(parent?.ns ?? ROOT_NS) as Record<string, string>, tag.ns);
    const element: XmlElement = {
      uri: tag.uri,
      local: tag.local,
      prefix: tag.prefix,
      attributes,
      children: [],
      ns,
      line: parser.line,
    };
    if (parent) parent.children.push(element);
    else root = element;
    stack.push(element);
  });
  parser.on('closetag', () => {
    stack.pop();
  });
  parser.on('text', appendText);
  parser.on('cdata', appendText);

  try {
    parser.write(text).close();
  } catch (error) {
    if (error instanceof SculptorError) throw error;
    // saxes's messages are `line:column: reason`, with no data from the document.
    const [, line, reason] = /^(\d+):\d+: (.*)$/s.exec((error as Error).message) ?? [];
    const hint =
      reason === 'undefined entity.'
        ? ' Only &amp; &lt; &gt; &quot; &apos; and character references are read.'
        : '';
    refuse(`${reason ?? (error as Error).message}${hint}`, line === undefined ? undefined : Number(line));
  }
  if (!root) refuse('it has no root element.');
  return root!;
}

/** The element's text: its text children joined (child elements' text is not included). */
export function textOf(element: XmlElement): string {
  let text = '';
  for (const child of element.children) if (typeof child === 'string') text += child;
  return text;
}

/** The child elements, text left out. */
export function childElements(element: XmlElement): XmlElement[] {
  return element.children.filter((child): child is XmlElement => typeof child !== 'string');
}

/** The value of an unqualified attribute (or one in `uri`), if present. */
export function attributeOf(element: XmlElement, local: string, uri = ''): string | undefined {
  return element.attributes.find((a) => a.local === local && a.uri === uri)?.value;
}

/**
 * A QName-valued attribute (`type="tns:Forecast"`) resolved through the bindings in scope;
 * an unprefixed name takes the default namespace, as XSD reads type and element references.
 */
export function resolveQName(element: XmlElement, qname: string): { uri: string; local: string } {
  const colon = qname.indexOf(':');
  const prefix = colon < 0 ? '' : qname.slice(0, colon);
  const local = colon < 0 ? qname : qname.slice(colon + 1);
  return { uri: element.ns[prefix] ?? '', local };
}
