import type { AstNode, CompiledExpression } from '../compile/compile-expression.ts';
import { literalObjectKeys, operatorOf, walkAst } from '../compile/compile-expression.ts';
import type { CompiledTool } from '../compile/compile-tool.ts';
import { parametersByKey } from '../openapi/build-request.ts';
import { type ErrorCode, SculptorError } from '../errors/sculptor-error.ts';
import type { YamlPath } from '../sculpt/yaml-source.ts';
import { type Finding, warning } from './findings.ts';
import { secretReason } from './secret-names.ts';

/** OpenAI and Anthropic function names are at most 64 characters; A2T allows 254. */
export const PROVIDER_NAME_MAX = 64;

/**
 * Words that, as a whole snake-case word of an input name, say the LLM is
 * asked for something only a program knows (ids, paging, formats, tracing).
 * Whole words only: `pet_number`, `identity`, `formatted_address` are fine.
 */
const PROGRAMMATIC_WORDS = new Set([
  'id',
  'ids',
  'uuid',
  'guid',
  'token',
  'cursor',
  'trace',
  'traceparent',
  'offset',
  'format',
  'etag',
  'nonce',
  'sha',
  'hash',
  'checksum',
  'signature',
  'callback',
  'jsonp',
  'sid',
  'apikey',
  'pagination',
  'continuation',
  'marker',
]);
/** Whole input names that are paging or plumbing. */
const PROGRAMMATIC_NAMES = new Set([
  'page',
  'page_number',
  'per_page',
  'page_size',
  'next',
  'next_page',
  'api_key',
  'request_id',
  'correlation_id',
  'locale',
  'accept',
  'content_type',
]);
/** Phrases in an input description that only make sense to a program. */
const PROGRAMMATIC_DESCRIPTION =
  /\b(uuids?|guids?|opaque|cursors?|page tokens?|pagination tokens?|continuation tokens?|next[- ]page tokens?|trace ids?|correlation ids?|request ids?|etags?|nonces?|base64)\b/i;

/** A description that tells the LLM when to pick the tool. */
const SAYS_WHEN = /\b(use|used|using|uses|when|whenever)\b/i;

/** Backend parameters that bound how many items an answer holds. */
const PAGE_SIZE_PARAM =
  /^(limit|per_?page|page_?size|max_?results|max_?items|max_?count|count|top|\$top|size|max|rows|num|first|last)$/i;

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Designer lint: what compiles but will likely make an LLM call the tool
 * badly, or make the tool answer badly. Every finding is a warning with a
 * stable `lint.*` code and the position in the sculpt it is about.
 */
export function lintTools(tools: readonly CompiledTool[]): Finding[] {
  const firstVersion = new Map<string, number>();
  for (const t of tools) {
    const v = firstVersion.get(t.signature.name);
    if (v === undefined || t.signature.version < v) firstVersion.set(t.signature.name, t.signature.version);
  }
  return tools.flatMap((tool) =>
    lintTool(tool, firstVersion.get(tool.signature.name) === tool.signature.version),
  );
}

function lintTool(tool: CompiledTool, isFirstVersion: boolean): Finding[] {
  const { doc, source } = tool.sculpt;
  const findings: Finding[] = [];
  const warn = (code: ErrorCode, message: string, at: ReturnType<typeof source.at>) =>
    findings.push(warning(new SculptorError(code, message, { at })));
  const name = tool.signature.name;

  if (name.length > PROVIDER_NAME_MAX) {
    warn(
      'lint.provider_name',
      `Tool name is ${name.length} characters; OpenAI and Anthropic accept at most ${PROVIDER_NAME_MAX}, so exports will refuse it.`,
      source.at(['tool']),
    );
  }
  if (!SAYS_WHEN.test(doc.description)) {
    warn(
      'lint.description_when',
      `The description does not say when to use the tool; add a sentence such as "Use it when the user asks …".`,
      source.at(['description']),
    );
  }

  // --- inputs -----------------------------------------------------------------
  const used = usedInputs(tool);
  const secrets = new Map(secretInputs(tool).map((s) => [s.input, s]));
  for (const [inputName, d] of Object.entries(doc.inputs ?? {})) {
    const secret = secrets.get(inputName);
    const why = secret ? undefined : programmaticReason(inputName, d.description);
    if (secret) {
      warn('lint.secret_input', secret.message, source.keyAt(['inputs', inputName]));
    }
    if (why) {
      warn(
        'lint.programmatic_input',
        `Input '${inputName}' looks programmatic (${why}): an LLM cannot know it and will invent one. Hide it as a constant in params, or derive it in an earlier step.`,
        source.keyAt(['inputs', inputName]),
      );
    }
    if (!used.all && !used.names.has(inputName)) {
      warn(
        'lint.unused_input',
        `Input '${inputName}' is never used by any expression; remove it, or use it as $inputs.${inputName}.`,
        source.keyAt(['inputs', inputName]),
      );
    }
    if (isFirstVersion && d.required === false) {
      warn(
        'lint.optional_first_version',
        `Input '${inputName}' is optional in the first version of ${name}; A2T asks for optional inputs sparingly. Make it required, give the tool a narrower purpose, or add it in a later version.`,
        source.at(['inputs', inputName, 'required']),
      );
    }
  }

  // --- outputs ----------------------------------------------------------------
  const stepsWithResult = new Set(tool.steps.filter((s) => s.result).map((s) => s.id));
  for (const whole of wholeObjectOutputs(tool.output, stepsWithResult)) {
    warn('lint.whole_object_output', whole.message, source.inScalar(['output'], whole.offset));
  }

  // --- $sort ------------------------------------------------------------------
  const bounded = new Set(
    tool.steps
      .filter((s) => {
        const keys = s.params ? literalObjectKeys(s.params.ast) : undefined;
        return keys !== undefined && [...keys].some((k) => PAGE_SIZE_PARAM.test(k.replace(/^query\./, '')));
      })
      .map((s) => s.id),
  );
  for (const { path, expression, self } of expressionsOf(tool)) {
    for (const offset of unboundedSorts(expression, bounded, self)) {
      warn(
        'lint.unbounded_sort',
        `$sort over a backend array whose size nothing bounds: ask the backend for a page (a limit parameter) or its own sort order, or slice before sorting ([[0..99]]).`,
        source.inScalar(path, offset),
      );
    }
  }

  // --- effects ----------------------------------------------------------------
  // A SOAP call (an operation with a codec of its own) is a POST whatever it does: its method
  // says nothing about its effects, so only the declared ones count.
  const methods = tool.steps.filter((s) => !s.operation.codec).map((s) => s.operation.method);
  if (doc.effects?.readOnly === true && methods.some((m) => !READ_METHODS.has(m))) {
    warn(
      'lint.effects_mismatch',
      `effects.readOnly is true, but a step calls ${methods.find((m) => !READ_METHODS.has(m))}.`,
      source.at(['effects', 'readOnly']),
    );
  }
  if (doc.effects?.destructive === false && methods.includes('DELETE')) {
    warn(
      'lint.effects_mismatch',
      'effects.destructive is false, but a step calls DELETE.',
      source.at(['effects', 'destructive']),
    );
  }
  return findings;
}

/** An input that looks like a credential, with what to do instead. */
export interface SecretInput {
  tool: string;
  version: number;
  input: string;
  message: string;
}

/**
 * The tool's inputs that look like credentials (secret-names.ts): an LLM would be asked for
 * them, and they would pass through prompts, traces and logs. The fix names the backends.yaml
 * entry to write, from the parameter the input feeds when the sculpt says which.
 */
export function secretInputs(tool: CompiledTool): SecretInput[] {
  const found: SecretInput[] = [];
  for (const [input, d] of Object.entries(tool.sculpt.doc.inputs ?? {})) {
    const fed = parameterFedBy(tool, input);
    // The A2T types: only a string input can carry a key.
    const reason = secretReason(input, d.description, {
      type: d.type === 'string' ? 'string' : d.type,
      ...(fed ? { in: fed.in } : {}),
    });
    if (!reason) continue;
    const variable = input.toUpperCase();
    const into = fed && fed.in !== 'path' ? fed : undefined;
    const entry = `{ in: ${into?.in ?? 'header'}, name: "${into?.name ?? '…'}", value: "\${${variable}}" }`;
    found.push({
      tool: tool.signature.name,
      version: tool.signature.version,
      input,
      message: `Input '${input}' looks like a secret (${reason}): the LLM would be asked for it, and it would pass through prompts and logs. Remove the input and let the backend send it from the environment: in backends.yaml, under the backend's auth, add ${entry}${into ? '' : ' with the header or query parameter the API reads'}, then set ${variable} where the gateway runs.`,
    });
  }
  return found;
}

/** The backend parameter an input is passed to as is (`"license": $inputs.license`), if a step says. */
function parameterFedBy(tool: CompiledTool, input: string): { in: string; name: string } | undefined {
  const fed = new RegExp(`"([^"]+)"\\s*:\\s*\\$inputs\\.${input}\\b`);
  for (const step of tool.steps) {
    const key = step.params ? fed.exec(step.params.source)?.[1] : undefined;
    const p = key === undefined ? undefined : parametersByKey(step.operation).get(key);
    if (p) return { in: p.in, name: p.name };
  }
  return undefined;
}

/** Why an input looks programmatic, or undefined. */
export function programmaticReason(name: string, description: string): string | undefined {
  if (PROGRAMMATIC_NAMES.has(name)) return `'${name}' is paging or plumbing`;
  const word = name.split('_').find((w) => PROGRAMMATIC_WORDS.has(w));
  if (word) return `its name contains '${word}'`;
  const phrase = PROGRAMMATIC_DESCRIPTION.exec(description);
  if (phrase) return `its description mentions '${phrase[0]}'`;
  return undefined;
}

interface ExpressionRef {
  path: YamlPath;
  expression: CompiledExpression;
  /** The step whose backend answer `$` is (in `result`), if any. */
  self: string | undefined;
  /** Whether `$` (and bare names) are the inputs here. */
  dollarIsInputs: boolean;
}

function expressionsOf(tool: CompiledTool): ExpressionRef[] {
  const refs: ExpressionRef[] = [];
  const doc = tool.sculpt.doc;
  tool.steps.forEach((step) => {
    const i = doc.steps.findIndex((d) => d.id === step.id);
    for (const field of ['params', 'body', 'when', 'result'] as const) {
      const expression = step[field];
      if (expression) {
        refs.push({
          path: ['steps', i, field],
          expression,
          self: field === 'result' ? step.id : undefined,
          dollarIsInputs: field !== 'result',
        });
      }
    }
  });
  refs.push({ path: ['output'], expression: tool.output, self: undefined, dollarIsInputs: true });
  // A wrapping sculpt hands its inputs to the workflow through `arguments`.
  if (tool.workflow?.wrapped) {
    refs.push({
      path: ['arguments'],
      expression: tool.workflow.arguments,
      self: undefined,
      dollarIsInputs: true,
    });
  }
  return refs;
}

/** Input names some expression (or an `on` message) reads; `all` when `$inputs` is used whole. */
function usedInputs(tool: CompiledTool): { names: Set<string>; all: boolean } {
  const used = { names: new Set<string>(), all: false };
  for (const ref of expressionsOf(tool)) collectInputRefs(ref.expression.ast, ref.dollarIsInputs, used);
  for (const step of tool.sculpt.doc.steps) {
    for (const outcome of Object.values(step.on ?? {})) {
      for (const m of outcome.error.matchAll(/\{\{\s*([a-z0-9_]+)\s*\}\}/g)) used.names.add(m[1]!);
    }
  }
  return used;
}

function isVariable(node: unknown, name: string): boolean {
  const n = node as AstNode | undefined;
  return n?.type === 'variable' && n.value === name;
}

function collectInputRefs(
  node: unknown,
  dollarIsInputs: boolean,
  used: { names: Set<string>; all: boolean },
) {
  if (Array.isArray(node)) {
    for (const child of node) collectInputRefs(child, dollarIsInputs, used);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const n = node as AstNode;
  if (n.type === 'path' && Array.isArray(n.steps)) {
    const steps = n.steps as AstNode[];
    const [head, next] = steps;
    if (isVariable(head, 'inputs')) {
      if (next?.type === 'name') used.names.add(String(next.value));
      else used.all = true;
    } else if (dollarIsInputs && isVariable(head, '') && next?.type === 'name') {
      used.names.add(String(next.value));
    } else if (dollarIsInputs && head?.type === 'name') {
      used.names.add(String(head.value));
    }
    steps.forEach((step, i) => {
      // Names after the head are field accesses: only what hangs off them (predicates, stages) is read.
      if (step.type === 'name' || (i === 0 && step.type === 'variable')) {
        for (const [key, value] of Object.entries(step)) {
          if (key !== 'position' && value !== null && typeof value === 'object')
            collectInputRefs(value, dollarIsInputs, used);
        }
      } else {
        collectInputRefs(step, dollarIsInputs, used);
      }
    });
    for (const [key, value] of Object.entries(n)) {
      if (key !== 'steps' && key !== 'position' && value !== null && typeof value === 'object')
        collectInputRefs(value, dollarIsInputs, used);
    }
    return;
  }
  if (isVariable(n, 'inputs')) used.all = true;
  for (const [key, value] of Object.entries(n)) {
    if (key !== 'position' && value !== null && typeof value === 'object')
      collectInputRefs(value, dollarIsInputs, used);
  }
}

/** Start offset of a node in its expression, from the end offset JSONata records. */
function startOf(node: AstNode): number {
  const end = node.position ?? 0;
  if (node.type === 'string') return Math.max(0, end - String(node.value).length - 2);
  if (node.type === 'variable') return Math.max(0, end - String(node.value).length - 1);
  if (node.type === 'path' && Array.isArray(node.steps)) return startOf((node.steps as AstNode[])[0]!);
  return Math.max(0, end - 1);
}

/** `$steps.x` with nothing after it: the step's whole result. */
function wholeStep(node: AstNode): string | undefined {
  if (node.type !== 'path' || !Array.isArray(node.steps) || node.steps.length !== 2) return undefined;
  const [head, next] = node.steps as AstNode[];
  if (!isVariable(head, 'steps') || next?.type !== 'name') return undefined;
  if (next.stages || next.predicate || next.group || node.group || node.predicate) return undefined;
  return String(next.value);
}

function wholeObjectOutputs(
  output: CompiledExpression,
  stepsWithResult: ReadonlySet<string>,
): Array<{ message: string; offset: number }> {
  let node: AstNode | undefined = output.ast;
  while (node?.type === 'block' && Array.isArray(node.expressions)) {
    node = node.expressions[node.expressions.length - 1] as AstNode | undefined;
  }
  if (!node) return [];
  const found: Array<{ message: string; offset: number }> = [];
  const check = (value: AstNode, what: string, offset: number) => {
    const step = wholeStep(value);
    if (step !== undefined && !stepsWithResult.has(step)) {
      found.push({
        offset,
        message: `${what} is the whole answer of step '${step}' (every field the backend sends, ids and links included). Project the few fields the LLM needs, here or in the step's result.`,
      });
    } else if (isVariable(value, 'steps') || isVariable(value, '')) {
      found.push({
        offset,
        message: `${what} is ${value.value === '' ? '$' : '$steps'} as a whole. Project the few fields the LLM needs.`,
      });
    }
  };
  if (node.type === 'unary' && node.value === '{' && Array.isArray(node.lhs)) {
    for (const pair of node.lhs as unknown as Array<[AstNode, AstNode]>) {
      if (pair[0]?.type !== 'string' || !pair[1]) continue;
      check(pair[1], `Output '${String(pair[0].value)}'`, startOf(pair[0]));
    }
  } else {
    check(node, 'The output', startOf(node));
  }
  return found;
}

/** Offsets of `$sort(...)` calls whose array comes from a backend and is bounded by nothing. */
function unboundedSorts(
  expression: CompiledExpression,
  bounded: ReadonlySet<string>,
  self?: string,
): number[] {
  const offsets: number[] = [];
  walkAst(expression.ast, (node) => {
    if (node.type !== 'function' || !isVariable(node.procedure, 'sort')) return;
    const array = (node.arguments as AstNode[] | undefined)?.[0];
    if (!array) return;
    let sliced = false;
    const sources = new Set<string>();
    if (self && isVariable(array, '')) sources.add(self);
    walkAst(array, (inner) => {
      if (operatorOf(inner) === '..') sliced = true;
      if (inner.type === 'path' && Array.isArray(inner.steps)) {
        const [head, next] = inner.steps as AstNode[];
        if (isVariable(head, 'steps') && next?.type === 'name') sources.add(String(next.value));
        else if (self && (isVariable(head, '') || head?.type === 'name')) sources.add(self);
      }
    });
    if (sliced || sources.size === 0) return;
    if ([...sources].every((id) => bounded.has(id))) return;
    const procedure = node.procedure as AstNode;
    offsets.push(startOf(procedure));
  });
  return offsets;
}
