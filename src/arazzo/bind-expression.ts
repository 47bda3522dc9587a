import {
  EMBEDDED,
  looksLikeExpression,
  parseRuntimeExpression,
  resolvePointer,
  type RuntimeExpression,
} from './runtime-expression.ts';

/** One HTTP exchange of a step, as runtime expressions read it. Header names lower-cased. */
export interface ExchangeValues {
  url: string;
  method: string;
  statusCode: number;
  request: {
    header: Record<string, unknown>;
    query: Record<string, unknown>;
    path: Record<string, unknown>;
    body: unknown;
  };
  response: { header: Record<string, string>; body: unknown };
}

/** What an expression may read while a workflow runs. */
export interface ExpressionScope {
  inputs: Record<string, unknown>;
  /** Step outputs by step id, for the steps run so far. */
  steps: Record<string, Record<string, unknown>>;
  /** Workflows run so far in this invocation (dependencies and called workflows). */
  workflows: Record<string, { inputs: Record<string, unknown>; outputs: Record<string, unknown> }>;
  /** A step that calls a workflow: that workflow's outputs. */
  outputs?: Record<string, unknown>;
  /** A step that calls an operation: its request and answer. */
  exchange?: ExchangeValues;
}

/** What is known at load about where an expression is written, to resolve and check it. */
export interface BindContext {
  /** The workflow's input names; undefined when its schema leaves them open. */
  inputs: ReadonlySet<string> | undefined;
  /** The workflow's steps and their output names. */
  steps: ReadonlyMap<string, ReadonlySet<string>>;
  /** Another workflow of the document: its input and output names. */
  workflow(id: string): { inputs: ReadonlySet<string> | undefined; outputs: ReadonlySet<string> } | undefined;
  /** Where `$outputs` may be read (a step calling a workflow): that workflow's output names. */
  outputs?: ReadonlySet<string>;
  /** Whether the step's request and answer exist here (step outputs, criteria, actions). */
  exchange: boolean;
}

export type Getter = (scope: ExpressionScope) => unknown;

/** A value compiled once: how to compute it, and what it reads. */
export interface BoundValue {
  get: Getter;
  /** Steps it reads, for dependencies and for telling a step's place in the flow. */
  steps: Set<string>;
  /** Response headers it reads, lower-cased: the only ones a step's answer keeps. */
  headers: Set<string>;
  /** Workflow inputs it reads as the whole value (`$inputs.x`), for deriving required inputs. */
  inputs: Set<string>;
  /** Every workflow input it reads, in part or whole (the first name of `$inputs.a.b`). */
  named: Set<string>;
  /** Whether the value is a constant (no expression in it). */
  constant: boolean;
}

/** Compiles one runtime expression; the reason as a string when it cannot be used here. */
export function bindExpression(text: string, context: BindContext): BoundValue | string {
  const parsed = parseRuntimeExpression(text);
  if (typeof parsed === 'string') return parsed;
  const reads = emptyReads();
  const get = getterFor(parsed, text, context, reads);
  return typeof get === 'string' ? get : { get, ...reads, constant: false };
}

/**
 * Compiles a value that may hold expressions: a string that is one (`$inputs.id`) keeps the type
 * of what it reads, `{$…}` inside a string is replaced by the text of what it reads (a string that
 * is exactly `{$…}` keeps the type), arrays and objects are compiled member by member, anything
 * else is a constant. A string that looks like an expression and is not one is an error.
 */
export function bindValue(value: unknown, context: BindContext): BoundValue | string {
  const reads = emptyReads();
  const get = bindInto(value, context, reads);
  if (typeof get === 'string') return get;
  const constant = reads.steps.size === 0 && reads.headers.size === 0 && !reads.dynamic;
  return {
    get,
    steps: reads.steps,
    headers: reads.headers,
    inputs: reads.inputs,
    named: reads.named,
    constant,
  };
}

interface Reads {
  steps: Set<string>;
  headers: Set<string>;
  inputs: Set<string>;
  named: Set<string>;
  dynamic?: boolean;
}

function emptyReads(): Reads {
  return { steps: new Set(), headers: new Set(), inputs: new Set(), named: new Set() };
}

function bindInto(value: unknown, context: BindContext, reads: Reads): Getter | string {
  if (typeof value === 'string') return bindString(value, context, reads);
  if (Array.isArray(value)) {
    const items: Getter[] = [];
    for (const item of value) {
      const get = bindInto(item, context, reads);
      if (typeof get === 'string') return get;
      items.push(get);
    }
    return (scope) => items.map((get) => get(scope));
  }
  if (typeof value === 'object' && value !== null) {
    const members: Array<[string, Getter]> = [];
    for (const [key, member] of Object.entries(value)) {
      const get = bindInto(member, context, reads);
      if (typeof get === 'string') return get;
      members.push([key, get]);
    }
    return (scope) => {
      const out: Record<string, unknown> = {};
      for (const [key, get] of members) {
        const v = get(scope);
        if (v !== undefined) out[key] = v;
      }
      return out;
    };
  }
  return () => value;
}

function bindString(text: string, context: BindContext, reads: Reads): Getter | string {
  if (looksLikeExpression(text)) {
    const parsed = parseRuntimeExpression(text);
    if (typeof parsed === 'string') return parsed;
    reads.dynamic = true;
    if (parsed.kind === 'inputs' && parsed.pointer === undefined) reads.inputs.add(parsed.name);
    return getterFor(parsed, text, context, reads);
  }
  const parts = [...text.matchAll(EMBEDDED)];
  if (parts.length === 0) return () => text;
  const getters: Getter[] = [];
  for (const part of parts) {
    const parsed = parseRuntimeExpression(part[1]!);
    if (typeof parsed === 'string') return parsed;
    const get = getterFor(parsed, part[1]!, context, reads);
    if (typeof get === 'string') return get;
    getters.push(get);
  }
  reads.dynamic = true;
  if (parts.length === 1 && parts[0]![0] === text) return getters[0]!;
  const pieces = text.split(EMBEDDED).filter((_, i) => i % 2 === 0);
  return (scope) => {
    let out = pieces[0]!;
    getters.forEach((get, i) => {
      out += asText(get(scope)) + pieces[i + 1]!;
    });
    return out;
  };
}

/** A value embedded in a string: text as it is, anything else as JSON, nothing as nothing. */
function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function getterFor(
  expr: RuntimeExpression,
  text: string,
  context: BindContext,
  reads: Reads,
): Getter | string {
  switch (expr.kind) {
    case 'url':
    case 'method':
    case 'statusCode':
    case 'request':
    case 'response': {
      if (!context.exchange) {
        return `'${text}' reads the step's request or answer, which do not exist here (only in a step's outputs, successCriteria and actions).`;
      }
      if (expr.kind === 'url') return (s) => s.exchange?.url;
      if (expr.kind === 'method') return (s) => s.exchange?.method;
      if (expr.kind === 'statusCode') return (s) => s.exchange?.statusCode;
      const side = expr.kind;
      if (!('source' in expr)) return `'${text}' is not a value.`;
      if (expr.source === 'body') {
        const pointer = expr.pointer;
        return (s) => resolvePointer(s.exchange?.[side].body, pointer);
      }
      const source = expr.source;
      const name = source === 'header' ? expr.name.toLowerCase() : expr.name;
      if (side === 'response') {
        if (source !== 'header') return `'${text}': an answer has headers and a body, no ${source}.`;
        reads.headers.add(name);
      }
      return (s) =>
        (s.exchange?.[side] as Record<string, Record<string, unknown>> | undefined)?.[source]?.[name];
    }
    case 'inputs': {
      const path = memberPath(expr.name, context.inputs);
      if (typeof path === 'string') return `'${text}': the workflow has ${path}`;
      if (typeof path[0] === 'string') reads.named.add(path[0]);
      const pointer = expr.pointer;
      return (s) => resolvePointer(resolvePointer(s.inputs, path), pointer);
    }
    case 'outputs': {
      if (!context.outputs) {
        return `'${text}': $outputs is only read in a step that calls a workflow (that workflow's outputs); elsewhere write $steps.<stepId>.outputs.<name>.`;
      }
      const path = memberPath(expr.name, context.outputs);
      if (typeof path === 'string') return `'${text}': the called workflow has ${path}`;
      const pointer = expr.pointer;
      return (s) => resolvePointer(resolvePointer(s.outputs, path), pointer);
    }
    case 'steps': {
      const outputs = context.steps.get(expr.step);
      if (!outputs) {
        const known = [...context.steps.keys()].join(', ') || 'none';
        return `'${text}' reads step '${expr.step}', which this workflow does not have (steps: ${known}).`;
      }
      const path = memberPath(expr.name, outputs);
      if (typeof path === 'string') return `'${text}': step '${expr.step}' has ${path}`;
      reads.steps.add(expr.step);
      const { step, pointer } = expr;
      return (s) => resolvePointer(resolvePointer(s.steps[step], path), pointer);
    }
    case 'workflows': {
      const other = context.workflow(expr.workflow);
      if (!other) return `'${text}' reads workflow '${expr.workflow}', which this document does not have.`;
      const path = memberPath(expr.name, expr.part === 'inputs' ? other.inputs : other.outputs);
      if (typeof path === 'string') return `'${text}': workflow '${expr.workflow}' has ${path}`;
      const { workflow, part, pointer } = expr;
      return (s) => resolvePointer(resolvePointer(s.workflows[workflow]?.[part], path), pointer);
    }
    default:
      return `'${text}' cannot be used as a value (only in an operationId, workflowId or reference).`;
  }
}

/**
 * `name`, or `name` then members and indexes (`users[0].user_id`, the property de-reference and
 * index operators the specification's conditions use) → the path of member names and indexes. A
 * name the workflow declares wins (output names may contain dots); otherwise the longest declared
 * name the text starts with.
 */
function memberPath(name: string, known: ReadonlySet<string> | undefined): string[] | string {
  if (!known || known.has(name)) return [name];
  const candidates = [...known].filter((k) => name.startsWith(k) && /^[.[]/.test(name.slice(k.length)));
  const head = candidates.sort((a, b) => b.length - a.length)[0];
  if (head !== undefined) {
    const rest = name.slice(head.length);
    if (/^(\.[^.[\]]+|\[(0|[1-9][0-9]*)\])+$/.test(rest)) {
      return [head, ...[...rest.matchAll(/\.([^.[\]]+)|\[(\d+)\]/g)].map((m) => m[1] ?? m[2]!)];
    }
  }
  return `no '${name}' (it has: ${[...known].join(', ') || 'none'}).`;
}
