import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';

/**
 * What the gateway's normalized OpenAPI model leaves out because serving
 * never needs it, but a scaffold does: parameter descriptions and the
 * security schemes. Read from the raw (not dereferenced) document; local
 * `$ref`s are followed. Best effort: a document that cannot be read this way
 * just gives no extras.
 */
export interface SecurityScheme {
  name: string;
  /** apiKey, http, oauth2, openIdConnect, basic (Swagger 2). */
  type: string;
  /** http: basic, bearer… */
  scheme?: string;
  /** apiKey: where and under which name. */
  in?: string;
  keyName?: string;
  /** The scheme's description, plain. */
  description?: string;
}

export interface OpenApiExtras {
  securitySchemes: Map<string, SecurityScheme>;
  /** Description of a parameter of an operation, by `in` and name. */
  parameterDescription(method: string, path: string, location: string, name: string): string | undefined;
  /** The tags of an operation. */
  operationTags(method: string, path: string): string[];
}

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export async function readOpenApiExtras(file: string): Promise<OpenApiExtras> {
  let raw: unknown;
  try {
    const text = await readFile(file, 'utf8');
    // JSON first: the YAML parser takes seconds on a 6 MB description (Stripe's).
    raw = parseJson(text) ?? parse(text, { maxAliasCount: 1000, uniqueKeys: false });
  } catch {
    raw = undefined;
  }
  return openApiExtras(isRecord(raw) ? raw : {});
}

function parseJson(text: string): unknown {
  if (!text.trimStart().startsWith('{')) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined; // YAML in flow style, or broken: the YAML parser says
  }
}

export function openApiExtras(doc: Json): OpenApiExtras {
  const resolve = (value: unknown, depth = 0): unknown => {
    if (!isRecord(value) || typeof value.$ref !== 'string' || depth > 16) return value;
    const ref = value.$ref;
    if (!ref.startsWith('#/')) return undefined;
    let node: unknown = doc;
    for (const part of ref.slice(2).split('/')) {
      const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
      node = isRecord(node) ? node[key] : undefined;
    }
    return resolve(node, depth + 1);
  };

  const securitySchemes = new Map<string, SecurityScheme>();
  const components = isRecord(doc.components) ? doc.components : {};
  const declared = isRecord(components.securitySchemes)
    ? components.securitySchemes
    : isRecord(doc.securityDefinitions)
      ? doc.securityDefinitions
      : {};
  for (const [name, value] of Object.entries(declared)) {
    const s = resolve(value);
    if (!isRecord(s) || typeof s.type !== 'string') continue;
    const scheme: SecurityScheme = { name, type: s.type };
    if (typeof s.scheme === 'string') scheme.scheme = s.scheme.toLowerCase();
    if (typeof s.in === 'string') scheme.in = s.in;
    if (typeof s.name === 'string') scheme.keyName = s.name;
    if (typeof s.description === 'string') scheme.description = s.description;
    securitySchemes.set(name, scheme);
  }

  const operationOf = (method: string, path: string) => {
    const paths = isRecord(doc.paths) ? doc.paths : {};
    const item = resolve(paths[path]);
    return isRecord(item) ? { item, operation: resolve(item[method.toLowerCase()]) } : undefined;
  };
  return {
    securitySchemes,
    operationTags(method, path) {
      const tags = operationOf(method, path)?.operation;
      return isRecord(tags) && Array.isArray(tags.tags) ? tags.tags.filter((t) => typeof t === 'string') : [];
    },
    parameterDescription(method, path, location, name) {
      const found = operationOf(method, path);
      if (!found) return undefined;
      const { item, operation } = found;
      const lists = [isRecord(operation) ? operation.parameters : undefined, item.parameters];
      for (const list of lists) {
        if (!Array.isArray(list)) continue;
        for (const entry of list) {
          const p = resolve(entry);
          if (isRecord(p) && p.name === name && p.in === location && typeof p.description === 'string') {
            return p.description;
          }
        }
      }
      return undefined;
    },
  };
}
