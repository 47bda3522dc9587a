import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMap, parseDocument, YAMLMap } from 'yaml';
import { SculptorError } from '../errors/sculptor-error.ts';
import { findOperation } from '../openapi/find-operation.ts';
import { loadOpenApi, type OpenApiDocument, type Operation } from '../openapi/load-openapi.ts';
import { BACKENDS_FILE, SCULPT_SUFFIX } from '../sculpt/load-sculpts.ts';
import { type OpenApiExtras, readOpenApiExtras, type SecurityScheme } from './openapi-extras.ts';
import { scaffoldSculpt, snakeCase } from './scaffold-sculpt.ts';

export interface InitOptions {
  /** The OpenAPI (or Swagger 2.0) document. */
  openapi: string;
  /** operationId, or `METHOD /path` as written in the document. */
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
const SCHEMAS = {
  sculpt: path.resolve(here, '../sculpt/sculpt.schema.json'),
  backends: path.resolve(here, '../sculpt/backends.schema.json'),
  test: path.resolve(here, '../testing/sculpt-test.schema.json'),
};

function posix(relative: string): string {
  return relative.split(path.sep).join('/');
}

/** Writes `<tool>.v1.sculpt.yaml`, `<tool>.test.yaml` and (when needed) a backends.yaml entry. */
export async function initSculpt(options: InitOptions): Promise<InitResult> {
  const out = path.resolve(options.out);
  const openapiFile = path.resolve(options.openapi);
  const document = options.loaded?.document ?? (await loadOpenApi(openapiFile));
  const operation = findOperation(document, options.operation);
  const extras = options.loaded?.extras ?? (await readOpenApiExtras(openapiFile));

  await mkdir(out, { recursive: true });
  const backendsFile = path.join(out, BACKENDS_FILE);
  const existing = await readIfExists(backendsFile);
  const backend = chooseBackend(existing, out, openapiFile, document, options.backend);

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
  });
  if (!/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/.test(scaffold.toolName) || scaffold.toolName.length > 254) {
    throw new SculptorError(
      'load.schema',
      `'${scaffold.toolName}' is not a tool name: use snake case, e.g. get_album.`,
    );
  }

  const sculptFile = path.join(out, `${scaffold.toolName}.v1${SCULPT_SUFFIX}`);
  const testFile = path.join(out, `${scaffold.toolName}.test.yaml`);
  if (!options.force) {
    for (const file of [sculptFile, testFile]) {
      if (await exists(file)) {
        throw new SculptorError(
          'load.io',
          `${file} already exists; choose another --name, or --force to overwrite it.`,
        );
      }
    }
  }

  let backends: InitResult['backends'] = 'reused';
  if (!backend.reused) {
    const text = backendsText(existing, backend.name, {
      openapi: posix(path.relative(out, openapiFile)),
      document,
      operation,
      extras,
      schema: posix(path.relative(out, SCHEMAS.backends)),
    });
    await writeFile(backendsFile, text, 'utf8');
    backends = existing === undefined ? 'created' : 'added';
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

async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

async function exists(file: string): Promise<boolean> {
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
        const openapi = isMap(value) ? value.get('openapi') : undefined;
        declared.set(name, typeof openapi === 'string' ? path.resolve(out, openapi) : undefined);
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
          `Backend '${wanted}' in ${BACKENDS_FILE} uses another OpenAPI document; choose another --backend.`,
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
  openapi: string;
  document: OpenApiDocument;
  operation: Operation;
  extras: OpenApiExtras;
  schema: string;
}

/** backends.yaml with the new backend: a new file, or the existing one with an entry added (comments kept). */
function backendsText(existing: string | undefined, name: string, facts: BackendFacts): string {
  const variable = snakeCase(name).toUpperCase();
  const server = facts.document.servers[0];
  const entry: Record<string, unknown> = {
    openapi: facts.openapi,
    baseUrl: `\${${variable}_BASE_URL:-${server ?? 'https://example.invalid'}}`,
    headers: { Accept: 'application/json' },
  };
  const notes: string[] = [];
  if (!server)
    notes.push(`REVIEW: the document names no server; set ${variable}_BASE_URL or write the base URL here.`);
  const auth = authFor(facts.operation, facts.extras, variable);
  if (auth) {
    entry.auth = [auth.entry];
    notes.push(`REVIEW: ${auth.note}`);
  }

  if (existing === undefined) {
    const lines = [
      `# yaml-language-server: $schema=${facts.schema}`,
      '# The backends the sculpts of this folder call (written by `sculptor init`).',
      'backends:',
      `  ${name}:`,
      ...notes.map((n) => `    # ${n}`),
      `    openapi: ${JSON.stringify(entry.openapi)}`,
      `    baseUrl: ${JSON.stringify(entry.baseUrl)}`,
      '    headers:',
      '      Accept: application/json',
    ];
    if (auth) {
      lines.push(
        '    auth:',
        `      - { in: ${auth.entry.in}, name: ${JSON.stringify(auth.entry.name)}, value: ${JSON.stringify(auth.entry.value)} }`,
      );
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

/** The credentials the operation asks for, as an environment reference, with what to check. */
function authFor(
  operation: Operation,
  extras: OpenApiExtras,
  variable: string,
): { entry: { in: string; name: string; value: string }; note: string } | undefined {
  const names = operation.security.flatMap((requirement) => Object.keys(requirement));
  let scheme: SecurityScheme | undefined = names.map((n) => extras.securitySchemes.get(n)).find((s) => s);
  // Documents often define their one scheme and forget to require it anywhere.
  if (!scheme && names.length === 0 && extras.securitySchemes.size === 1) {
    scheme = [...extras.securitySchemes.values()][0];
  }
  if (!scheme) return undefined;
  if (scheme.type === 'apiKey' && scheme.keyName && ['header', 'query', 'cookie'].includes(scheme.in ?? '')) {
    return {
      entry: { in: scheme.in!, name: scheme.keyName, value: `\${${variable}_API_KEY}` },
      note: `${scheme.name} (apiKey in ${scheme.in}): set ${variable}_API_KEY where the gateway runs.`,
    };
  }
  if (scheme.type === 'basic' || (scheme.type === 'http' && scheme.scheme === 'basic')) {
    return {
      entry: { in: 'header', name: 'Authorization', value: `Basic \${${variable}_BASIC_CREDENTIALS}` },
      note: `${scheme.name} (HTTP basic): set ${variable}_BASIC_CREDENTIALS to base64("user:password").`,
    };
  }
  return {
    entry: { in: 'header', name: 'Authorization', value: `Bearer \${${variable}_TOKEN}` },
    note: `${scheme.name} (${scheme.type}${scheme.scheme ? ` ${scheme.scheme}` : ''}): set ${variable}_TOKEN to an access token; obtaining and refreshing it is up to the deployment.`,
  };
}
