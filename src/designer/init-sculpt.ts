import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMap, isSeq, parseDocument, YAMLMap } from 'yaml';
import { SculptorError } from '../errors/sculptor-error.ts';
import { findOperation } from '../openapi/find-operation.ts';
import { loadOpenApi, type OpenApiDocument, type Operation } from '../openapi/load-openapi.ts';
import { loadWsdl } from '../soap/load-wsdl.ts';
import { flatten, type XmlSchema } from '../xml/xml-schema.ts';
import { BACKENDS_FILE, SCULPT_SUFFIX } from '../sculpt/load-sculpts.ts';
import { type OpenApiExtras, readOpenApiExtras, type SecurityScheme } from './openapi-extras.ts';
import { type CredentialParameter, scaffoldSculpt, snakeCase } from './scaffold-sculpt.ts';

export interface InitOptions {
  /** The OpenAPI (or Swagger 2.0) document; or, instead, `wsdl`. */
  openapi?: string;
  /** A SOAP service's WSDL 1.1 description (local file). */
  wsdl?: string;
  /** WSDL: the port whose operations are used (default the first SOAP port). */
  port?: string;
  /** operationId, or `METHOD /path` as written in the document; a WSDL operation's name. */
  operation: string;
  /** The sculpt folder to write into (created when missing). */
  out: string;
  /** Backend name; default: one already pointing at this document, else from the document's title. */
  backend?: string;
  /** Tool name; default: from the operation's summary, operationId or route. */
  name?: string;
  /** Overwrite an existing sculpt or test file of the same name. */
  force?: boolean;
  /** `openapi` already loaded, for a caller scaffolding many of its operations (the corpus test). */
  loaded?: { document: OpenApiDocument; extras: OpenApiExtras };
}

export interface InitResult {
  toolName: string;
  backend: string;
  sculptFile: string;
  testFile: string;
  backendsFile: string;
  /** What happened to backends.yaml. */
  backends: 'created' | 'added' | 'reused';
  reviews: number;
}

const here = path.dirname(fileURLToPath(import.meta.url));
export const SCHEMAS = {
  sculpt: path.resolve(here, '../sculpt/sculpt.schema.json'),
  backends: path.resolve(here, '../sculpt/backends.schema.json'),
  test: path.resolve(here, '../testing/sculpt-test.schema.json'),
};

export function posix(relative: string): string {
  return relative.split(path.sep).join('/');
}

/** Writes `<tool>.v1.sculpt.yaml`, `<tool>.test.yaml` and (when needed) a backends.yaml entry. */
export async function initSculpt(options: InitOptions): Promise<InitResult> {
  const out = path.resolve(options.out);
  const kind = options.wsdl !== undefined ? 'wsdl' : 'openapi';
  if ((options.openapi === undefined) === (options.wsdl === undefined)) {
    throw new SculptorError(
      'load.schema',
      'Name the description: exactly one of --openapi FILE or --wsdl FILE.',
    );
  }
  const openapiFile = path.resolve((options.wsdl ?? options.openapi)!);
  const document =
    options.loaded?.document ??
    (kind === 'wsdl'
      ? await loadWsdl(openapiFile, options.port !== undefined ? { port: options.port } : {})
      : await loadOpenApi(openapiFile));
  const operation = scaffoldView(findOperation(document, options.operation));
  const extras =
    options.loaded?.extras ?? (kind === 'wsdl' ? NO_EXTRAS : await readOpenApiExtras(openapiFile));

  await mkdir(out, { recursive: true });
  const backendsFile = path.join(out, BACKENDS_FILE);
  const existing = await readIfExists(backendsFile);
  const backend = chooseBackend(existing, out, openapiFile, document, options.backend, kind);

  const unique =
    operation.operationId !== undefined &&
    document.operations.filter((op) => op.operationId === operation.operationId).length === 1;
  const scaffold = scaffoldSculpt(operation, {
    backend: backend.name,
    ...(options.name !== undefined ? { toolName: options.name } : {}),
    ...(unique ? { operationRef: `#${operation.operationId}` } : {}),
    documentLabel: posix(path.relative(out, openapiFile)),
    describeParameter: (location, name) =>
      extras.parameterDescription(operation.method, operation.path, location, name),
    sculptSchema: posix(path.relative(out, SCHEMAS.sculpt)),
    testSchema: posix(path.relative(out, SCHEMAS.test)),
    schemeParameters: schemeParameters(extras),
  });
  const { sculptFile, testFile } = await scaffoldFiles(out, scaffold.toolName, options.force);

  let backends: InitResult['backends'] = 'reused';
  if (!backend.reused) {
    const text = backendsText(existing, backend.name, {
      kind,
      ...(options.port !== undefined ? { port: options.port } : {}),
      openapi: posix(path.relative(out, openapiFile)),
      document,
      operation,
      extras,
      schema: posix(path.relative(out, SCHEMAS.backends)),
      credentials: scaffold.credentials,
    });
    await writeFile(backendsFile, text, 'utf8');
    backends = existing === undefined ? 'created' : 'added';
  } else if (existing !== undefined) {
    const variable = snakeCase(backend.name).toUpperCase();
    const text = withCredentials(existing, backend.name, variable, scaffold.credentials);
    if (text !== undefined) await writeFile(backendsFile, text, 'utf8');
  }
  await writeFile(sculptFile, scaffold.sculptText, 'utf8');
  await writeFile(testFile, scaffold.testText, 'utf8');
  return {
    toolName: scaffold.toolName,
    backend: backend.name,
    sculptFile,
    testFile,
    backendsFile,
    backends,
    reviews: scaffold.reviews,
  };
}

/** A WSDL's documents carry no OpenAPI extras: no security schemes, no parameter descriptions. */
const NO_EXTRAS: OpenApiExtras = {
  securitySchemes: new Map(),
  parameterDescription: () => undefined,
  operationTags: () => [],
};

/**
 * The operation as the scaffold reads it: a SOAP message's fields with their XSD types merged
 * (each use of a named type is an `allOf` of it), so an enumeration or a scalar type is seen.
 */
function scaffoldView(operation: Operation): Operation {
  const body = operation.requestBody;
  if (!operation.codec || !body?.schema) return operation;
  const merged = flatten(body.schema as XmlSchema);
  const properties = Object.fromEntries(
    Object.entries(merged?.properties ?? {}).map(([name, p]) => [name, flatten(p) ?? p]),
  );
  return { ...operation, requestBody: { ...body, schema: { ...merged, properties } } };
}

/** `query:license`, `header:x-api-key`: the parameters the document's apiKey schemes carry. */
function schemeParameters(extras: OpenApiExtras): Set<string> {
  const out = new Set<string>();
  for (const scheme of extras.securitySchemes.values()) {
    if (scheme.type === 'apiKey' && scheme.in && scheme.keyName) {
      out.add(`${scheme.in}:${scheme.keyName.toLowerCase()}`);
    }
  }
  return out;
}

/** What a tool or an input may be called: snake case. */
export const SNAKE_NAME = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

/**
 * The sculpt and the test file a scaffold writes for `toolName` in `out`; refused when the name is
 * not a tool name, or, without `force`, when either file exists (a scaffold never overwrites work).
 */
export async function scaffoldFiles(
  out: string,
  toolName: string,
  force: boolean | undefined,
): Promise<{ sculptFile: string; testFile: string }> {
  if (!SNAKE_NAME.test(toolName) || toolName.length > 254) {
    throw new SculptorError(
      'load.schema',
      `'${toolName}' is not a tool name: give one in snake case with --name, e.g. get_album.`,
    );
  }
  const sculptFile = path.join(out, `${toolName}.v1${SCULPT_SUFFIX}`);
  const testFile = path.join(out, `${toolName}.test.yaml`);
  if (!force) {
    for (const file of [sculptFile, testFile]) {
      if (await exists(file)) {
        throw new SculptorError(
          'load.io',
          `${file} already exists; choose another --name, or --force to overwrite it.`,
        );
      }
    }
  }
  return { sculptFile, testFile };
}

export async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

export async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

/** A backend of backends.yaml already pointing at this document, else a fresh name. */
function chooseBackend(
  existing: string | undefined,
  out: string,
  openapiFile: string,
  document: OpenApiDocument,
  wanted: string | undefined,
  kind: 'openapi' | 'wsdl',
): { name: string; reused: boolean } {
  const declared = new Map<string, string | undefined>();
  if (existing !== undefined) {
    const doc = parseDocument(existing);
    if (doc.errors.length > 0) {
      throw new SculptorError('load.yaml', `${path.join(out, BACKENDS_FILE)} does not parse: fix it first.`);
    }
    const backends = doc.get('backends');
    if (isMap(backends)) {
      for (const pair of backends.items) {
        const name = String((pair.key as { value?: unknown })?.value ?? pair.key);
        const value = pair.value as YAMLMap | undefined;
        const described = isMap(value) ? value.get(kind) : undefined;
        declared.set(name, typeof described === 'string' ? path.resolve(out, described) : undefined);
      }
    }
  }
  if (wanted !== undefined) {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(wanted)) {
      throw new SculptorError('load.schema', `'${wanted}' is not a backend name (letters, digits, _ and -).`);
    }
    if (declared.has(wanted)) {
      if (declared.get(wanted) !== openapiFile) {
        throw new SculptorError(
          'load.schema',
          `Backend '${wanted}' in ${BACKENDS_FILE} uses another ${kind === 'wsdl' ? 'WSDL description' : 'OpenAPI document'}; choose another --backend.`,
        );
      }
      return { name: wanted, reused: true };
    }
    return { name: wanted, reused: false };
  }
  for (const [name, file] of declared) if (file === openapiFile) return { name, reused: true };
  const base =
    (document.title.split(/[\s(]/)[0] ?? '').toLowerCase().replace(/[^a-z0-9]+/g, '') ||
    snakeCase(
      new URL(document.servers[0] ?? 'https://api.invalid').hostname.replace(/^api\./, '').split('.')[0]!,
    );
  let name = base.slice(0, 60) || 'backend';
  for (let i = 2; declared.has(name); i++) name = `${base}_${i}`;
  return { name, reused: false };
}

interface BackendFacts {
  kind: 'openapi' | 'wsdl';
  /** WSDL: the port named on the command line. */
  port?: string;
  /** The description's path, relative to the sculpt folder. */
  openapi: string;
  document: OpenApiDocument;
  operation: Operation;
  extras: OpenApiExtras;
  schema: string;
  credentials: CredentialParameter[];
}

/** backends.schema.json's bound on a backend's `auth` entries. */
const MAX_AUTH = 4;

/** One `auth` entry of backends.yaml, with the REVIEW note that says which variable to set. */
export interface AuthEntry {
  in: string;
  name: string;
  value: string;
  note: string;
}

/** backends.yaml with the new backend: a new file, or the existing one with an entry added (comments kept). */
function backendsText(existing: string | undefined, name: string, facts: BackendFacts): string {
  const variable = snakeCase(name).toUpperCase();
  const server = facts.document.servers[0];
  const soap = facts.kind === 'wsdl';
  const entry: Record<string, unknown> = {
    [facts.kind]: facts.openapi,
    ...(facts.port !== undefined ? { port: facts.port } : {}),
    baseUrl: `\${${variable}_BASE_URL:-${server ?? 'https://example.invalid'}}`,
    // A SOAP call's content type is its binding's; Accept is not sent.
    ...(soap ? {} : { headers: { Accept: 'application/json' } }),
  };
  const notes: string[] = [];
  if (!server)
    notes.push(`REVIEW: the document names no server; set ${variable}_BASE_URL or write the base URL here.`);
  else if (soap && server.startsWith('http://'))
    notes.push(
      `REVIEW: the description's endpoint is plain HTTP; use its https:// address if the service has one.`,
    );
  const auth = authEntries(facts.operation, facts.extras, variable, facts.credentials);
  if (auth.length > 0) {
    entry.auth = auth.map(({ note: _note, ...e }) => e);
    notes.push(...auth.map((a) => `REVIEW: ${a.note}`));
  }

  if (existing === undefined) {
    const lines = [
      `# yaml-language-server: $schema=${facts.schema}`,
      '# The backends the sculpts of this folder call (written by `sculptor init`).',
      'backends:',
      `  ${name}:`,
      ...notes.map((n) => `    # ${n}`),
      `    ${facts.kind}: ${JSON.stringify(facts.openapi)}`,
      ...(facts.port !== undefined ? [`    port: ${JSON.stringify(facts.port)}`] : []),
      `    baseUrl: ${JSON.stringify(entry.baseUrl)}`,
      ...(soap ? [] : ['    headers:', '      Accept: application/json']),
    ];
    if (auth.length > 0) {
      lines.push('    auth:');
      for (const a of auth) lines.push(`      - ${authLine(a)}`);
    }
    return `${lines.join('\n')}\n`;
  }
  const doc = parseDocument(existing);
  let backends = doc.get('backends');
  if (!isMap(backends)) {
    backends = new YAMLMap();
    doc.set('backends', backends);
  }
  const node = doc.createNode(entry);
  if (notes.length > 0) node.commentBefore = notes.map((n) => ` ${n}`).join('\n');
  (backends as YAMLMap).set(name, node);
  return doc.toString();
}

function authLine(a: AuthEntry): string {
  return `{ in: ${a.in}, name: ${JSON.stringify(a.name)}, value: ${JSON.stringify(a.value)} }`;
}

/**
 * A backend reused for another operation gets the credential parameters this one adds (an API
 * whose every call carries a `license` query parameter), each with its note; the rest of the
 * file, comments included, is kept. Undefined when nothing is missing.
 */
function withCredentials(
  existing: string,
  name: string,
  variable: string,
  credentials: CredentialParameter[],
) {
  const doc = parseDocument(existing);
  const backend = doc.getIn(['backends', name]);
  if (!isMap(backend)) return undefined;
  const present = new Set<string>();
  const auth = backend.get('auth');
  if (isSeq(auth)) {
    for (const item of auth.items) {
      if (isMap(item)) present.add(`${String(item.get('in'))}:${String(item.get('name')).toLowerCase()}`);
    }
  }
  const missing = credentials
    .filter((c) => !c.fromScheme && !present.has(`${c.in}:${c.name.toLowerCase()}`))
    .map((c) => parameterAuth(c, variable))
    .slice(0, Math.max(0, MAX_AUTH - present.size));
  if (missing.length === 0) return undefined;
  const list = isSeq(auth) ? auth : doc.createNode([]);
  for (const a of missing) {
    const item = doc.createNode({ in: a.in, name: a.name, value: a.value });
    item.flow = true;
    item.commentBefore = ` REVIEW: ${a.note}`;
    list.items.push(item);
  }
  if (!isSeq(auth)) backend.set('auth', list);
  return doc.toString();
}

/** The variable and note for a parameter that is a credential (`license` → INTERZOID_LICENSE). */
function parameterAuth(c: CredentialParameter, variable: string): AuthEntry {
  const name = `${variable}_${snakeCase(c.name).toUpperCase()}`;
  const what = c.description
    ? ` ("${c.description.length > 80 ? `${c.description.slice(0, 79)}…` : c.description}")`
    : '';
  return {
    in: c.in,
    name: c.name,
    value: `\${${name}}`,
    note: `${c.name} (${c.in})${what} is a credential: set ${name} where the gateway runs; the LLM never sees it.`,
  };
}

/** How much a scheme is worth choosing when an operation accepts several: a token over a password. */
function rank(scheme: SecurityScheme): number {
  if (scheme.type === 'http' && scheme.scheme === 'bearer') return 0;
  if (scheme.type === 'apiKey') return 1;
  if (scheme.type === 'oauth2' || scheme.type === 'openIdConnect') return 2;
  if (scheme.type === 'basic' || scheme.scheme === 'basic') return 4;
  return 3;
}

/** The credentials the operation asks for, as environment references, each with what to set. */
function authEntries(
  operation: Operation,
  extras: OpenApiExtras,
  variable: string,
  credentials: CredentialParameter[],
): AuthEntry[] {
  const entries: AuthEntry[] = [];
  const scheme = chooseScheme(operation, extras);
  if (scheme) entries.push(schemeAuth(scheme, variable));
  const taken = new Set(entries.map((e) => `${e.in}:${e.name.toLowerCase()}`));
  for (const c of credentials) {
    const key = `${c.in}:${c.name.toLowerCase()}`;
    const entry = parameterAuth(c, variable);
    // Slack's `token` parameter holds the token its OAuth scheme sends already: one is enough.
    if (c.fromScheme || taken.has(key) || entries.some((e) => e.value.includes(entry.value))) continue;
    taken.add(key);
    entries.push(entry);
  }
  return entries.slice(0, MAX_AUTH);
}

/** The scheme to scaffold: of those the operation accepts, a bearer token before a key before a password. */
export function chooseScheme(operation: Operation, extras: OpenApiExtras): SecurityScheme | undefined {
  const names = operation.security.flatMap((requirement) => Object.keys(requirement));
  const accepted = names.flatMap((n) => extras.securitySchemes.get(n) ?? []);
  // Documents often define their one scheme and forget to require it anywhere.
  if (accepted.length === 0 && names.length === 0 && extras.securitySchemes.size === 1) {
    accepted.push(...extras.securitySchemes.values());
  }
  return accepted.sort((a, b) => rank(a) - rank(b))[0];
}

export function schemeAuth(scheme: SecurityScheme, variable: string): AuthEntry {
  if (scheme.type === 'apiKey' && scheme.keyName && ['header', 'query', 'cookie'].includes(scheme.in ?? '')) {
    const key = `${variable}_API_KEY`;
    const where = `${scheme.name} (apiKey in ${scheme.in} ${scheme.keyName})`;
    if (scheme.in === 'header' && scheme.keyName.toLowerCase() === 'authorization') {
      // The whole header is the key: an API that wants "Bot <token>" or "Token <key>" says so somewhere.
      const prefix = schemePrefix(scheme);
      return {
        in: 'header',
        name: scheme.keyName,
        value: prefix ? `${prefix} \${${key}}` : `\${${key}}`,
        note: prefix
          ? `${where}: the header is sent as "${prefix} <token>"; set ${key} to the token alone, without "${prefix} ", where the gateway runs.`
          : `${where}: the header is sent as ${key}'s whole value; if the API expects a scheme word before the key ("Bearer …", "Token …"), write it here before \${${key}}. Set ${key} where the gateway runs.`,
      };
    }
    return {
      in: scheme.in!,
      name: scheme.keyName,
      value: `\${${key}}`,
      note: `${where}: set ${key} where the gateway runs.`,
    };
  }
  if (scheme.type === 'basic' || (scheme.type === 'http' && scheme.scheme === 'basic')) {
    const key = `${variable}_BASIC_CREDENTIALS`;
    return {
      in: 'header',
      name: 'Authorization',
      value: `Basic \${${key}}`,
      note: `${scheme.name} (HTTP basic): set ${key} to base64("user:password").`,
    };
  }
  const key = `${variable}_TOKEN`;
  return {
    in: 'header',
    name: 'Authorization',
    value: `Bearer \${${key}}`,
    note: `${scheme.name} (${scheme.type}${scheme.scheme ? ` ${scheme.scheme}` : ''}): set ${key} to an access token; obtaining and refreshing it is up to the deployment.`,
  };
}

/** Words that name a credential, not the scheme word an Authorization header starts with. */
const GENERIC_SCHEME_WORDS =
  /^(api|key|keys|token|tokens|auth|authorization|header|access|secret|app|application|user|client|http|custom)$/i;

/**
 * The word an `Authorization` header must start with for an apiKey scheme: from its
 * description ("Bot <token>", "prefixed with `Token`") or, failing that, its name (Discord's
 * `BotToken`: "Bot").
 */
export function schemePrefix(scheme: Pick<SecurityScheme, 'name' | 'description'>): string | undefined {
  const text = scheme.description ?? '';
  const shown =
    /["'`]?\b([A-Z][A-Za-z-]{1,20}) (?:<[^>]+>|\{[^}]+\}|\[[^\]]+\]|YOUR[_A-Z-]*|\$\{?[A-Z_]+\}?)/.exec(text);
  // A word shown before the token ("Token <key>") is the scheme word, whatever it is.
  if (shown) return shown[1];
  const prefixed = /prefix(?:ed)?(?: it)? (?:with|by) ["'`]?([A-Za-z-]{2,20})/i.exec(text);
  if (prefixed) return prefixed[1];
  const words = snakeCase(scheme.name).split('_');
  if (words.length === 2 && /^(token|auth|key)$/.test(words[1]!) && !GENERIC_SCHEME_WORDS.test(words[0]!)) {
    return words[0]!.charAt(0).toUpperCase() + words[0]!.slice(1);
  }
  return undefined;
}
