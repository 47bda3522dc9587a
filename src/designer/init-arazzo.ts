import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Document, YAMLSeq } from 'yaml';
import { isMap, parseDocument, YAMLMap } from 'yaml';
import type { Step, Workflow } from '../arazzo/arazzo-document.ts';
import type { ArazzoSource } from '../arazzo/load-arazzo.ts';
import { parsePointer, parseRuntimeExpression } from '../arazzo/runtime-expression.ts';
import { CREDENTIAL_PARAMETER, resolveInputsSchema } from '../compile/compile-workflow.ts';
import { FORBIDDEN_HEADERS } from '../compile/compile-tool.ts';
import { SculptLoadError, SculptorError } from '../errors/sculptor-error.ts';
import { findOperation } from '../openapi/find-operation.ts';
import { loadOpenApi, type OpenApiDocument, type Operation } from '../openapi/load-openapi.ts';
import { BACKENDS_FILE } from '../sculpt/load-sculpts.ts';
import { didYouMean } from './did-you-mean.ts';
import {
  type AuthEntry,
  chooseScheme,
  posix,
  readIfExists,
  scaffoldFiles,
  SCHEMAS,
  SNAKE_NAME,
  schemeAuth,
} from './init-sculpt.ts';
import { readArazzo } from './list-workflows.ts';
import { secretReason } from './secret-names.ts';
import { type OpenApiExtras, readOpenApiExtras } from './openapi-extras.ts';
import { isRecord, type Json, propertiesOf, typeOf } from './scaffold-schema.ts';
import { enumName, field, plainText, q, snakeCase, testStubHead } from './scaffold-text.ts';

export interface InitArazzoOptions {
  /** The Arazzo description (JSON or YAML); its OpenAPI sources are read relative to it. */
  arazzo: string;
  workflowId: string;
  /** The sculpt folder to write into (created when missing). */
  out: string;
  /** Tool name; default: the workflowId in snake case. */
  name?: string;
  force?: boolean;
}

export interface InitArazzoResult {
  toolName: string;
  /** The name backends.yaml gives the description (`workflow: <name>#<workflowId>`). */
  arazzoName: string;
  sculptFile: string;
  testFile: string;
  backendsFile: string;
  backends: 'created' | 'added' | 'reused';
}

const A2T_MAX = 32;
const DEFAULT_STRING_MAX = 256;

interface LoadedSource {
  name: string;
  file: string;
  document: OpenApiDocument;
  /** Its security schemes: the credential its backend's auth sends. */
  extras: OpenApiExtras;
}

/**
 * Scaffolds a sculpt that wraps one workflow of an Arazzo description (`workflow:
 * <name>#<workflowId>`): the tool named after it, the workflow's inputs narrowed to what A2T
 * carries (an object's scalar fields flattened into inputs, an optional input with a default
 * fixed to it, credentials left to the backend), its outputs projected with types read from
 * the OpenAPI answers they come from, and its GET steps listed as cache placeholders. Writes
 * `<tool>.v1.sculpt.yaml`, a `<tool>.test.yaml` stub, and the backends.yaml entries the
 * description needs (one backend per OpenAPI source, the `arazzo` entry). Every decision a
 * designer should check carries a `# REVIEW:` mark.
 */
export async function initArazzo(options: InitArazzoOptions): Promise<InitArazzoResult> {
  const arazzoFile = path.resolve(options.arazzo);
  const arazzo = await readArazzo(arazzoFile);
  const { doc, source } = arazzo;
  const index = doc.workflows.findIndex((w) => w.workflowId === options.workflowId);
  if (index < 0) {
    const ids = doc.workflows.map((w) => w.workflowId);
    throw new SculptorError(
      'compile.arazzo',
      `${path.basename(arazzoFile)} has no workflow '${options.workflowId}'.${didYouMean(options.workflowId, ids)} Its workflows: ${ids.join(', ')} (sculptor operations --arazzo ${options.arazzo} lists them).`,
      { at: source.at(['workflows']) },
    );
  }
  const workflow = doc.workflows[index]!;
  const sources = await loadSources(arazzo);

  const out = path.resolve(options.out);
  await mkdir(out, { recursive: true });
  const toolName = options.name ?? snakeCase(workflow.workflowId);
  const { sculptFile, testFile } = await scaffoldFiles(out, toolName, options.force);

  const backendsFile = path.join(out, BACKENDS_FILE);
  const existing = await readIfExists(backendsFile);
  const operations = stepOperations(workflow, doc.workflows, sources);
  const plan = backendsPlan(existing, out, arazzoFile, sources, operations);
  const sculpt = sculptText({ arazzo, workflow, toolName, arazzoName: plan.arazzoName, operations, out });
  if (plan.text !== undefined) await writeFile(backendsFile, plan.text, 'utf8');
  await writeFile(sculptFile, sculpt.text, 'utf8');
  await writeFile(
    testFile,
    testStub(toolName, sculpt.required, posix(path.relative(out, SCHEMAS.test))),
    'utf8',
  );
  return {
    toolName,
    arazzoName: plan.arazzoName,
    sculptFile,
    testFile,
    backendsFile,
    backends: plan.text === undefined ? 'reused' : existing === undefined ? 'created' : 'added',
  };
}

/** Each OpenAPI source description, loaded from the file its url names (relative to the description). */
async function loadSources(arazzo: ArazzoSource): Promise<LoadedSource[]> {
  const loaded: LoadedSource[] = [];
  const errors: SculptorError[] = [];
  for (const [i, s] of arazzo.doc.sourceDescriptions.entries()) {
    if ((s.type ?? 'openapi') !== 'openapi') continue;
    const at = arazzo.source.at(['sourceDescriptions', i, 'url']);
    if (/^[a-z][a-z0-9+.-]*:/i.test(s.url)) {
      errors.push(
        new SculptorError(
          'load.io',
          `Source '${s.name}' is at ${s.url}: init reads local files. Save the OpenAPI document beside the description and set url to its relative path (e.g. ./${s.name}.openapi.yaml).`,
          { at },
        ),
      );
      continue;
    }
    const file = path.resolve(path.dirname(arazzo.file), decodeURI(s.url.split('#')[0]!));
    try {
      const document = await loadOpenApi(file);
      loaded.push({ name: s.name, file, document, extras: await readOpenApiExtras(file) });
    } catch (err) {
      errors.push(
        new SculptorError(
          'load.io',
          `Source '${s.name}' (${s.url}) cannot be read as OpenAPI: ${(err as Error).message} Fix the url or the document.`,
          { at, cause: err },
        ),
      );
    }
  }
  if (errors.length > 0) throw new SculptLoadError(errors);
  return loaded;
}

interface StepOperation {
  source: LoadedSource;
  operation: Operation;
}

/** The operation of each step of the workflow and of the workflows it calls, by `workflowId/stepId`. */
function stepOperations(
  workflow: Workflow,
  all: Workflow[],
  sources: LoadedSource[],
): Map<string, StepOperation> {
  const found = new Map<string, StepOperation>();
  const visit = (w: Workflow, seen: Set<string>) => {
    if (seen.has(w.workflowId)) return;
    seen.add(w.workflowId);
    for (const step of w.steps) {
      if (step.workflowId !== undefined) {
        const called = all.find((c) => c.workflowId === step.workflowId);
        if (called) visit(called, seen);
        continue;
      }
      const op = operationOf(step, sources);
      if (op) found.set(`${w.workflowId}/${step.stepId}`, op);
    }
  };
  visit(workflow, new Set());
  return found;
}

function operationOf(step: Step, sources: LoadedSource[]): StepOperation | undefined {
  if (step.operationId !== undefined) {
    const qualified = /^\$sourceDescriptions\.([^.]+)\.(.+)$/.exec(step.operationId);
    const candidates = qualified ? sources.filter((s) => s.name === qualified[1]) : sources;
    const id = qualified ? qualified[2]! : step.operationId;
    for (const source of candidates) {
      try {
        return { source, operation: findOperation(source.document, id) };
      } catch {
        // Not in this source; the compile stage reports a step whose operation is in none.
      }
    }
    return undefined;
  }
  const match = /^(?:\{\$sourceDescriptions\.([^.}]+)\.url\}|([A-Za-z0-9_-]+))#(\/paths\/.*)$/.exec(
    step.operationPath ?? '',
  );
  if (!match) return undefined;
  const source = sources.find((s) => s.name === (match[1] ?? match[2]));
  const pointer = parsePointer(match[3]!);
  if (!source || typeof pointer === 'string' || pointer.length !== 3) return undefined;
  const operation = source.document.operations.find(
    (op) => op.path === pointer[1] && op.method === pointer[2]!.toUpperCase(),
  );
  return operation ? { source, operation } : undefined;
}

// --- backends.yaml ---------------------------------------------------------------

/** Each entry of a backends.yaml section by name, with the file its `key` names resolved in `out`. */
function filesByName(
  doc: Document,
  section: string,
  key: string,
  out: string,
): Map<string, string | undefined> {
  const files = new Map<string, string | undefined>();
  const entries = doc.get(section);
  if (!isMap(entries)) return files;
  for (const pair of entries.items) {
    const file = isMap(pair.value) ? pair.value.get(key) : undefined;
    files.set(
      String((pair.key as { value?: unknown }).value ?? pair.key),
      typeof file === 'string' ? path.resolve(out, file) : undefined,
    );
  }
  return files;
}

/**
 * backends.yaml with what the description needs: a backend per OpenAPI source that no backend
 * already serves (bound by its document, as the gateway binds them), and the `arazzo` entry,
 * unless one already names the description. `workflows: []` on a new entry: the wrapping sculpt
 * is the tool, and the description's other workflows are served only once listed there.
 */
function backendsPlan(
  existing: string | undefined,
  out: string,
  arazzoFile: string,
  sources: LoadedSource[],
  operations: Map<string, StepOperation>,
): { text?: string; arazzoName: string } {
  const doc = parseDocument(existing ?? '');
  if (doc.errors.length > 0) {
    throw new SculptorError('load.yaml', `${path.join(out, BACKENDS_FILE)} does not parse: fix it first.`);
  }
  const backendFiles = filesByName(doc, 'backends', 'openapi', out);
  const arazzoNames = filesByName(doc, 'arazzo', 'document', out);
  let changed = false;
  const added: Array<{ name: string; entry: Json; notes: string[] }> = [];
  for (const source of sources) {
    if ([...backendFiles.values()].includes(source.file)) continue;
    let name = source.name.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 60) || 'backend';
    for (let i = 2; backendFiles.has(name); i++) name = `${source.name.slice(0, 56)}_${i}`;
    backendFiles.set(name, source.file);
    const variable = snakeCase(name).toUpperCase();
    const server = source.document.servers[0];
    const entry: Json = {
      openapi: posix(path.relative(out, source.file)),
      baseUrl: `\${${variable}_BASE_URL:-${server ?? 'https://example.invalid'}}`,
      headers: { Accept: 'application/json' },
    };
    const notes: string[] = [];
    if (!server)
      notes.push(
        `REVIEW: source '${source.name}' names no server; set ${variable}_BASE_URL or write the base URL here.`,
      );
    const auth = sourceAuth(source, operations, variable);
    if (auth) {
      entry.auth = [{ in: auth.in, name: auth.name, value: auth.value }];
      notes.push(`REVIEW: ${auth.note}`);
    }
    added.push({ name, entry, notes });
    changed = true;
  }
  let arazzoName = [...arazzoNames].find(([, file]) => file === arazzoFile)?.[0];
  let arazzoEntry: Json | undefined;
  if (arazzoName === undefined) {
    const base =
      snakeCase(path.basename(arazzoFile).replace(/(\.arazzo)?\.(ya?ml|json)$/i, '')).slice(0, 60) ||
      'workflows';
    arazzoName = base;
    for (let i = 2; arazzoNames.has(arazzoName); i++) arazzoName = `${base}_${i}`;
    arazzoEntry = { document: posix(path.relative(out, arazzoFile)), workflows: [] };
    changed = true;
  }
  if (!changed) return { arazzoName };

  if (existing === undefined) {
    const lines = [
      `# yaml-language-server: $schema=${posix(path.relative(out, SCHEMAS.backends))}`,
      '# The backends the sculpts of this folder call (written by `sculptor init --arazzo`).',
      'backends:',
    ];
    for (const { name, entry, notes } of added) {
      lines.push(`  ${name}:`, ...notes.map((n) => `    # ${n}`));
      lines.push(`    openapi: ${q(String(entry.openapi))}`, `    baseUrl: ${q(String(entry.baseUrl))}`);
      lines.push('    headers:', '      Accept: application/json');
      const auth = entry.auth as AuthEntry[] | undefined;
      if (auth) {
        lines.push('    auth:');
        for (const a of auth) lines.push(`      - { in: ${a.in}, name: ${q(a.name)}, value: ${q(a.value)} }`);
      }
    }
    lines.push(
      'arazzo:',
      '  # The wrapping sculpts of this folder are its tools; list a workflowId under workflows to serve it as written.',
      `  ${arazzoName}:`,
      `    document: ${q(String(arazzoEntry!.document))}`,
      '    workflows: []',
    );
    return { text: `${lines.join('\n')}\n`, arazzoName };
  }
  let backendMap = doc.get('backends');
  if (!isMap(backendMap)) {
    backendMap = new YAMLMap();
    doc.set('backends', backendMap);
  }
  for (const { name, entry, notes } of added) {
    const node = doc.createNode(entry);
    if (notes.length > 0) node.commentBefore = notes.map((n) => ` ${n}`).join('\n');
    (backendMap as YAMLMap).set(name, node);
  }
  if (arazzoEntry) {
    let arazzoMap = doc.get('arazzo');
    if (!isMap(arazzoMap)) {
      arazzoMap = new YAMLMap();
      doc.set('arazzo', arazzoMap);
    }
    const node = doc.createNode(arazzoEntry) as YAMLMap;
    (node.get('workflows', true) as unknown as YAMLSeq).flow = true;
    (arazzoMap as YAMLMap).set(arazzoName, node);
  }
  return { text: doc.toString(), arazzoName };
}

/** The credential a source's operations ask for (the first step's scheme that has one), as backends.yaml's auth. */
function sourceAuth(
  source: LoadedSource,
  operations: Map<string, StepOperation>,
  variable: string,
): AuthEntry | undefined {
  for (const { source: s, operation } of operations.values()) {
    if (s !== source) continue;
    const scheme = chooseScheme(operation, source.extras);
    if (scheme) return schemeAuth(scheme, variable);
  }
  return undefined;
}

// --- the sculpt --------------------------------------------------------------------

interface SculptParts {
  arazzo: ArazzoSource;
  workflow: Workflow;
  toolName: string;
  arazzoName: string;
  operations: Map<string, StepOperation>;
  out: string;
}

interface InputLine {
  name: string;
  yaml: string;
  required: boolean;
}

function sculptText(parts: SculptParts): { text: string; required: string[] } {
  const { arazzo, workflow, toolName, arazzoName, operations } = parts;
  const schema = resolveInputsSchema(workflow.inputs, arazzo.doc.components);
  const properties = typeof schema === 'string' ? {} : ((schema.properties ?? {}) as Record<string, Json>);
  const requiredSet = new Set(
    typeof schema !== 'string' && Array.isArray(schema.required) ? (schema.required as string[]) : [],
  );
  const credentials = credentialInputs(workflow, properties);

  const inputs: InputLine[] = [];
  const taken = new Set<string>();
  const notes: string[] = [];
  const args: string[] = [];
  const inputName = (wanted: string): string | undefined => {
    let name = snakeCase(wanted).slice(0, 64);
    for (let i = 2; taken.has(name); i++) name = `${snakeCase(wanted).slice(0, 60)}_${i}`;
    if (!SNAKE_NAME.test(name) || inputs.length >= A2T_MAX) return undefined;
    taken.add(name);
    return name;
  };
  /** One scalar value: a tool input (its JSONata), or undefined when A2T cannot carry it. */
  const scalar = (label: string, property: Json, required: boolean): string | undefined => {
    const type = typeOf(property);
    const description = describe(property, label);
    if (type === 'object' || type === 'array' || type === undefined) return undefined;
    const name = inputName(label);
    if (name === undefined) return undefined;
    const req = required ? '' : ', required: false';
    if (
      type === 'string' &&
      Array.isArray(property.enum) &&
      property.enum.every((v) => typeof v === 'string')
    ) {
      const values = property.enum as string[];
      const names = values.map(enumName);
      if (new Set(names).size === names.length && values.length <= 100) {
        const entries = values.map((v, i) => `${names[i]}: ${q(v)}`).join(', ');
        inputs.push({
          name,
          required,
          yaml: `  ${name}: { type: enum, values: { ${entries} }, description: ${q(description)}${req} }`,
        });
        const map = values.map((v, i) => `${q(names[i]!)}: ${q(v)}`).join(', ');
        return `$lookup({ ${map} }, $inputs.${name})`;
      }
    }
    if (type === 'integer') {
      const bounds = [
        typeof property.minimum === 'number' ? `min: ${Math.ceil(property.minimum)}` : '',
        typeof property.maximum === 'number' ? `max: ${Math.floor(property.maximum)}` : '',
      ].filter(Boolean);
      inputs.push({
        name,
        required,
        yaml: `  ${name}: { type: int, ${bounds.map((b) => `${b}, `).join('')}description: ${q(description)}${req} }`,
      });
      return `$inputs.${name}`;
    }
    if (type === 'boolean') {
      inputs.push({
        name,
        required,
        yaml: `  ${name}: { type: boolean, description: ${q(description)}${req} }`,
      });
      return `$inputs.${name}`;
    }
    const max = Math.min(
      typeof property.maxLength === 'number' ? property.maxLength : DEFAULT_STRING_MAX,
      4096,
    );
    if (type === 'number') {
      notes.push(
        `input '${name}' is a fractional number, which A2T does not carry: the agent sends it as text, $number reads it.`,
      );
      inputs.push({
        name,
        required,
        yaml: `  ${name}: { type: string, maxLength: 32, description: ${q(`${description} A number, as text (e.g. 2.5).`.slice(0, 1999))}${req} }`,
      });
      return `$number($inputs.${name})`;
    }
    inputs.push({
      name,
      required,
      yaml: `  ${name}: { type: string, maxLength: ${Math.max(1, max)}, description: ${q(description)}${req} }`,
    });
    return `$inputs.${name}`;
  };

  for (const [wfName, raw] of Object.entries(properties)) {
    const property = isRecord(raw) ? raw : {};
    const required = requiredSet.has(wfName);
    const key = q(wfName);
    if (credentials.has(wfName)) {
      const entry = credentials.get(wfName);
      notes.push(
        `input '${wfName}' is a credential: no agent supplies it. The backend's auth in backends.yaml sends it from the environment${entry ? ` (${entry})` : ''}.`,
      );
      continue;
    }
    if (!required && property.default !== undefined && typeof property.default !== 'object') {
      notes.push(
        `input '${wfName}' is fixed to its default, ${JSON.stringify(property.default)}: make it an input if agents must choose it.`,
      );
      args.push(`  ${key}: ${JSON.stringify(property.default)}`);
      continue;
    }
    const type = typeOf(property);
    if (type === 'object') {
      const shape = propertiesOf(property);
      const fields: string[] = [];
      for (const [fieldName, fieldSchema] of Object.entries(shape.properties)) {
        if (credentials.has(fieldName)) continue;
        const value = scalar(
          `${wfName}_${fieldName}`,
          fieldSchema,
          required && shape.required.has(fieldName),
        );
        if (value === undefined) {
          notes.push(
            `input '${wfName}' field '${fieldName}' is not a string, integer or boolean: build it in arguments if the workflow needs it.`,
          );
          continue;
        }
        fields.push(`    ${q(fieldName)}: ${value}`);
      }
      if (fields.length > 0) {
        notes.push(
          `input '${wfName}' is an object: its fields are inputs of their own; drop those agents need not set.`,
        );
        args.push(`  ${key}: {\n${fields.join(',\n')}\n  }`);
        continue;
      }
    }
    if (type === 'array' && ['string', 'integer'].includes(typeOf(property.items) ?? '')) {
      const name = inputName(wfName);
      if (name !== undefined) {
        const description = `${describe(property, wfName)} Several values separated by commas.`;
        inputs.push({
          name,
          required,
          yaml: `  ${name}: { type: string, maxLength: ${DEFAULT_STRING_MAX}, description: ${q(description.slice(0, 1999))}${required ? '' : ', required: false'} }`,
        });
        const each = typeOf(property.items) === 'integer' ? '$number($trim($v))' : '$trim($v)';
        args.push(
          `  ${key}: $inputs.${name} ? [$map($split($inputs.${name}, ","), function($v) { ${each} })]`,
        );
        continue;
      }
    }
    const value = scalar(wfName, property, required);
    if (value !== undefined) {
      args.push(`  ${key}: ${value}`);
      continue;
    }
    if (required) {
      notes.push(
        `input '${wfName}' (${type ?? 'no single type'}) cannot be an A2T input: write its value in arguments, from the tool's inputs.`,
      );
      args.push(`  ${key}: "REPLACE_ME"`);
    } else {
      notes.push(
        `optional input '${wfName}' (${type ?? 'no single type'}) is left out: A2T inputs are strings, integers, booleans or enums.`,
      );
    }
  }

  const outputs = outputLines(workflow, arazzo, operations);
  const cacheable = [...operations]
    .filter(([, op]) => op.operation.method === 'GET' || op.operation.method === 'HEAD')
    .map(([key]) =>
      key.startsWith(`${workflow.workflowId}/`) ? key.slice(workflow.workflowId.length + 1) : key,
    )
    // A policy reaches the wrapped workflow's steps and those of a workflow it calls directly.
    .filter((key) => key.split('/').length <= 2);

  const description = plainText(workflow.description ?? workflow.summary ?? '').slice(0, 1999);
  const lines = [
    `# yaml-language-server: $schema=${posix(path.relative(parts.out, SCHEMAS.sculpt))}`,
    `# Wraps workflow ${workflow.workflowId} of ${posix(path.relative(parts.out, arazzo.file))} (written by \`sculptor init --arazzo\`).`,
    `tool: ${toolName}`,
    'version: 1',
    "# REVIEW: say what the tool does and when an agent should use it, in a user's words.",
    `description: ${q(description || 'REPLACE_ME: what the tool does and when to use it.')}`,
  ];
  if (inputs.length > 0) {
    lines.push('inputs:', ...inputs.map((i) => i.yaml));
  }
  lines.push('outputs:');
  lines.push(...outputs.yaml);
  lines.push(`workflow: ${arazzoName}#${workflow.workflowId}`);
  for (const note of notes) lines.push(`# REVIEW: ${note}`);
  lines.push(`arguments: |`, '  {', ...indent(args.join(',\n'), '  '), '  }');
  if (cacheable.length > 0) {
    lines.push(
      "# REVIEW: these steps are GET calls. Uncomment the ones whose answers may be reused for the ttl (scope caller: each caller's own; shared: public data).",
      '# cache:',
      ...cacheable.map((key) => `#   ${key.includes('/') ? q(key) : key}: { ttl: 5m, scope: caller }`),
    );
  }
  lines.push('output: |', '  {', ...indent(outputs.projection.join(',\n'), '    '), '  }');
  return { text: `${lines.join('\n')}\n`, required: inputs.filter((i) => i.required).map((i) => i.name) };
}

function indent(text: string, prefix: string): string[] {
  return text === '' ? [] : text.split('\n').map((l) => `${prefix}${l}`);
}

function describe(property: Json, name: string): string {
  const text = plainText(
    (typeof property.description === 'string' && property.description) ||
      (typeof property.title === 'string' && property.title) ||
      '',
  );
  return (text || `The workflow's '${name}' input.`).slice(0, 1999);
}

/**
 * Inputs that carry a credential (an API key, a token), with the parameter each is sent as when a
 * step says: the backend's auth sends those, from the environment, and no agent ever holds them.
 */
function credentialInputs(
  workflow: Workflow,
  properties: Record<string, Json>,
): Map<string, string | undefined> {
  const out = new Map<string, string | undefined>();
  const params = [...(workflow.parameters ?? []), ...workflow.steps.flatMap((s) => s.parameters ?? [])];
  for (const p of params) {
    if (!('name' in p) || typeof p.name !== 'string' || typeof p.value !== 'string') continue;
    for (const m of p.value.matchAll(/\$inputs\.([A-Za-z0-9_-]+)/g)) {
      const input = m[1]!;
      const property = properties[input] ?? {};
      const credential =
        (p.in === 'header' && FORBIDDEN_HEADERS.test(p.name)) ||
        CREDENTIAL_PARAMETER.test(p.name) ||
        secretReason(snakeCase(p.name), '', p.in ? { in: p.in } : {}) !== undefined ||
        secretReason(snakeCase(input), typeof property.description === 'string' ? property.description : '', {
          ...(p.in ? { in: p.in } : {}),
          ...(typeof property.type === 'string' ? { type: property.type } : {}),
        }) !== undefined;
      if (credential)
        out.set(input, p.in ? `{ in: ${p.in}, name: ${q(p.name)}, value: "\${…}" }` : undefined);
    }
  }
  return out;
}

/** The outputs: each workflow output, typed by what it reads where that can be told, projected from `$outputs`. */
function outputLines(
  workflow: Workflow,
  arazzo: ArazzoSource,
  operations: Map<string, StepOperation>,
): { yaml: string[]; projection: string[] } {
  const yaml: string[] = [];
  const projection: string[] = [];
  const taken = new Set<string>();
  const names = Object.keys(workflow.outputs ?? {}).slice(0, A2T_MAX);
  if (names.length > 0)
    yaml.push("  # REVIEW: describe each output in a user's words; delete those an agent does not need.");
  for (const name of names) {
    let snake = snakeCase(name).slice(0, 64);
    for (let i = 2; taken.has(snake); i++) snake = `${snakeCase(name).slice(0, 60)}_${i}`;
    taken.add(snake);
    const type = expressionType(workflow.outputs![name]!, workflow, arazzo, operations, 0);
    yaml.push(
      `  ${snake}: { type: ${type}, required: false, description: ${q(`The workflow's '${name}' output.`)} }`,
    );
    projection.push(`${q(snake)}: $outputs.${field(name)}`);
  }
  if (names.length === 0) {
    yaml.push(
      '  # REVIEW: the workflow declares no outputs: declare them in the Arazzo description, then project them here.',
    );
    yaml.push('  result: { type: string, description: "REPLACE_ME: what the tool answers." }');
    projection.push('"result": "REPLACE_ME"');
  }
  return { yaml, projection };
}

/** `string`, `int` or `json`: what a runtime expression yields, as far as the descriptions say. */
function expressionType(
  text: string,
  workflow: Workflow,
  arazzo: ArazzoSource,
  operations: Map<string, StepOperation>,
  depth: number,
): 'string' | 'int' | 'json' {
  if (depth > 8) return 'json';
  const parsed = parseRuntimeExpression(text.trim());
  if (typeof parsed === 'string') return 'json';
  const fromSchema = (schema: unknown): 'string' | 'int' | 'json' => {
    const t = typeOf(schema);
    return t === 'string' ? 'string' : t === 'integer' ? 'int' : 'json';
  };
  switch (parsed.kind) {
    case 'statusCode':
      return 'int';
    case 'inputs': {
      const schema = resolveInputsSchema(workflow.inputs, arazzo.doc.components);
      return typeof schema === 'string'
        ? 'json'
        : fromSchema((schema.properties as Json | undefined)?.[parsed.name]);
    }
    case 'steps': {
      const step = workflow.steps.find((s) => s.stepId === parsed.step);
      const inner = step?.outputs?.[parsed.name];
      if (!step || inner === undefined || parsed.pointer !== undefined) return 'json';
      if (step.workflowId !== undefined) {
        const called = arazzo.doc.workflows.find((w) => w.workflowId === step.workflowId);
        const target = /^\$outputs\.(.+)$/.exec(inner.trim())?.[1];
        const expr = target !== undefined ? called?.outputs?.[target] : undefined;
        return called && expr ? expressionType(expr, called, arazzo, operations, depth + 1) : 'json';
      }
      const op = operations.get(`${workflow.workflowId}/${step.stepId}`);
      return op ? stepOutputType(inner, op.operation) : 'json';
    }
    default:
      return 'json';
  }
}

function stepOutputType(text: string, operation: Operation): 'string' | 'int' | 'json' {
  const parsed = parseRuntimeExpression(text.trim());
  if (typeof parsed === 'string') return 'json';
  if (parsed.kind === 'statusCode') return 'int';
  if (parsed.kind !== 'response') return 'json';
  if (parsed.source === 'header') return 'string';
  if (parsed.source !== 'body') return 'json';
  const status = Object.keys(operation.responses).find((s) => /^2/.test(s)) ?? 'default';
  let schema: unknown = operation.responses[status]?.schema;
  for (const token of parsed.pointer ?? []) {
    if (typeOf(schema) === 'array' && isRecord(schema)) schema = schema.items;
    else schema = propertiesOf(schema).properties[token];
    if (schema === undefined) return 'json';
  }
  const t = typeOf(schema);
  return t === 'string' ? 'string' : t === 'integer' ? 'int' : 'json';
}

// --- the test stub -------------------------------------------------------------------

function testStub(toolName: string, required: string[], schema: string): string {
  const lines = [
    ...testStubHead(toolName, schema, required, 'of the workflow '),
    '  # REVIEW: once recordings are listed, describe a typical call, what it must answer, and the calls each step makes:',
    '  # - name: answers a typical request',
    '  #   inputs: { … }',
    '  #   expect:',
    '  #     outputs: { … }',
    '  #   calls: [GET /…, POST /…]',
  ];
  return `${lines.join('\n')}\n`;
}
