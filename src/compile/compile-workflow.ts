import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import {
  type Components,
  type Criterion,
  type FailureAction,
  isReusable,
  type Parameter,
  type Reusable,
  type Step,
  type SuccessAction,
  type Workflow,
} from '../arazzo/arazzo-document.ts';
import { type BindContext, bindExpression, bindValue, type Getter } from '../arazzo/bind-expression.ts';
import { compileCriterion, type Condition, type RegexFactory } from '../arazzo/criterion.ts';
import type { ArazzoSource } from '../arazzo/load-arazzo.ts';
import { parsePointer, parseRuntimeExpression } from '../arazzo/runtime-expression.ts';
import {
  type ErrorCode,
  type InputProblem,
  SculptorError,
  type SourcePosition,
} from '../errors/sculptor-error.ts';
import { parametersByKey, requiredParameters } from '../openapi/build-request.ts';
import { findOperation } from '../openapi/find-operation.ts';
import type { Operation } from '../openapi/load-openapi.ts';
import { acceptsJson, essence } from '../openapi/media-type.ts';
import { openApiCodec } from '../openapi/operation-codec.ts';
import type { YamlPath } from '../sculpt/yaml-source.ts';
import { isXmlMediaType } from '../xml/xml-media-type.ts';
import type { CompiledBackend } from './compile-backends.ts';
import {
  CACHE_TTL_RANGE_MS,
  type CompiledStep,
  FORBIDDEN_HEADERS,
  withCredentialParameters,
} from './compile-tool.ts';
import { LinearRegExp, linearRegexProblem } from './jsonata/linear-regex.ts';
import { MAX_REGEX_STEPS } from './jsonata/safe-regex.ts';
import type { WorkflowAction, WorkflowProgram, WorkflowStep } from './workflow-program.ts';

/** An Arazzo description with its sources bound to the backends that serve them. */
export interface BoundArazzo {
  /** The name backends.yaml gives it (what a wrapping sculpt's `workflow:` names). */
  name: string;
  arazzo: ArazzoSource;
  /** Backends by source description name (openapi sources only). */
  sources: ReadonlyMap<string, CompiledBackend>;
}

/** A step's cache, as a wrapping sculpt sets it: `stepId` of the wrapped workflow, `workflowId/stepId` of one it calls. */
export type StepCachePolicy = ReadonlyMap<
  string,
  { ttlMs: number; scope: 'shared' | 'caller'; at: SourcePosition }
>;

export interface WorkflowCompilation {
  program?: WorkflowProgram;
  errors: SculptorError[];
}

/**
 * Parameters that carry a credential. The credential of a backend comes from its backends.yaml
 * `auth` (environment references, attached last); a workflow that sends one from its inputs would
 * have the agent hold and type the secret.
 */
export const CREDENTIAL_PARAMETER =
  /^(authorization|proxy-authorization|cookie|x-api-key|api[-_]?key|apikey|access[-_]?token|client[-_]?secret|password|secret)$/i;

/** The request bodies the gateway writes (openapi/encode-body.ts); anything else is refused with that reason. */
function bodyKind(type: string): 'json' | 'xml' | 'form' | 'multipart' | undefined {
  if (acceptsJson(type)) return 'json';
  if (isXmlMediaType(essence(type))) return 'xml';
  if (essence(type) === 'application/x-www-form-urlencoded') return 'form';
  if (essence(type) === 'multipart/form-data') return 'multipart';
  return undefined;
}

/**
 * Compiles the workflows of one Arazzo description into programs the engine runs. Each workflow
 * compiles on its own: one the gateway cannot run is refused with every reason, at its position,
 * and the others still compile. A workflow that calls a refused one is refused too.
 */
export function createWorkflowCompiler(bound: BoundArazzo) {
  const { arazzo } = bound;
  const { doc, source } = arazzo;
  const memo = new Map<string, WorkflowCompilation>();
  const inProgress = new Set<string>();
  const indexOf = new Map(doc.workflows.map((w, i) => [w.workflowId, i]));

  const names = new Map<string, { inputs: ReadonlySet<string> | undefined; outputs: ReadonlySet<string> }>();
  for (const w of doc.workflows) {
    const schema = resolveInputsSchema(w.inputs, doc.components);
    names.set(w.workflowId, {
      inputs: typeof schema === 'string' ? undefined : propertyNames(schema),
      outputs: new Set(Object.keys(w.outputs ?? {})),
    });
  }

  const compile = (workflowId: string, cache: StepCachePolicy = new Map()): WorkflowCompilation => {
    const shared = cache.size === 0;
    const known = shared ? memo.get(workflowId) : undefined;
    if (known) return known;
    const index = indexOf.get(workflowId);
    if (index === undefined) {
      return {
        errors: [
          new SculptorError(
            'compile.arazzo',
            `${source.file} has no workflow '${workflowId}' (it has: ${[...indexOf.keys()].join(', ')}).`,
            {
              at: source.at(['workflows']),
            },
          ),
        ],
      };
    }
    inProgress.add(workflowId);
    const result = compileOne(doc.workflows[index]!, index, cache, (id, at) => {
      if (inProgress.has(id))
        return `workflow '${id}' calls back into '${workflowId}': a workflow may not call itself, directly or through others`;
      const called = compile(id, prefixed(cache, id));
      if (called.program) return called.program;
      return `workflow '${id}' cannot run (${called.errors.length} error(s) reported at ${formatAt(called.errors[0]?.at ?? at)})`;
    });
    inProgress.delete(workflowId);
    if (shared) memo.set(workflowId, result);
    return result;
  };

  const compileOne = (
    workflow: Workflow,
    wi: number,
    cache: StepCachePolicy,
    callWorkflow: (id: string, at: SourcePosition) => WorkflowProgram | string,
  ): WorkflowCompilation => {
    const errors: SculptorError[] = [];
    const at = (...path: YamlPath) => source.at(['workflows', wi, ...path]);
    const fail = (code: ErrorCode, message: string, where: SourcePosition) =>
      errors.push(new SculptorError(code, `Workflow '${workflow.workflowId}': ${message}`, { at: where }));

    const own = names.get(workflow.workflowId)!;
    const inputSchema = resolveInputsSchema(workflow.inputs, doc.components);
    if (typeof inputSchema === 'string') fail('compile.arazzo', inputSchema, at('inputs'));
    const stepOutputs = new Map(workflow.steps.map((s) => [s.stepId, new Set(Object.keys(s.outputs ?? {}))]));
    const seen = new Set<string>();
    for (const [i, s] of workflow.steps.entries()) {
      if (seen.has(s.stepId))
        fail('compile.step_reference', `step id '${s.stepId}' is used twice.`, at('steps', i, 'stepId'));
      seen.add(s.stepId);
    }
    const context = (extra: Partial<BindContext> = {}): BindContext => ({
      inputs: own.inputs,
      steps: stepOutputs,
      workflow: (id) => names.get(id),
      exchange: false,
      ...extra,
    });
    const regex = regexFactory;
    const stepIndex = new Map(workflow.steps.map((s, i) => [s.stepId, i]));

    // Response headers that criteria read: a step's stored answer keeps only the headers read.
    let headersRead = new Set<string>();
    const compileCriteria = (
      criteria: Criterion[] | undefined,
      ctx: BindContext,
      path: YamlPath,
    ): Condition[] => {
      const out: Condition[] = [];
      for (const [ci, criterion] of (criteria ?? []).entries()) {
        collectHeaders(criterion, ctx, headersRead);
        const compiled = compileCriterion(criterion, ctx, regex);
        if (typeof compiled === 'string') {
          fail(
            /not supported/.test(compiled) ? 'compile.unsupported_feature' : 'compile.arazzo',
            compiled,
            at(...path, ci, 'condition'),
          );
        } else {
          out.push(compiled);
        }
      }
      return out;
    };

    const compileActions = (
      kind: 'success' | 'failure',
      stepActions: Array<SuccessAction | FailureAction | Reusable> | undefined,
      ctx: BindContext,
      stepPath: YamlPath,
    ): WorkflowAction[] => {
      const field = kind === 'success' ? 'onSuccess' : 'onFailure';
      const workflowField = kind === 'success' ? 'successActions' : 'failureActions';
      const entries = [
        ...(stepActions ?? []).map((a, i) => ({ action: a, path: [...stepPath, field, i] as YamlPath })),
        ...((workflow[workflowField] ?? []) as Array<SuccessAction | FailureAction | Reusable>).map(
          (a, i) => ({
            action: a,
            path: [workflowField, i] as YamlPath,
          }),
        ),
      ];
      const out: WorkflowAction[] = [];
      const taken = new Set<string>();
      for (const { action: raw, path } of entries) {
        const action = resolveAction(raw, kind, doc.components);
        if (typeof action === 'string') {
          fail('compile.arazzo', action, at(...path));
          continue;
        }
        // A step's action overrides the workflow's of the same name; it can never remove it.
        if (taken.has(action.name)) continue;
        taken.add(action.name);
        if (action.workflowId !== undefined) {
          fail(
            'compile.unsupported_feature',
            `action '${action.name}' (${action.type} to workflow '${action.workflowId}') is not supported: the specification does not say which inputs that workflow receives or whose outputs the caller gets. Call the workflow from a step (a step with workflowId) instead.`,
            at(...path, 'workflowId'),
          );
          continue;
        }
        let target: number | undefined;
        if (action.stepId !== undefined) {
          target = stepIndex.get(action.stepId);
          if (target === undefined) {
            fail(
              'compile.step_reference',
              `action '${action.name}' names step '${action.stepId}', which this workflow does not have.`,
              at(...path, 'stepId'),
            );
            continue;
          }
        }
        const retry = action as FailureAction;
        out.push({
          name: action.name,
          type: action.type,
          ...(target !== undefined ? { stepIndex: target } : {}),
          retryAfterMs: Math.round((retry.retryAfter ?? 0) * 1000),
          retryLimit: retry.retryLimit ?? 1,
          criteria: compileCriteria(action.criteria, ctx, [...path, 'criteria']),
        });
      }
      return out;
    };

    // dependsOn: run first, with the same inputs.
    const dependsOn: Array<() => WorkflowProgram> = [];
    for (const [di, dep] of (workflow.dependsOn ?? []).entries()) {
      const id = localWorkflowId(dep);
      if (typeof id !== 'string') {
        fail('compile.unsupported_feature', id.error, at('dependsOn', di));
        continue;
      }
      const called = callWorkflow(id, at('dependsOn', di));
      if (typeof called === 'string')
        fail('compile.step_reference', `depends on ${called}.`, at('dependsOn', di));
      else dependsOn.push(() => called);
    }

    // Inputs sent as they are into a parameter the operation requires: when every step runs in
    // order (no goto, no early end), a call without them cannot succeed, so the tool requires them.
    const requiredInputs = new Set<string>();
    // Inputs read only by credential parameters the backend sends instead: not the tool's inputs.
    const credentialInputs = new Set<string>();
    const otherInputs = new Set<string>();
    const bodyInputs = new Set<string>();
    const outputInputs = new Set<string>();
    const steps: WorkflowStep[] = [];
    for (const [si, step] of workflow.steps.entries()) {
      const stepAt = (...path: YamlPath) => at('steps', si, ...path);
      const compiled = compileStep(step, si, stepAt);
      if (compiled) steps.push(compiled);
    }

    function compileStep(
      step: Step,
      si: number,
      stepAt: (...p: YamlPath) => SourcePosition,
    ): WorkflowStep | undefined {
      const before = errors.length;
      const parameters = mergeParameters(workflow.parameters, step.parameters, doc.components);
      if (typeof parameters === 'string') {
        fail('compile.arazzo', `step '${step.stepId}': ${parameters}`, stepAt('parameters'));
        return undefined;
      }
      const valueContext = context();
      let call: WorkflowStep['call'];
      let calledWorkflow: WorkflowStep['workflow'];
      let outputsContext: BindContext;

      if (step.workflowId !== undefined) {
        const id = localWorkflowId(step.workflowId);
        if (typeof id !== 'string') {
          fail('compile.unsupported_feature', `step '${step.stepId}': ${id.error}`, stepAt('workflowId'));
          return undefined;
        }
        const target = callWorkflow(id, stepAt('workflowId'));
        if (typeof target === 'string') {
          fail('compile.step_reference', `step '${step.stepId}' calls ${target}.`, stepAt('workflowId'));
          return undefined;
        }
        if (step.requestBody)
          fail(
            'compile.arazzo',
            `step '${step.stepId}' calls a workflow: it has no request body.`,
            stepAt('requestBody'),
          );
        const inputs: Array<[string, Getter]> = [];
        for (const { parameter, path } of parameters) {
          if (parameter.in !== undefined) {
            fail(
              'compile.arazzo',
              `step '${step.stepId}' calls a workflow, whose parameters are its inputs: '${parameter.name}' must have no 'in'.`,
              stepAt(...path, 'in'),
            );
          }
          const value = bindValue(parameter.value, valueContext);
          if (typeof value === 'string')
            fail('compile.arazzo', `step '${step.stepId}': ${value}`, stepAt(...path, 'value'));
          else inputs.push([parameter.name, value.get]);
        }
        calledWorkflow = {
          program: () => target,
          inputs: (scope) =>
            Object.fromEntries(inputs.map(([n, get]) => [n, get(scope)]).filter(([, v]) => v !== undefined)),
        };
        outputsContext = context({ outputs: new Set(target.outputs.map(([n]) => n)) });
      } else {
        const resolved = resolveOperation(step);
        if (typeof resolved === 'string') {
          fail(
            /not supported/.test(resolved) ? 'compile.unsupported_feature' : 'compile.unknown_operation',
            `step '${step.stepId}': ${resolved}`,
            stepAt(step.operationPath !== undefined ? 'operationPath' : 'operationId'),
          );
          return undefined;
        }
        const { backend, ref } = resolved;
        // A parameter the backend's credentials send is not the workflow's to supply.
        const operation = withCredentialParameters(resolved.operation, backend);
        const sentByBackend = new Set(
          [...backend.auth, ...backend.passThrough].map((a) => credentialKey(a.in, a.name)),
        );
        const byKey = parametersByKey(operation);
        const params: Array<[string, Getter]> = [];
        const supplied = new Set<string>();
        for (const { parameter, path } of parameters) {
          if (parameter.in === undefined) {
            fail(
              'compile.arazzo',
              `step '${step.stepId}' calls an operation: parameter '${parameter.name}' needs 'in' (path, query, header or cookie).`,
              stepAt(...path),
            );
            continue;
          }
          const entry = [...byKey].find(
            ([, p]) =>
              p.in === parameter.in &&
              p.name.toLowerCase() === parameter.name.toLowerCase() &&
              (p.in === 'header' || p.name === parameter.name),
          );
          if (!entry) {
            const declared = operation.parameters.map((p) => `${p.name} (${p.in})`).join(', ') || 'none';
            fail(
              'compile.unknown_param',
              `step '${step.stepId}': ${ref} declares no ${parameter.in} parameter '${parameter.name}' (it declares: ${declared}); Sculptor sends only the parameters an operation declares.`,
              stepAt(...path, 'name'),
            );
            continue;
          }
          if (
            (parameter.in === 'header' && FORBIDDEN_HEADERS.test(parameter.name)) ||
            CREDENTIAL_PARAMETER.test(parameter.name)
          ) {
            if (sentByBackend.has(credentialKey(parameter.in, parameter.name))) {
              // The backend's own credential goes out in its place (attached last): the value the
              // workflow names is never read, so its inputs are no agent's to give.
              const read = bindValue(parameter.value, valueContext);
              if (typeof read !== 'string') for (const name of read.named) credentialInputs.add(name);
              supplied.add(entry[0]);
              continue;
            }
            fail(
              'compile.forbidden_param',
              `step '${step.stepId}': ${parameter.in} parameter '${parameter.name}' carries a credential, which a workflow may not take from its inputs: declare it under the backend's auth in backends.yaml ({ in: ${parameter.in}, name: ${parameter.name}, value: \${…} }, an environment reference), and the backend sends it in its place, so that no agent ever holds it.`,
              stepAt(...path, 'name'),
            );
            continue;
          }
          const value = bindValue(parameter.value, valueContext);
          if (typeof value === 'string') {
            fail('compile.arazzo', `step '${step.stepId}': ${value}`, stepAt(...path, 'value'));
            continue;
          }
          supplied.add(entry[0]);
          params.push([entry[0], value.get]);
          for (const name of value.named) otherInputs.add(name);
          if (entry[1].required || entry[1].in === 'path')
            for (const name of value.inputs) requiredInputs.add(name);
        }
        for (const key of requiredParameters(operation)) {
          if (!supplied.has(key)) {
            const p = byKey.get(key)!;
            fail(
              'compile.missing_param',
              `step '${step.stepId}': ${ref} requires ${p.in} parameter '${p.name}', which the step never supplies.`,
              stepAt(step.parameters ? 'parameters' : 'stepId'),
            );
          }
        }
        let body: Getter | undefined;
        // The operation as the step calls it: with the media type its request body is sent in.
        let sent = operation;
        if (step.requestBody) {
          const compiledBody = compileBody(step, operation, ref, stepAt);
          if (compiledBody) ({ body, operation: sent } = compiledBody);
        } else if (operation.requestBody?.required) {
          fail(
            'compile.missing_param',
            `step '${step.stepId}': ${ref} requires a request body, which the step never supplies.`,
            stepAt('stepId'),
          );
        }
        const policy = cache.get(step.stepId);
        let stepCache: CompiledStep['cache'];
        if (policy) {
          if (operation.method !== 'GET' && operation.method !== 'HEAD') {
            fail(
              'compile.cache',
              `step '${step.stepId}' calls ${ref}: only GET/HEAD steps can be cached.`,
              policy.at,
            );
          } else if (policy.ttlMs < CACHE_TTL_RANGE_MS[0] || policy.ttlMs > CACHE_TTL_RANGE_MS[1]) {
            fail('compile.cache', 'cache.ttl must be between 1s and 30d.', policy.at);
          } else if (
            policy.scope === 'shared' &&
            (backend.tenancy === 'per-tenant' || backend.passThrough.length > 0)
          ) {
            fail(
              'compile.cache',
              `Backend '${backend.name}' answers per ${backend.tenancy === 'per-tenant' ? 'tenant' : 'user'}: cache its steps with scope caller, not shared.`,
              policy.at,
            );
          }
          stepCache = { ttlMs: policy.ttlMs, scope: policy.scope };
        }
        const chainStep: CompiledStep = {
          id: step.stepId,
          backend,
          operation: sent,
          codec: operation.codec ?? openApiCodec,
          operationRef: ref,
          ...(stepCache ? { cache: stepCache } : {}),
          idempotent: false,
          on: new Map(),
          dependsOn: [],
          keepHeaders: [],
        };
        call = { step: chainStep, params, ...(body ? { body } : {}) };
        outputsContext = context({ exchange: true });
      }

      headersRead = new Set();
      const successCriteria = compileCriteria(step.successCriteria, outputsContext, [
        'steps',
        si,
        'successCriteria',
      ]);
      const onSuccess = compileActions('success', step.onSuccess, outputsContext, ['steps', si]);
      const onFailure = compileActions('failure', step.onFailure, outputsContext, ['steps', si]);
      const outputs: Array<[string, Getter]> = [];
      const headers = headersRead;
      for (const [name, text] of Object.entries(step.outputs ?? {})) {
        const value = bindExpression(text, outputsContext);
        if (typeof value === 'string')
          fail('compile.arazzo', `step '${step.stepId}' output '${name}': ${value}`, stepAt('outputs', name));
        else {
          outputs.push([name, value.get]);
          for (const h of value.headers) headers.add(h);
        }
      }
      if (call) call.step.keepHeaders = [...headers];
      if (errors.length > before) return undefined;
      return {
        id: step.stepId,
        ...(call ? { call } : {}),
        ...(calledWorkflow ? { workflow: calledWorkflow } : {}),
        successCriteria,
        onSuccess,
        onFailure,
        outputs,
      };
    }

    function compileBody(
      step: Step,
      operation: Operation,
      ref: string,
      stepAt: (...p: YamlPath) => SourcePosition,
    ): { body: Getter; operation: Operation } | undefined {
      const requestBody = step.requestBody!;
      if (!operation.requestBody) {
        fail(
          'compile.unknown_param',
          `step '${step.stepId}': ${ref} takes no request body.`,
          stepAt('requestBody'),
        );
        return undefined;
      }
      const declared = operation.requestBody.mediaType;
      const contentType = requestBody.contentType ?? declared;
      const kind = bodyKind(contentType);
      if (kind === undefined || (kind === 'xml' && bodyKind(declared) !== 'xml')) {
        fail(
          'compile.unsupported_feature',
          kind === undefined
            ? `step '${step.stepId}': a ${contentType} request body is not supported: Sculptor sends JSON, XML, form-urlencoded and multipart/form-data bodies.`
            : `step '${step.stepId}': an XML body for ${ref}, whose document describes a ${declared} body, is not supported: the XML is written by the operation's own XML schema.`,
          stepAt('requestBody', requestBody.contentType !== undefined ? 'contentType' : 'payload'),
        );
        return undefined;
      }
      // The step's contentType is the one sent (the operation may declare several; the model keeps
      // the one the gateway prefers), so the workflow sends what its author wrote.
      const sent: Operation =
        essence(contentType) === essence(declared)
          ? operation
          : { ...operation, requestBody: { ...operation.requestBody, mediaType: contentType } };
      let payload = requestBody.payload;
      // A form payload written as text (`a=1&b={$inputs.b}`): its fields, each value then bound.
      if (kind === 'form' && typeof payload === 'string' && !payload.trimStart().startsWith('$')) {
        payload = Object.fromEntries(new URLSearchParams(payload));
      }
      if (kind === 'xml' && typeof payload === 'string' && !payload.trimStart().startsWith('$')) {
        fail(
          'compile.unsupported_feature',
          `step '${step.stepId}': an XML payload written as text is not supported: write it as an object, which the operation's XML schema writes as XML (placeholders like "{$inputs.id}" go inside string values).`,
          stepAt('requestBody', 'payload'),
        );
        return undefined;
      }
      // A JSON payload written as text: parsed once here, its `{$…}` placeholders then filled
      // inside the values, never spliced into JSON text (an input holding a quote cannot break out).
      if (kind !== 'xml' && typeof payload === 'string' && !payload.trimStart().startsWith('$')) {
        try {
          payload = JSON.parse(payload);
        } catch {
          fail(
            'compile.arazzo',
            `step '${step.stepId}': the payload is text but not JSON; write it as an object (placeholders like "{$inputs.id}" go inside string values).`,
            stepAt('requestBody', 'payload'),
          );
          return undefined;
        }
      }
      const bound = bindValue(payload, context());
      if (typeof bound === 'string') {
        fail('compile.arazzo', `step '${step.stepId}': ${bound}`, stepAt('requestBody', 'payload'));
        return undefined;
      }
      for (const name of bound.named) bodyInputs.add(name);
      const replacements: Array<[string[], Getter]> = [];
      for (const [ri, r] of (requestBody.replacements ?? []).entries()) {
        const pointer = parsePointer(r.target);
        if (typeof pointer === 'string') {
          fail(
            r.target.startsWith('/') ? 'compile.arazzo' : 'compile.unsupported_feature',
            `step '${step.stepId}': replacement target '${r.target}' ${r.target.startsWith('/') ? `is not a JSON pointer: ${pointer}` : 'is not supported: only JSON pointer targets (XPath targets need an XML body)'}.`,
            stepAt('requestBody', 'replacements', ri, 'target'),
          );
          continue;
        }
        const value = bindValue(r.value, context());
        if (typeof value === 'string')
          fail(
            'compile.arazzo',
            `step '${step.stepId}': ${value}`,
            stepAt('requestBody', 'replacements', ri, 'value'),
          );
        else {
          replacements.push([pointer, value.get]);
          for (const name of value.named) bodyInputs.add(name);
        }
      }
      if (replacements.length === 0) return { body: bound.get, operation: sent };
      return {
        operation: sent,
        body: (scope) => {
          const body = structuredClone(bound.get(scope));
          for (const [pointer, get] of replacements) setAtPointer(body, pointer, get(scope));
          return body;
        },
      };
    }

    const outputs: Array<[string, Getter]> = [];
    for (const [name, text] of Object.entries(workflow.outputs ?? {})) {
      const value = bindExpression(text, context());
      if (typeof value === 'string')
        fail('compile.arazzo', `output '${name}': ${value}`, at('outputs', name));
      else {
        outputs.push([name, value.get]);
        for (const input of value.named) outputInputs.add(input);
      }
    }

    const validate =
      typeof inputSchema === 'string'
        ? undefined
        : compileInputSchema(inputSchema, (m) => fail('compile.arazzo', m, at('inputs')));
    if (errors.length > 0) return { errors };
    const backendOnly: ReadonlySet<string> = new Set(
      [...credentialInputs].filter((n) => !otherInputs.has(n) && !bodyInputs.has(n) && !outputInputs.has(n)),
    );
    const linear = steps.every(
      (s) =>
        s.onSuccess.length === 0 && s.onFailure.every((a) => a.type !== 'goto' && a.stepIndex === undefined),
    );
    return {
      program: {
        workflowId: workflow.workflowId,
        file: source.file,
        steps,
        outputs,
        requiredInputs: linear ? requiredInputs : new Set(),
        credentialInputs: backendOnly,
        checkInputs: (inputs) => inputProblems(validate, inputs, backendOnly),
        dependsOn,
      },
      errors: [],
    };
  };

  /** operationId (or `$sourceDescriptions.<name>.<operationId>`), or operationPath. */
  const resolveOperation = (
    step: Step,
  ): { backend: CompiledBackend; operation: Operation; ref: string } | string => {
    const openapi = doc.sourceDescriptions.filter((s) => (s.type ?? 'openapi') === 'openapi');
    const backendOf = (name: string) => bound.sources.get(name);
    if (step.operationId !== undefined) {
      let sourceName: string | undefined;
      let id = step.operationId;
      if (id.startsWith('$sourceDescriptions.')) {
        const parsed = parseRuntimeExpression(id);
        if (typeof parsed === 'string' || parsed.kind !== 'sourceDescriptions')
          return typeof parsed === 'string' ? parsed : `'${id}' is not an operation.`;
        sourceName = parsed.source;
        id = parsed.name;
      }
      const candidates = sourceName ? openapi.filter((s) => s.name === sourceName) : openapi;
      if (candidates.length === 0)
        return `no OpenAPI source '${sourceName}' (sources: ${openapi.map((s) => s.name).join(', ')}).`;
      const found: Array<{ backend: CompiledBackend; operation: Operation }> = [];
      let lastError: string | undefined;
      for (const s of candidates) {
        const backend = backendOf(s.name);
        if (!backend) continue;
        try {
          found.push({ backend, operation: findOperation(backend.document, id) });
        } catch (err) {
          lastError = (err as Error).message;
        }
      }
      if (found.length === 1) return { ...found[0]!, ref: id };
      if (found.length > 1)
        return `operationId '${id}' is in ${found.length} sources: write $sourceDescriptions.<name>.${id}.`;
      return lastError ?? `operationId '${id}' is in no source.`;
    }
    if (step.operationPath !== undefined) {
      // `{$sourceDescriptions.<name>.url}#/paths/…` as the specification writes it, or
      // `<name>#/paths/…`, as some generators write it: the source is named either way.
      const match = /^(?:\{\$sourceDescriptions\.([^.}]+)\.url\}|([A-Za-z0-9_-]+))#(\/paths\/.*)$/.exec(
        step.operationPath,
      );
      if (!match)
        return `operationPath '${step.operationPath}' is not {$sourceDescriptions.<name>.url}#/paths/<path>/<method>.`;
      const name = match[1] ?? match[2]!;
      const backend = backendOf(name);
      if (!backend) return `no OpenAPI source '${name}' (sources: ${openapi.map((s) => s.name).join(', ')}).`;
      const pointer = parsePointer(match[3]!);
      if (typeof pointer === 'string' || pointer.length !== 3)
        return `operationPath '${step.operationPath}' does not point at an operation (#/paths/<path>/<method>).`;
      const [, path, method] = pointer as [string, string, string];
      const operation = backend.document.operations.find(
        (op) => op.path === path && op.method === method.toUpperCase(),
      );
      if (!operation) return `${backend.document.file} has no operation ${method.toUpperCase()} ${path}.`;
      return { backend, operation, ref: operation.operationId ?? `${operation.method} ${operation.path}` };
    }
    return 'the step names no operationId, operationPath or workflowId.';
  };

  return { compile, names };
}

/** Header names are case-insensitive; query and cookie names are not. */
function credentialKey(where: string, name: string): string {
  return `${where}:${where === 'header' ? name.toLowerCase() : name}`;
}

function formatAt(at: SourcePosition | undefined): string {
  return at ? `${at.file}:${at.line}:${at.column}` : 'its description';
}

/** A wrapping sculpt's cache policy, seen from a workflow it calls: its `workflowId/stepId` keys. */
function prefixed(cache: StepCachePolicy, workflowId: string): StepCachePolicy {
  const out = new Map<string, StepCachePolicy extends ReadonlyMap<string, infer V> ? V : never>();
  for (const [key, value] of cache)
    if (key.startsWith(`${workflowId}/`)) out.set(key.slice(workflowId.length + 1), value);
  return out;
}

function localWorkflowId(ref: string): string | { error: string } {
  if (!ref.startsWith('$')) return ref;
  return {
    error: `'${ref}' names a workflow of another Arazzo description, which is not supported: Sculptor runs the workflows of the description it loads (copy the workflow into it).`,
  };
}

type Resolved<T> = T | string;

function resolveReference<T>(
  ref: Reusable,
  section: keyof Components,
  components: Components | undefined,
): Resolved<T> {
  const parsed = parseRuntimeExpression(ref.reference);
  if (typeof parsed === 'string') return parsed;
  if (parsed.kind !== 'components' || parsed.section !== section) {
    return `reference '${ref.reference}' must name $components.${section}.<name>.`;
  }
  const found = components?.[section]?.[parsed.name];
  if (found === undefined)
    return `reference '${ref.reference}' names no component (components.${section} has: ${Object.keys(components?.[section] ?? {}).join(', ') || 'none'}).`;
  return found as T;
}

function resolveAction(
  raw: SuccessAction | FailureAction | Reusable,
  kind: 'success' | 'failure',
  components: Components | undefined,
): Resolved<SuccessAction | FailureAction> {
  if (!isReusable(raw)) return raw;
  return resolveReference<SuccessAction | FailureAction>(
    raw,
    kind === 'success' ? 'successActions' : 'failureActions',
    components,
  );
}

/** The workflow's parameters, then the step's, a step's of the same name and location replacing the workflow's. */
function mergeParameters(
  workflowParams: Array<Parameter | Reusable> | undefined,
  stepParams: Array<Parameter | Reusable> | undefined,
  components: Components | undefined,
): Array<{ parameter: Parameter; path: YamlPath }> | string {
  const resolve = (raw: Parameter | Reusable): Resolved<Parameter> => {
    if (!isReusable(raw)) return raw;
    const found = resolveReference<Parameter>(raw, 'parameters', components);
    if (typeof found === 'string') return found;
    return raw.value !== undefined ? { ...found, value: raw.value } : found;
  };
  const merged = new Map<string, { parameter: Parameter; path: YamlPath }>();
  for (const [list, prefix] of [
    [workflowParams, ['..', 'parameters']],
    [stepParams, ['parameters']],
  ] as const) {
    for (const [i, raw] of (list ?? []).entries()) {
      const parameter = resolve(raw);
      if (typeof parameter === 'string') return parameter;
      // The workflow's parameters sit above the step: their position is the workflow's.
      const path: YamlPath = prefix[0] === '..' ? [] : [...prefix, i];
      merged.set(
        `${parameter.in ?? ''}:${parameter.in === 'header' ? parameter.name.toLowerCase() : parameter.name}`,
        { parameter, path },
      );
    }
  }
  return [...merged.values()];
}

function collectHeaders(criterion: Criterion, context: BindContext, into: Set<string>): void {
  for (const match of criterion.condition.matchAll(/\$response\.header\.([!#$%&'*+\-.^_`|~0-9A-Za-z]+)/g))
    into.add(match[1]!.toLowerCase());
  if (criterion.context) {
    const bound = bindExpression(criterion.context, context);
    if (typeof bound !== 'string') for (const h of bound.headers) into.add(h);
  }
}

function setAtPointer(target: unknown, pointer: string[], value: unknown): void {
  if (pointer.length === 0) return;
  let node = target;
  for (const token of pointer.slice(0, -1)) {
    if (typeof node !== 'object' || node === null) return;
    node = (node as Record<string, unknown>)[token];
  }
  if (typeof node !== 'object' || node === null) return;
  const last = pointer[pointer.length - 1]!;
  if (Array.isArray(node)) {
    if (last === '-') node.push(value);
    else if (/^(0|[1-9][0-9]*)$/.test(last)) node[Number(last)] = value;
  } else {
    (node as Record<string, unknown>)[last] = value;
  }
}

/**
 * Regex criteria run on RE2, like every regular expression a sculpt writes: linear in the text,
 * and one test costs at most MAX_REGEX_STEPS (characters × the pattern's size).
 */
export const regexFactory: RegexFactory = (pattern) => {
  let regex: RegExp;
  try {
    regex = new RegExp(pattern);
  } catch (err) {
    return `'${pattern}' is not a regular expression: ${(err as Error).message}`;
  }
  const problem = linearRegexProblem(regex);
  if (problem) return problem;
  const compiled = new LinearRegExp(regex);
  return (text) => {
    if (text.length * compiled.programSize > MAX_REGEX_STEPS) {
      throw new SculptorError(
        'projection.failed',
        `A regex criterion would take more than ${MAX_REGEX_STEPS} steps on this answer (characters × the pattern's size).`,
      );
    }
    return compiled.test(text);
  };
};

// --- workflow inputs -------------------------------------------------------------------------

/** The workflow's inputs schema with `#/components/inputs/…` references replaced by what they name. */
export function resolveInputsSchema(
  schema: Record<string, unknown> | undefined,
  components: Components | undefined,
): Record<string, unknown> | string {
  if (schema === undefined) return { type: 'object', properties: {} };
  const seen = new Set<string>();
  const inline = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(inline);
    if (typeof value !== 'object' || value === null) return value;
    const record = value as Record<string, unknown>;
    if (typeof record.$ref === 'string') {
      const match = /^#\/components\/inputs\/([^/]+)$/.exec(record.$ref);
      if (!match)
        throw new Error(
          `inputs reference '${record.$ref}' is not supported: only #/components/inputs/<name>`,
        );
      const name = match[1]!;
      if (seen.has(name)) throw new Error(`inputs reference '${record.$ref}' refers back to itself`);
      const target = components?.inputs?.[name];
      if (!target) throw new Error(`inputs reference '${record.$ref}' names no component`);
      seen.add(name);
      const { $ref: _ref, ...rest } = record;
      const out = { ...(inline(target) as object), ...(inline(rest) as object) };
      seen.delete(name);
      return out;
    }
    return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, inline(v)]));
  };
  try {
    return inline(schema) as Record<string, unknown>;
  } catch (err) {
    return `${(err as Error).message}.`;
  }
}

function propertyNames(schema: Record<string, unknown>): ReadonlySet<string> | undefined {
  const properties = schema.properties;
  if (typeof properties !== 'object' || properties === null) return undefined;
  // An open schema (no additionalProperties: false) still only feeds the tool what it declares.
  return new Set(Object.keys(properties));
}

// Defaults a workflow's inputs schema declares fill inputs the caller leaves out, as the schema says.
const inputsAjv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false, useDefaults: true });

function compileInputSchema(
  schema: Record<string, unknown>,
  problem: (message: string) => void,
): ValidateFunction | undefined {
  try {
    const { $schema: _dialect, $id: _id, ...rest } = schema;
    return inputsAjv.compile(rest);
  } catch (err) {
    problem(`its inputs schema does not compile: ${(err as Error).message}`);
    return undefined;
  }
}

function inputProblems(
  validate: ValidateFunction | undefined,
  inputs: Record<string, unknown>,
  backendOnly: ReadonlySet<string>,
): InputProblem[] {
  if (!validate || validate(inputs)) return [];
  return (
    (validate.errors ?? [])
      // A credential input the backend sends in its place is never asked of the caller.
      .filter((e) => !(e.keyword === 'required' && backendOnly.has(String(e.params.missingProperty))))
      .map((e) => ({
        parameter:
          e.instancePath.split('/')[1]?.replace(/~1/g, '/').replace(/~0/g, '~') ??
          String(e.params.missingProperty ?? 'inputs'),
        reason: e.message ?? 'is invalid',
      }))
  );
}
