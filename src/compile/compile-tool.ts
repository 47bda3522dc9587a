import { SculptorError, type SourcePosition } from '../errors/sculptor-error.ts';
import { parametersByKey, requiredParameters } from '../openapi/build-request.ts';
import { findOperation } from '../openapi/find-operation.ts';
import type { Operation } from '../openapi/load-openapi.ts';
import { type OperationCodec, openApiCodec } from '../openapi/operation-codec.ts';
import type { SculptDocument, SculptSpec, StepDeclaration } from '../sculpt/parse-sculpt.ts';
import type { YamlPath } from '../sculpt/yaml-source.ts';
import type { CompiledBackend } from './compile-backends.ts';
import { bodyFieldProblems } from './check-body-fields.ts';
import { ownerParamProblems } from './check-owner-params.ts';
import { type CompiledExpression, compileExpression, literalObjectKeys } from './compile-expression.ts';
import { parseDuration } from './parse-duration.ts';
import { type ToolEffects, toolEffects } from './tool-effects.ts';
import { buildSignature, type ToolSignature } from './tool-signature.ts';
import type { ToolWorkflow } from './workflow-program.ts';
import { wrappedWorkflowTool, type WorkflowSource } from './workflow-tool.ts';

export const DEFAULT_TIMEOUT_MS = 10_000;
export const TIMEOUT_RANGE_MS = [1_000, 29_000] as const;
export const CACHE_TTL_RANGE_MS = [1_000, 30 * 86_400_000] as const;

/** Headers a sculpt may never set through an operation parameter (RELIABILITY H7). */
export const FORBIDDEN_HEADERS =
  /^(authorization|cookie|host|proxy-.*|x-forwarded-.*|forwarded|connection|content-length|transfer-encoding|te|upgrade)$/i;

export interface CompiledStep {
  id: string;
  backend: CompiledBackend;
  operation: Operation;
  /** How its request is built and its answer read: OpenAPI's rules, or the operation's own (SOAP). */
  codec: OperationCodec;
  /** How the sculpt named the operation, for telemetry and errors. */
  operationRef: string;
  params?: CompiledExpression;
  body?: CompiledExpression;
  when?: CompiledExpression;
  result?: CompiledExpression;
  cache?: { ttlMs: number; scope: 'shared' | 'caller' };
  /** Declared safe to repeat: may be cached and retried whatever its method. */
  idempotent: boolean;
  /** Backend outcomes the sculpt maps to tool errors: '404', '4xx', 'empty' → message template. */
  on: ReadonlyMap<string, string>;
  /** Earlier steps whose results this step reads. */
  dependsOn: string[];
  /** Response headers the step's answer keeps (lower-cased): those an Arazzo workflow reads. */
  keepHeaders?: string[];
}

export interface CompiledTool {
  file: string;
  /** Where the file states its version (for errors across versions). */
  versionAt: SourcePosition;
  signature: ToolSignature;
  /** Values used for optional inputs the caller leaves out. */
  defaults: Readonly<Record<string, string | number | boolean>>;
  /** Outputs that may be left out of the answer. */
  optionalOutputs: ReadonlySet<string>;
  steps: CompiledStep[];
  output: CompiledExpression;
  timeoutMs: number;
  /** The sculpt it was compiled from: declarations and source positions (designer tooling, lint). */
  sculpt: SculptSpec;
  /** What invoking it does (read-only, destructive…), for exports; not part of the A2T signature. */
  effects: ToolEffects;
  /** An Arazzo workflow the tool runs instead of a chain of steps (`steps` are then its operation calls). */
  workflow?: ToolWorkflow;
}

/** Compiles one sculpt; returns the tool, or every error found in it. */
export function compileTool(
  sculpt: SculptSpec,
  backends: ReadonlyMap<string, CompiledBackend>,
  /** Backends whose document failed to load: already reported, so not reported again per step. */
  broken: ReadonlySet<string> = new Set(),
  /** The folder's Arazzo descriptions, for a sculpt that wraps a workflow. */
  workflows: ReadonlyMap<string, WorkflowSource> = new Map(),
): { tool?: CompiledTool; errors: SculptorError[] } {
  const { doc, source } = sculpt;
  const errors: SculptorError[] = [];
  const fail = (code: ConstructorParameters<typeof SculptorError>[0], message: string, at: SourcePosition) =>
    errors.push(new SculptorError(code, message, { at }));
  const expression = (path: YamlPath, text: string | undefined): CompiledExpression | undefined => {
    if (text === undefined) return undefined;
    try {
      return compileExpression(text, (offset) => source.inScalar(path, offset));
    } catch (err) {
      errors.push(err as SculptorError);
      return undefined;
    }
  };

  checkInputs(doc, (message, path) => fail('compile.input_type', message, source.at(path)));
  checkOutputs(doc, (message, path) => fail('compile.output_type', message, source.at(path)));

  let timeoutMs = DEFAULT_TIMEOUT_MS;
  if (doc.timeout !== undefined) {
    timeoutMs = parseDuration(doc.timeout);
    if (timeoutMs < TIMEOUT_RANGE_MS[0] || timeoutMs > TIMEOUT_RANGE_MS[1]) {
      fail('compile.a2t_limit', 'timeout must be between 1s and 29s.', source.at(['timeout']));
    }
  }

  if (doc.workflow !== undefined) {
    const wrapped = wrappedWorkflowTool(sculpt, workflows, expression, timeoutMs);
    return {
      ...(wrapped.tool && errors.length === 0 ? { tool: wrapped.tool } : {}),
      errors: [...errors, ...wrapped.errors],
    };
  }

  const steps: CompiledStep[] = [];
  const seenIds: string[] = [];
  doc.steps.forEach((decl, i) => {
    const at = (...p: Array<string | number>) => source.at(['steps', i, ...p]);
    if (seenIds.includes(decl.id))
      fail('compile.step_reference', `Step id '${decl.id}' is used twice.`, at('id'));
    const exprs = {
      params: expression(['steps', i, 'params'], decl.params),
      body: expression(['steps', i, 'body'], decl.body),
      when: expression(['steps', i, 'when'], decl.when),
      result: expression(['steps', i, 'result'], decl.result),
    };
    const dependsOn = new Set<string>();
    for (const [field, compiled] of Object.entries(exprs)) {
      for (const ref of compiled?.stepRefs ?? []) {
        const problem = stepRefProblem(ref, decl.id, seenIds);
        if (problem) fail(problem.code, problem.message, at(field));
        else if (ref === '*') for (const id of seenIds) dependsOn.add(id);
        else dependsOn.add(ref);
      }
    }
    seenIds.push(decl.id);

    const resolved = resolveCall(decl, backends, broken);
    if (resolved === undefined) return;
    if ('error' in resolved) {
      errors.push(
        new SculptorError(resolved.error.code, resolved.error.message, {
          at: at('call'),
          cause: resolved.error,
        }),
      );
      return;
    }
    const { backend } = resolved;
    const operation = withCredentialParameters(resolved.operation, backend);
    // A params expression that did not compile is reported already; its keys are unknown.
    if (decl.params === undefined || exprs.params !== undefined) {
      checkParams(operation, exprs.params, decl, (code, message) =>
        fail(code, message, at(decl.params ? 'params' : 'call')),
      );
    }
    for (const message of ownerParamProblems(backend.ownerParams, operation, exprs.params)) {
      fail('compile.owner_param', message, at('params'));
    }
    if (operation.requestBody?.required && !decl.body) {
      fail('compile.missing_param', `${decl.call} requires a request body: add 'body'.`, at('call'));
    }
    if (operation.requestBody?.strictFields && exprs.body) {
      for (const problem of bodyFieldProblems(operation.requestBody.schema, exprs.body.ast, decl.call)) {
        const where =
          problem.offset === undefined ? at('body') : source.inScalar(['steps', i, 'body'], problem.offset);
        fail(problem.code, problem.message, where);
      }
    }

    let cache: CompiledStep['cache'];
    if (decl.cache) {
      const ttlMs = parseDuration(decl.cache.ttl);
      const safe = operation.method === 'GET' || operation.method === 'HEAD' || decl.idempotent === true;
      if (!safe) {
        fail(
          'compile.cache',
          `Only GET/HEAD operations, or ones declared idempotent, can be cached.`,
          at('cache'),
        );
      } else if (ttlMs < CACHE_TTL_RANGE_MS[0] || ttlMs > CACHE_TTL_RANGE_MS[1]) {
        fail('compile.cache', 'cache.ttl must be between 1s and 30d.', at('cache', 'ttl'));
      }
      cache = { ttlMs, scope: decl.cache.scope ?? 'caller' };
      if (cache.scope === 'shared' && (backend.tenancy === 'per-tenant' || backend.passThrough.length > 0)) {
        // One tenant's (or user's) answer would be served to every other (RELIABILITY E1).
        fail(
          'compile.cache',
          `Backend '${backend.name}' answers per ${backend.tenancy === 'per-tenant' ? 'tenant' : 'user'}: cache its steps with scope caller, not shared.`,
          at('cache', 'scope'),
        );
      }
    }

    steps.push({
      id: decl.id,
      backend,
      operation,
      codec: operation.codec ?? openApiCodec,
      operationRef: decl.call.slice(decl.call.search(/[# ]/) + 1),
      ...definedOnly(exprs),
      ...(cache ? { cache } : {}),
      idempotent: decl.idempotent === true,
      on: new Map(Object.entries(decl.on ?? {}).map(([key, outcome]) => [key, outcome.error])),
      dependsOn: [...dependsOn],
    });
  });

  const output = expression(['output'], doc.output);
  for (const ref of output?.stepRefs ?? []) {
    if (ref !== '*' && !seenIds.includes(ref)) {
      fail(
        'compile.step_reference',
        `output reads $steps.${ref}, but there is no step '${ref}'.`,
        source.at(['output']),
      );
    }
  }

  if (errors.length > 0 || !output) return { errors };
  return {
    tool: {
      file: sculpt.file,
      versionAt: source.at(['version']),
      signature: buildSignature(doc),
      ...declaredDefaults(doc),
      steps,
      output,
      timeoutMs,
      sculpt,
      effects: toolEffects(
        steps.map((s) => ({
          method: s.operation.method,
          idempotent: doc.steps.find((d) => d.id === s.id)?.idempotent,
        })),
        doc.effects,
      ),
    },
    errors,
  };
}

/** What a sculpt's declarations give every tool: defaults of optional inputs, outputs that may be left out. */
export function declaredDefaults(doc: SculptDocument): Pick<CompiledTool, 'defaults' | 'optionalOutputs'> {
  return {
    defaults: Object.fromEntries(
      Object.entries(doc.inputs ?? {})
        .filter(([, d]) => d.default !== undefined)
        .map(([name, d]) => [name, d.default!]),
    ),
    optionalOutputs: new Set(
      Object.entries(doc.outputs)
        .filter(([, d]) => d.required === false)
        .map(([name]) => name),
    ),
  };
}

function definedOnly<T extends Record<string, unknown>>(record: T): Partial<T> {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function stepRefProblem(
  ref: string,
  self: string,
  earlier: string[],
): { code: 'compile.step_reference' | 'compile.step_cycle'; message: string } | undefined {
  if (ref === '*' || earlier.includes(ref)) return undefined;
  if (ref === self) return { code: 'compile.step_cycle', message: `Step '${self}' reads its own result.` };
  return {
    code: 'compile.step_reference',
    message: `Step '${self}' reads $steps.${ref}, but '${ref}' is not an earlier step.`,
  };
}

function resolveCall(
  decl: StepDeclaration,
  backends: ReadonlyMap<string, CompiledBackend>,
  broken: ReadonlySet<string>,
): { backend: CompiledBackend; operation: Operation } | { error: SculptorError } | undefined {
  const split = decl.call.search(/[# ]/);
  const name = decl.call.slice(0, split);
  const ref = decl.call.slice(split + 1).trim();
  if (broken.has(name)) return undefined;
  const backend = backends.get(name);
  if (!backend) {
    const known = [...backends.keys()].join(', ') || 'none';
    return { error: new SculptorError('load.unknown_backend', `No backend '${name}' (declared: ${known}).`) };
  }
  try {
    return { backend, operation: findOperation(backend.document, ref) };
  } catch (err) {
    if (err instanceof SculptorError) return { error: err };
    throw err;
  }
}

/**
 * The operation as a step of this backend calls it: a parameter the backend's credentials send
 * (an API that takes its key as a required `license` query parameter) is no longer the sculpt's
 * to supply, so neither the compiler nor the request builder asks the sculpt for it. The same
 * object when nothing changes (the request builder's preparation is kept per operation).
 */
export function withCredentialParameters(
  operation: Operation,
  backend: Pick<CompiledBackend, 'auth' | 'passThrough'>,
): Operation {
  // Header names are case-insensitive; query and cookie names are not.
  const key = (where: string, name: string) => `${where}:${where === 'header' ? name.toLowerCase() : name}`;
  const sent = new Set([...backend.auth, ...backend.passThrough].map((a) => key(a.in, a.name)));
  const covered = (p: Operation['parameters'][number]) =>
    p.required && p.in !== 'path' && sent.has(key(p.in, p.name));
  if (!operation.parameters.some(covered)) return operation;
  return {
    ...operation,
    parameters: operation.parameters.map((p) => (covered(p) ? { ...p, required: false } : p)),
  };
}

type ParamProblem = (
  code: 'compile.unknown_param' | 'compile.missing_param' | 'compile.forbidden_param',
  message: string,
) => void;

/** What can be known at load about the parameters a step sends. */
function checkParams(
  operation: Operation,
  params: CompiledExpression | undefined,
  decl: StepDeclaration,
  problem: ParamProblem,
): void {
  const keys = params ? literalObjectKeys(params.ast) : new Set<string>();
  if (!keys) return; // computed keys: checked when the request is built
  // The builder's own keys: a name, or `in.name` where an operation uses a name twice.
  const declared = parametersByKey(operation);
  for (const key of keys) {
    const p = declared.get(key);
    if (!p) {
      const names = [...declared.keys()].join(', ') || 'none';
      problem('compile.unknown_param', `${decl.call} has no parameter '${key}' (it has: ${names}).`);
    } else if (p.in === 'header' && FORBIDDEN_HEADERS.test(p.name)) {
      problem('compile.forbidden_param', `Header '${p.name}' may not be set by a sculpt.`);
    }
  }
  for (const key of requiredParameters(operation)) {
    if (!keys.has(key)) {
      const p = declared.get(key)!;
      problem(
        'compile.missing_param',
        `${decl.call} requires parameter '${key}' (in ${p.in}), never supplied.`,
      );
    }
  }
}

function checkInputs(doc: SculptDocument, problem: (message: string, path: YamlPath) => void): void {
  const ids = new Set<string>();
  for (const [name, d] of Object.entries(doc.inputs ?? {})) {
    const path = ['inputs', name];
    const id = d.id ?? name;
    if (ids.has(id)) problem(`Input id '${id}' is used twice.`, [...path, 'id']);
    ids.add(id);
    if ((d.type === 'enum') !== (d.values !== undefined)) {
      problem(d.type === 'enum' ? 'An enum input needs values.' : 'Only enum inputs have values.', path);
    }
    if (d.maxLength !== undefined && d.type !== 'string') problem('Only string inputs have maxLength.', path);
    if ((d.min !== undefined || d.max !== undefined) && d.type !== 'int')
      problem('Only int inputs have min/max.', path);
    if (d.type === 'int') {
      const max = d.max ?? 65_535;
      if (d.min !== undefined && d.min > max) problem(`min ${d.min} is above max ${max}.`, path);
      for (const bound of [d.min, d.max]) {
        if (bound !== undefined && !Number.isSafeInteger(bound))
          problem('min/max must be safe integers.', path);
      }
    }
    if (d.default !== undefined) {
      if (d.required !== false)
        problem('Only optional inputs (required: false) can have a default.', [...path, 'default']);
      else if (!defaultFits(d.type, d.default, d))
        problem(`default does not fit a ${d.type} input.`, [...path, 'default']);
    }
  }
}

function defaultFits(
  type: string,
  value: unknown,
  d: { maxLength?: number; min?: number; max?: number; values?: object },
) {
  switch (type) {
    case 'string':
      return typeof value === 'string' && value.length <= (d.maxLength ?? 1024);
    case 'int':
      return (
        Number.isSafeInteger(value) &&
        (value as number) >= (d.min ?? -Infinity) &&
        (value as number) <= (d.max ?? 65_535)
      );
    case 'boolean':
      return typeof value === 'boolean';
    default:
      return typeof value === 'string' && Object.hasOwn(d.values ?? {}, value);
  }
}

function checkOutputs(doc: SculptDocument, problem: (message: string, path: YamlPath) => void): void {
  const ids = new Set<string>();
  for (const [name, d] of Object.entries(doc.outputs)) {
    const id = d.id ?? name;
    if (ids.has(id)) problem(`Output id '${id}' is used twice.`, ['outputs', name, 'id']);
    ids.add(id);
    if ((d.type === 'enum') !== (d.values !== undefined)) {
      problem(d.type === 'enum' ? 'An enum output needs values.' : 'Only enum outputs have values.', [
        'outputs',
        name,
      ]);
    }
  }
}
