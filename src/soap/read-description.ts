/**
 * Reads a WSDL 1.1 description and every document it pulls in: `wsdl:import`s, and the
 * `xsd:import`s and `xsd:include`s of its schemas (with their locations), recursively, each once.
 * Every document is parsed by the one safe XML parser (no DTD, bounded), and the whole set is
 * bounded in count and size.
 *
 * Where documents come from: a local description reads local files by relative location only
 * (an absolute path or `file:` URL is refused, so a description cannot pull arbitrary files in);
 * `http(s)://` locations, the entry's own or an import's, are read through `fetchText`, which the
 * caller makes from Sculptor's own HTTP client, so the egress policy, size caps and deadline
 * apply. Locations for the namespaces every SOAP stack knows (XSD, SOAP encoding, WSDL) are not
 * read at all.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { SculptorError } from '../errors/sculptor-error.ts';
import { attributeOf, childElements, parseXml, type XmlElement } from '../xml/parse-xml.ts';
import { XSD } from '../xml/xml-schema.ts';
import type { SchemaDocument } from './read-xsd.ts';
import { NS } from './soap-namespaces.ts';

export interface DescriptionLimits {
  /** Documents in one description, the entry included. */
  maxDocuments: number;
  /** Characters of all its documents together. */
  maxBytes: number;
}

export const DESCRIPTION_LIMITS: DescriptionLimits = { maxDocuments: 256, maxBytes: 32 * 1024 * 1024 };

/** Reads an `http(s)://` location; absent, such a location is refused. */
export type FetchText = (url: string) => Promise<string>;

export interface Definitions {
  root: XmlElement;
  file: string;
}

export interface Description {
  /** The entry's `wsdl:definitions` first, then those it imports. */
  definitions: Definitions[];
  schemas: SchemaDocument[];
}

/** Namespaces whose schemas a description names but no reader needs: never fetched. */
const KNOWN = new Set<string>([
  XSD,
  NS.soapEncoding,
  NS.wsdl,
  NS.wsdlSoap11,
  NS.wsdlSoap12,
  NS.xsi,
  'http://www.w3.org/XML/1998/namespace',
]);

const WSDL2 = 'http://www.w3.org/ns/wsdl';
const DRAFT_XSD = /^http:\/\/www\.w3\.org\/(1999|2000\/10)\/XMLSchema$/;

export async function readDescription(
  location: string,
  options: { fetchText?: FetchText; limits?: Partial<DescriptionLimits> } = {},
): Promise<Description> {
  const limits = { ...DESCRIPTION_LIMITS, ...options.limits };
  const seen = new Set<string>();
  let bytes = 0;
  const description: Description = { definitions: [], schemas: [] };
  const fail = (message: string): never => {
    throw new SculptorError('load.wsdl', message);
  };

  const read = async (where: string, from: string | undefined): Promise<XmlElement> => {
    if (seen.size >= limits.maxDocuments) {
      fail(`WSDL ${location} pulls in more than ${limits.maxDocuments} documents.`);
    }
    let text: string;
    if (/^https?:\/\//i.test(where)) {
      if (!options.fetchText) {
        fail(
          `${from ?? 'The backend'} names ${where}, a remote document, and remote documents are not read here: copy it beside the description and name it by relative path.`,
        );
      }
      text = await options.fetchText!(where);
    } else {
      try {
        text = await readFile(where, 'utf8');
      } catch (error) {
        throw new SculptorError(
          'load.wsdl',
          `Cannot read ${where}${from ? ` (named in ${from})` : ''}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`,
          { cause: error },
        );
      }
    }
    bytes += text.length;
    if (bytes > limits.maxBytes)
      fail(`WSDL ${location} and the documents it pulls in are larger than ${limits.maxBytes} characters.`);
    return parseXml(text, { code: 'load.wsdl', source: where });
  };

  const schema = async (root: XmlElement, file: string, inherited: string | undefined): Promise<void> => {
    const targetNamespace = attributeOf(root, 'targetNamespace') ?? inherited ?? '';
    description.schemas.push({ root, targetNamespace, file });
    for (const child of childElements(root)) {
      if (child.uri !== XSD || (child.local !== 'import' && child.local !== 'include')) continue;
      const namespace = attributeOf(child, 'namespace');
      const at = attributeOf(child, 'schemaLocation');
      if (at === undefined || (namespace !== undefined && KNOWN.has(namespace))) continue;
      const target = resolveLocation(file, at);
      // An include takes the includer's namespace when it has none of its own (a "chameleon" include).
      const tns = child.local === 'include' ? targetNamespace : undefined;
      const id = `${target}\u0000${tns ?? ''}`;
      if (seen.has(id)) continue;
      seen.add(id);
      const included = await read(target, file);
      if (included.uri !== XSD || included.local !== 'schema') {
        fail(
          `${target} (named by ${file}, line ${child.line}) is not an XML Schema (its root is ${included.local}).`,
        );
      }
      await schema(included, target, tns);
    }
  };

  const definitions = async (root: XmlElement, file: string): Promise<void> => {
    description.definitions.push({ root, file });
    for (const child of childElements(root)) {
      if (child.uri !== NS.wsdl) continue;
      if (child.local === 'types') {
        for (const node of childElements(child)) {
          if (node.uri === XSD && node.local === 'schema') await schema(node, file, undefined);
          else if (node.local === 'schema' && DRAFT_XSD.test(node.uri)) {
            fail(
              `${file} (line ${node.line}) writes its schema in ${node.uri}, a draft of XML Schema; Sculptor reads XML Schema 1.0 (${XSD}).`,
            );
          }
        }
      } else if (child.local === 'import') {
        const at = attributeOf(child, 'location');
        const namespace = attributeOf(child, 'namespace');
        if (at === undefined || (namespace !== undefined && KNOWN.has(namespace))) continue;
        const target = resolveLocation(file, at);
        if (seen.has(target)) continue;
        seen.add(target);
        const imported = await read(target, file);
        if (imported.uri === NS.wsdl && imported.local === 'definitions') await definitions(imported, target);
        else if (imported.uri === XSD && imported.local === 'schema')
          await schema(imported, target, undefined);
        else
          fail(
            `${target} (imported by ${file}, line ${child.line}) is neither a WSDL 1.1 description nor an XML Schema.`,
          );
      }
    }
  };

  const entry = /^https?:\/\//i.test(location) ? location : path.resolve(location);
  seen.add(entry);
  const root = await read(entry, undefined);
  if (root.uri === WSDL2)
    fail(`${location} is a WSDL 2.0 description; Sculptor reads WSDL 1.1 (wsdl:definitions).`);
  if (root.uri !== NS.wsdl || root.local !== 'definitions') {
    fail(
      `${location} is not a WSDL 1.1 description: its root element is ${root.local}${root.uri ? ` in ${root.uri}` : ''}, not wsdl:definitions.`,
    );
  }
  await definitions(root, entry);
  return description;
}

/**
 * A location relative to the document naming it. Under a local document only relative paths
 * (and `http(s)://` URLs) are accepted: an absolute path or another scheme could read any file.
 */
export function resolveLocation(base: string, location: string): string {
  if (/^https?:\/\//i.test(location)) return location;
  if (/^https?:\/\//i.test(base)) return new URL(location, base).toString();
  if (/^[a-z][a-z0-9+.-]*:/i.test(location) || path.isAbsolute(location) || location.startsWith('\\')) {
    throw new SculptorError(
      'load.wsdl',
      `${base} names ${location}: only relative paths (or http(s) URLs) may be named from a local description.`,
    );
  }
  return path.resolve(path.dirname(base), location);
}
