import { parametersByKey } from '../openapi/build-request.ts';
import type { Operation, OperationParameter } from '../openapi/load-openapi.ts';
import { isJsonMediaType } from '../openapi/media-type.ts';
import { isXmlMediaType } from '../xml/xml-media-type.ts';
import { programmaticReason } from './lint-tools.ts';
import { PLACEHOLDER } from './review-marks.ts';
import { secretReason } from './secret-names.ts';
import { subjectOf, toolNameFor, whenToUse } from './scaffold-names.ts';
import { PAGE_SIZE, planOutputs } from './scaffold-outputs.ts';
import { isRecord, isScalar, type Json, propertiesOf, typeOf } from './scaffold-schema.ts';
import { enumName, plainText, q, sentences, snakeCase, testStubHead } from './scaffold-text.ts';

export { enumName, snakeCase } from './scaffold-text.ts';
export { toolNameFor } from './scaffold-names.ts';

/**
 * `sculptor init`: a first sculpt for one OpenAPI operation, written the way
 * a designer would start one — only the inputs that mean something to a user,
 * typed as narrowly as A2T allows; every programmatic parameter hidden as a
 * constant with a `# REVIEW:` comment; a trimmed output. What needs a human
 * decision is marked `# REVIEW:`, what needs a value is `REPLACE_ME`; the
 * scaffold loads and passes `sculptor check` as written (no error), and
 * `check --strict` fails until every mark and placeholder is dealt with.
 * Names and descriptions: scaffold-names.ts; outputs: scaffold-outputs.ts.
 */

export interface ScaffoldOptions {
  /** The backend name sculpts use in `call`. */
  backend: string;
  /** How `call` names the operation: its operationId, or `METHOD /path` (the default). */
  operationRef?: string;
  /** A parameter's description from the document (the normalized model does not keep them). */
  describeParameter?: (location: string, name: string) => string | undefined;
  /** Overrides the tool name derived from the operation. */
  toolName?: string;
  /** Where the OpenAPI document is, for the header comment. */
  documentLabel: string;
  /** `$schema` paths for the editor comment, relative to the output folder. */
  sculptSchema?: string;
  testSchema?: string;
  /**
   * Parameters the document's security schemes carry (`query:license`, `header:x-api-key`):
   * backends.yaml sends them, so the sculpt leaves them out.
   */
  schemeParameters?: ReadonlySet<string>;
}

/** A parameter that is a credential: backends.yaml sends it from the environment, the LLM never sees it. */
export interface CredentialParameter {
  in: 'query' | 'header' | 'cookie';
  name: string;
  /** The document's description of it, in plain text. */
  description: string;
  /** Whether a security scheme already declares it (backends.yaml then has it from the scheme). */
  fromScheme: boolean;
}

export interface Scaffold {
  toolName: string;
  sculptText: string;
  testText: string;
  /** Required inputs, for the test stub and messages. */
  inputs: string[];
  /** How many `# REVIEW:` marks the sculpt carries. */
  reviews: number;
  /** Parameters that are credentials, for backends.yaml's `auth`. */
  credentials: CredentialParameter[];
}

/** A2T string inputs default to 1024 characters; a scaffold asks for less when the document says nothing. */
const DEFAULT_STRING_MAX = 256;
const INT_MAX = 2_147_483_647;
const MAX_ENUM_VALUES = 100;

const PAGE_SIZE_NAME =
  /^(limit|per_?page|page_?size|max_?results|max_?items|max_?count|count|top|\$top|rows|num)$/i;
const PAGE_NAME = /^(page|page_?number|page_?index)$/i;
const OFFSET_NAME = /^(offset|skip|start|start_?index|\$skip)$/i;
const CURSOR_NAME =
  /^(cursor|page_?token|next_?token|next_?page_?token|continuation(_?token)?|marker|after|before|since_?id|max_?id|starting_?after|ending_?before)$/i;
const FORMAT_NAME =
  /^(format|output|alt|media_?type_?extension|response_?format|callback|jsonp|pretty(_?print)?|fields|encoding|charset|output_?format|f)$/i;
/** Headers the gateway or backends.yaml own; a sculpt never sets them. */
const OWNED_HEADER =
  /^(authorization|cookie|host|accept|content-type|content-length|user-agent|proxy-.*|x-forwarded-.*|forwarded|connection|te|upgrade|transfer-encoding)$/i;
// --- parameters -----------------------------------------------------------------

interface InputPlan {
  name: string;
  yaml: string[];
  /** JSONata for the backend value, from `$inputs.<name>`. */
  expression: string;
}

interface Decision {
  key: string;
  /** Input, constant (JSONata literal) or left out. */
  input?: InputPlan;
  constant?: string;
  comment?: string;
  credential?: CredentialParameter;
}

/** A2T-typed input for a value schema; undefined when A2T has no type for it. */
function inputFor(
  name: string,
  schema: Json | undefined,
  description: string | undefined,
  words: string,
): InputPlan | undefined {
  const ref = `$inputs.${name}`;
  const given = sentences(description ?? '', 300);
  const desc = given || `The ${words.toLowerCase()}.`;
  const describedBy = (text: string) =>
    `description: ${q(text)}${given ? '' : '  # REVIEW: the document does not describe it; say what it is.'}`;
  const lines = (...extra: string[]) => [`  ${name}:`, ...extra.map((l) => `    ${l}`)];
  const type = typeOf(schema) ?? 'string';
  const itemSchema = type === 'array' && isRecord(schema?.items) ? (schema.items as Json) : undefined;
  const valueSchema = itemSchema ?? schema ?? {};
  const wrap = (expr: string) => (itemSchema ? `[${expr}]` : expr);
  const valueType = itemSchema ? (typeOf(itemSchema) ?? 'string') : type;

  const values = Array.isArray(valueSchema.enum) ? valueSchema.enum.filter((v) => v !== null) : undefined;
  if (
    values &&
    values.length > 0 &&
    values.length <= MAX_ENUM_VALUES &&
    values.every((v) => typeof v === 'string')
  ) {
    const names = new Map<string, string>();
    for (const v of values as string[]) {
      let n = enumName(v);
      for (let i = 2; names.has(n); i++) n = `${enumName(v)}_${i}`;
      names.set(n, v);
    }
    const described = enumDescriptions(valueSchema);
    const yaml = lines(
      'type: enum',
      describedBy(desc),
      '# REVIEW: say what each value means to a user.',
      'values:',
    );
    for (const [n, v] of names) {
      yaml.push(`      ${n}: ${q(described.get(v) ?? `The value ${JSON.stringify(v)}.`)}`);
    }
    const table = [...names].map(([n, v]) => `${q(n)}: ${q(v)}`).join(', ');
    return { name, yaml, expression: wrap(`$lookup({ ${table} }, ${ref})`) };
  }
  if (valueType === 'integer') {
    const bounds = intBounds(valueSchema);
    const yaml = lines('type: int');
    if (bounds.min !== undefined) yaml.push(`    min: ${bounds.min}`);
    if (bounds.max !== undefined) yaml.push(`    max: ${bounds.max}`);
    else yaml.push(`    max: ${INT_MAX}  # REVIEW: the document gives no maximum; A2T's default is 65535.`);
    yaml.push(`    ${describedBy(desc)}`);
    return { name, yaml, expression: wrap(ref) };
  }
  if (valueType === 'boolean') {
    return { name, yaml: lines('type: boolean', describedBy(desc)), expression: wrap(ref) };
  }
  if (valueType === 'number') {
    const yaml = lines(
      'type: string',
      'maxLength: 32',
      describedBy(`${desc.replace(/\.$/, '')}, as a number.`),
      '# REVIEW: A2T has no number input type; this string is converted with $number().',
    );
    return { name, yaml, expression: wrap(`$number(${ref})`) };
  }
  if (valueType === 'string') {
    const declared = typeof valueSchema.maxLength === 'number' ? valueSchema.maxLength : undefined;
    const maxLength = Math.min(4096, Math.max(1, Math.floor(declared ?? DEFAULT_STRING_MAX)));
    const format = typeof valueSchema.format === 'string' ? ` (${valueSchema.format})` : '';
    const yaml = lines(
      'type: string',
      `maxLength: ${maxLength}${declared === undefined ? '  # REVIEW: the document gives no maximum length.' : ''}`,
      describedBy(
        format && !desc.includes(String(valueSchema.format)) ? `${desc.replace(/\.$/, '')}${format}.` : desc,
      ),
    );
    return { name, yaml, expression: wrap(ref) };
  }
  return undefined;
}

/** `x-enum-descriptions` (a list or a map) or `x-enumDescriptions`, when a document has them. */
function enumDescriptions(schema: Json): Map<string, string> {
  const out = new Map<string, string>();
  const raw = schema['x-enum-descriptions'] ?? schema['x-enumDescriptions'];
  const values = Array.isArray(schema.enum) ? schema.enum : [];
  if (Array.isArray(raw)) {
    raw.forEach((d, i) => {
      if (typeof d === 'string' && typeof values[i] === 'string')
        out.set(values[i] as string, sentences(d, 300));
    });
  } else if (isRecord(raw)) {
    for (const [k, d] of Object.entries(raw)) if (typeof d === 'string') out.set(k, sentences(d, 300));
  }
  return out;
}

function intBounds(schema: Json): { min?: number; max?: number } {
  const bound = (value: unknown, exclusive: unknown, step: 1 | -1): number | undefined => {
    if (typeof exclusive === 'number') return Math.trunc(exclusive) + step;
    if (typeof value !== 'number') return undefined;
    return Math.trunc(value) + (exclusive === true ? step : 0);
  };
  const min = bound(schema.minimum, schema.exclusiveMinimum, 1);
  const max = bound(schema.maximum, schema.exclusiveMaximum, -1);
  const clamp = (v: number | undefined) =>
    v === undefined ? undefined : Math.max(-Number.MAX_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, v));
  const out: { min?: number; max?: number } = {};
  const lo = clamp(min);
  const hi = clamp(max);
  if (lo !== undefined) out.min = lo;
  if (hi !== undefined && (lo === undefined || hi >= lo)) out.max = hi;
  return out;
}

/** A JSONata literal for a constant of this schema's type. */
function literal(value: unknown): string {
  return JSON.stringify(value);
}

/**
 * What a value a designer must set starts as: always the `REPLACE_ME` the docs
 * promise, whatever the type (a number such as 1 would pass for a real id and
 * go unnoticed); `check --strict` fails until it is replaced (review-marks.ts).
 */
function placeholderFor(schema: Json | undefined): unknown {
  return typeOf(schema) === 'array' ? [PLACEHOLDER] : PLACEHOLDER;
}

/** Decides, for each backend parameter, whether it becomes an input, a hidden constant, or is left out. */
function decide(operation: Operation, taken: Set<string>, options: ScaffoldOptions): Decision[] {
  const decisions: Decision[] = [];
  const descriptions = new Map<string, string>();
  for (const [key, p] of parametersByKey(operation)) {
    const schema = isRecord(p.schema) ? (p.schema as Json) : undefined;
    const described = options.describeParameter?.(p.in, p.name) ?? schema?.description;
    const description = plainText(typeof described === 'string' ? described : undefined);
    descriptions.set(key, description);
    decisions.push(decideParameter(key, p, description, taken, options.schemeParameters));
  }
  if (!decisions.some((d) => d.input)) guessInput(operation, decisions, descriptions, taken);
  return decisions;
}

/** Parameter descriptions that say the operation is about this value ("Conversation ID to fetch history for"). */
const SUBJECT_DESCRIPTION =
  /\b(to (fetch|get|retrieve|read|look ?up|search|find|show|list|return|query|describe)|for which|to search for|search (query|terms?))\b/i;
const QUERY_NAME = /^(q|query|search|term|keywords?|search_?query)$/i;

/**
 * Some documents mark nothing required although the operation means nothing without one value
 * (Slack's `conversations.history` and its `channel`). When a scaffold would have no input, an
 * optional parameter that is plainly the subject (a search query, or described as what the call
 * fetches) becomes one, with a REVIEW saying it is a guess.
 */
function guessInput(
  operation: Operation,
  decisions: Decision[],
  descriptions: ReadonlyMap<string, string>,
  taken: Set<string>,
): void {
  const parameters = parametersByKey(operation);
  for (const [i, decision] of decisions.entries()) {
    const p = parameters.get(decision.key);
    if (!p || p.required || decision.constant !== undefined || decision.credential) continue;
    if (p.in !== 'query' && p.in !== 'path') continue;
    if (PAGE_SIZE_NAME.test(p.name) || CURSOR_NAME.test(p.name) || FORMAT_NAME.test(p.name)) continue;
    const schema = isRecord(p.schema) ? (p.schema as Json) : undefined;
    if (schema?.default !== undefined || typeOf(schema) === 'boolean') continue;
    const description = descriptions.get(decision.key) ?? '';
    if (!QUERY_NAME.test(p.name) && !SUBJECT_DESCRIPTION.test(description)) continue;
    const name = snakeCase(p.name).slice(0, 64).replace(/_+$/, '');
    if (taken.has(name) || secretReason(name, description, { in: p.in })) continue;
    const plan = inputFor(name, schema, description, p.name.replace(/[_-]+/g, ' ').toLowerCase());
    if (!plan) continue;
    taken.add(name);
    plan.yaml.splice(
      1,
      0,
      `    # REVIEW: the document marks no parameter required, but the call means nothing without ${p.name}: it became a required input as a guess.`,
    );
    decisions[i] = { key: decision.key, input: plan };
    return;
  }
}

function decideParameter(
  key: string,
  p: OperationParameter,
  description: string,
  taken: Set<string>,
  schemeParameters: ReadonlySet<string> = new Set(),
): Decision {
  const schema = isRecord(p.schema) ? (p.schema as Json) : undefined;
  const fallback = schema?.default;
  const values = Array.isArray(schema?.enum) ? (schema.enum as unknown[]) : [];
  const first = sentences(description, 120, 1);
  const why = (text: string) =>
    `${p.name} (${p.in})${first ? ` — ${first.replace(/\.$/, '')}` : ''}: ${text}`;

  if (p.in === 'header' && OWNED_HEADER.test(p.name)) {
    return { key, comment: `${p.name} (header) is left out: the gateway and backends.yaml set it.` };
  }
  // A credential is the deployment's, never the LLM's: backends.yaml sends it from the environment.
  const fromScheme = schemeParameters.has(`${p.in}:${p.name.toLowerCase()}`);
  const secret = fromScheme
    ? 'a security scheme of the document'
    : secretReason(snakeCase(p.name), description, { in: p.in, type: typeOf(schema) ?? 'string' });
  if (secret) {
    if (p.in === 'query' || p.in === 'header' || p.in === 'cookie') {
      return {
        key,
        credential: { in: p.in, name: p.name, description, fromScheme },
        comment: why(
          `a credential (${secret}): backends.yaml sends it from the environment, and the LLM never sees it.`,
        ),
      };
    }
    return {
      key,
      constant: literal(placeholderFor(schema)),
      comment: why(
        `a credential in the ${p.in} (${secret}); backends.yaml can send credentials only in a header, the query or a cookie. Never make it an input: set it here from your secret store at deployment, or ask the API for a header form.`,
      ),
    };
  }
  if (FORMAT_NAME.test(p.name)) {
    const json = values.find((v) => typeof v === 'string' && /json/i.test(v));
    const value = json ?? fallback ?? (p.required ? (values[0] ?? 'json') : undefined);
    if (value === undefined) return { key, comment: why('a format, left to its default.') };
    return { key, constant: literal(value), comment: why(`a format, fixed to ${literal(value)}.`) };
  }
  if (PAGE_SIZE_NAME.test(p.name) && typeOf(schema) !== 'string') {
    const bounds = intBounds(schema ?? {});
    const size = Math.max(bounds.min ?? 1, Math.min(bounds.max ?? PAGE_SIZE, PAGE_SIZE));
    return {
      key,
      constant: literal(size),
      comment: why(`a page size, fixed to ${size} so answers stay small.`),
    };
  }
  if (PAGE_NAME.test(p.name) || OFFSET_NAME.test(p.name)) {
    if (!p.required) return { key, comment: why('paging, left out: the first page.') };
    const start = PAGE_NAME.test(p.name) ? Math.max(1, intBounds(schema ?? {}).min ?? 1) : 0;
    return { key, constant: literal(start), comment: why(`paging, fixed to the first page (${start}).`) };
  }
  if (CURSOR_NAME.test(p.name)) {
    if (!p.required) return { key, comment: why('a paging cursor, left out: the first page.') };
    return {
      key,
      constant: literal(PLACEHOLDER),
      comment: why('a paging cursor the LLM cannot know; set it.'),
    };
  }
  if (p.in === 'header' || p.in === 'cookie') {
    if (!p.required) return { key, comment: why('left out.') };
    const value = fallback ?? values[0] ?? PLACEHOLDER;
    return { key, constant: literal(value), comment: why(`fixed to ${literal(value)}; check the value.`) };
  }
  const name = snakeCase(p.name).slice(0, 64).replace(/_+$/, '');
  const programmatic = programmaticReason(name, description);
  if (programmatic) {
    if (!p.required) return { key, comment: why(`looks programmatic (${programmatic}), left out.`) };
    const value = fallback ?? placeholderFor(schema);
    return {
      key,
      constant: literal(value),
      comment: why(
        `an identifier the LLM cannot know (${programmatic}). Set the value, or find it in an earlier step from something the user can say.`,
      ),
    };
  }
  if (!p.required) {
    return {
      key,
      comment: why('optional, left out; expose it as an optional input in a later version if users need it.'),
    };
  }
  if (fallback !== undefined) {
    return {
      key,
      constant: literal(fallback),
      comment: why(`fixed to its default ${literal(fallback)}; make it an input if users choose it.`),
    };
  }
  let inputName = name;
  for (let i = 2; taken.has(inputName); i++) inputName = `${name}_${i}`;
  const plan = inputFor(inputName, schema, description, p.name.replace(/[_-]+/g, ' ').toLowerCase());
  if (!plan) {
    const value = placeholderFor(schema);
    return { key, constant: literal(value), comment: why(`A2T has no input type for it: set the value.`) };
  }
  taken.add(inputName);
  return { key, input: plan };
}

// --- body -----------------------------------------------------------------------

/** The media types a body is written in (src/openapi/encode-body.ts). */
function canEncode(mediaType: string): boolean {
  const type = mediaType.split(';', 1)[0]!.trim().toLowerCase();
  return (
    isJsonMediaType(type) ||
    isXmlMediaType(type) ||
    type === 'application/x-www-form-urlencoded' ||
    type === 'multipart/form-data'
  );
}

function decideBody(
  operation: Operation,
  taken: Set<string>,
  describe?: (location: string, name: string) => string | undefined,
): { expression?: string; inputs: InputPlan[]; comments: string[] } {
  const body = operation.requestBody;
  if (!body) return { inputs: [], comments: [] };
  const comments: string[] = [];
  if (!canEncode(body.mediaType)) {
    comments.push(
      `the operation takes a ${body.mediaType} body; Sculptor sends JSON, XML, form and multipart bodies, so this call fails (compile.unsupported_operation) unless the API also accepts one of those.`,
    );
  }
  if (
    !body.required &&
    operation.method !== 'POST' &&
    operation.method !== 'PUT' &&
    operation.method !== 'PATCH'
  ) {
    return { inputs: [], comments: ['the optional request body is left out.'] };
  }
  const { properties, required } = propertiesOf(body.schema);
  const inputs: InputPlan[] = [];
  const members: string[] = [];
  // A body with nothing marked required still needs something: expose its main text fields, as a guess.
  const wanted = new Set(required);
  if (wanted.size === 0) {
    for (const prop of Object.keys(properties)
      .filter((p) => ['title', 'name', 'body', 'text', 'message'].includes(p))
      .slice(0, 2)) {
      wanted.add(prop);
      comments.push(
        `body.${prop}: the document marks no body field required; '${prop}' became an input as a guess.`,
      );
    }
  }
  for (const [prop, schema] of Object.entries(properties)) {
    if (!wanted.has(prop)) continue;
    const name0 = snakeCase(prop).slice(0, 64).replace(/_+$/, '');
    const described =
      typeof schema.description === 'string' ? schema.description : describe?.('formData', prop);
    const description = plainText(described);
    const secret = secretReason(name0, description, { in: 'body', type: typeOf(schema) ?? 'string' });
    if (secret) {
      members.push(`${q(prop)}: ${literal(placeholderFor(schema))}`);
      comments.push(
        `body.${prop}: a credential (${secret}), never an input; backends.yaml sends credentials only in a header, the query or a cookie, so set it from your secret store at deployment, or use the API's header form.`,
      );
      continue;
    }
    if (programmaticReason(name0, description)) {
      members.push(`${q(prop)}: ${literal(placeholderFor(schema))}`);
      comments.push(`body.${prop}: an identifier the LLM cannot know; set the value.`);
      continue;
    }
    let name = name0;
    for (let i = 2; taken.has(name); i++) name = `${name0}_${i}`;
    const plan =
      isScalar(schema) || typeOf(schema) === 'array' ? inputFor(name, schema, description, prop) : undefined;
    if (!plan) {
      members.push(`${q(prop)}: ${literal(placeholderFor(schema))}`);
      comments.push(`body.${prop}: A2T has no input type for it; set the value.`);
      continue;
    }
    taken.add(name);
    inputs.push(plan);
    members.push(`${q(prop)}: ${plan.expression}`);
  }
  const optional = Object.keys(properties).filter((p) => !wanted.has(p));
  if (optional.length > 0)
    comments.push(
      `optional body fields left out: ${optional.slice(0, 12).join(', ')}${optional.length > 12 ? ', …' : ''}.`,
    );
  if (Object.keys(properties).length === 0)
    comments.push('the body schema lists no properties: write the body.');
  return { expression: members.length > 0 ? `{ ${members.join(', ')} }` : '{}', inputs, comments };
}

// --- the sculpt -------------------------------------------------------------------

export function scaffoldSculpt(operation: Operation, options: ScaffoldOptions): Scaffold {
  const toolName = options.toolName ?? toolNameFor(operation);
  const route = `${operation.method} ${operation.path}`;
  const call = options.operationRef?.startsWith('#')
    ? `${options.backend}${options.operationRef}`
    : `${options.backend} ${route}`;
  const subject = subjectOf(operation);
  const stepId =
    subject.head.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase()).replace(/^[^a-z]+/, '') ||
    'call';

  const taken = new Set<string>();
  const decisions = decide(operation, taken, options);
  const body = decideBody(operation, taken, options.describeParameter);
  const inputs = [...decisions.flatMap((d) => (d.input ? [d.input] : [])), ...body.inputs];
  const outputs = planOutputs(operation, stepId, subject);

  const summary = sentences(operation.summary || operation.description || '', 400) || `Calls ${route}.`;
  const description = `${summary} ${whenToUse(operation, subject)}`;

  const lines: string[] = [];
  let reviews = 0;
  const review = (indent: string, text: string) => {
    reviews++;
    lines.push(`${indent}# REVIEW: ${text}`);
  };
  if (options.sculptSchema) lines.push(`# yaml-language-server: $schema=${options.sculptSchema}`);
  lines.push(
    `# Scaffolded by \`sculptor init\` from ${options.documentLabel}, ${route}${operation.operationId ? ` (${operation.operationId})` : ''}.`,
    '# Each REVIEW mark is a decision for a designer: act on it, then delete the mark. `sculptor check --strict`',
    '# fails while a mark or a REPLACE_ME placeholder remains.',
    `tool: ${toolName}`,
    'version: 1',
  );
  review('', 'say what the tool does and when to use it, in the words of the users it serves.');
  lines.push(`description: ${q(description.slice(0, 1999))}`);
  lines.push(`tags: [${snakeCase(options.backend).replace(/_/g, '-')}]`);
  if (inputs.length > 0) {
    lines.push('inputs:');
    for (const input of inputs) {
      for (const l of input.yaml) {
        if (/# REVIEW:/.test(l)) reviews++;
        lines.push(l);
      }
    }
  }
  lines.push('outputs:');
  review('  ', 'keep only what the LLM needs to answer the user; every field costs context.');
  lines.push(...outputs.yaml);
  lines.push('steps:');
  if (operation.method === 'DELETE') {
    review(
      '  ',
      'this tool deletes: exports mark it ⚠️ DESTRUCTIVE; make sure agents confirm with the user first.',
    );
  } else if (operation.codec) {
    review(
      '  ',
      'a SOAP call is a POST whatever it does: declare effects: (readOnly, idempotent…) for what this operation does, and idempotent: true on the step to cache it.',
    );
  } else if (!['GET', 'HEAD', 'OPTIONS'].includes(operation.method)) {
    review(
      '  ',
      `this tool changes data (${operation.method}); declare effects: (idempotent, reversible, billable) if the defaults are wrong.`,
    );
  }
  lines.push(`  - id: ${stepId}`, `    call: ${call}`);

  const hidden = decisions.filter((d) => d.constant !== undefined);
  const leftOut = decisions.filter((d) => !d.input && d.constant === undefined && d.comment);
  if (hidden.length > 0) lines.push('    # Hidden constants: the LLM never sees these.');
  for (const d of hidden) review('    ', d.comment!);
  for (const d of leftOut) lines.push(`    # ${d.comment}`);
  const params = decisions.flatMap((d) =>
    d.input
      ? [`${q(d.key)}: ${d.input.expression}`]
      : d.constant !== undefined
        ? [`${q(d.key)}: ${d.constant}`]
        : [],
  );
  if (params.length > 0) {
    lines.push('    params: |', '      {');
    params.forEach((p, i) => lines.push(`        ${p}${i < params.length - 1 ? ',' : ''}`));
    lines.push('      }');
  }
  for (const c of body.comments) review('    ', c);
  if (body.expression !== undefined) lines.push(`    body: ${q(body.expression)}`);
  if (operation.responses['404']) {
    const named = inputs.slice(0, 2).map((i) => `{{${i.name}}}`);
    const which = named.length > 0 ? ` for ${named.join(', ')}` : '';
    lines.push('    on:');
    lines.push(
      `      404: { error: ${q(`Nothing was found${which}. Ask the user to check what they asked for.`)} }`,
    );
  }
  if (operation.method === 'GET') {
    lines.push(
      '    # cache: { ttl: 5m }   # uncomment to keep answers that change slowly (scope: caller by default)',
    );
  }
  for (const c of outputs.comments) review('', c);
  lines.push('output: |', '  {');
  outputs.members.forEach((m, i) => lines.push(`    ${m}${i < outputs.members.length - 1 ? ',' : ''}`));
  lines.push('  }', '');

  return {
    toolName,
    sculptText: lines.join('\n'),
    testText: testStub(toolName, inputs, options.testSchema),
    inputs: inputs.map((i) => i.name),
    reviews,
    credentials: decisions.flatMap((d) => (d.credential ? [d.credential] : [])),
  };
}

function testStub(toolName: string, inputs: InputPlan[], schema: string | undefined): string {
  const lines = testStubHead(
    toolName,
    schema,
    inputs.map((i) => i.name),
    '',
  );
  const example = inputs.map((i) => `${i.name}: ${q('…')}`).join(', ');
  lines.push(
    '  # REVIEW: once recordings are listed, describe a typical call and what it must answer:',
    '  # - name: answers a typical question',
    `  #   inputs: { ${example} }`,
    '  #   expect:',
    '  #     outputs: { … }',
    '',
  );
  return lines.join('\n');
}
