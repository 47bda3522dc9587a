import type { ExchangeValues, ExpressionScope, Getter } from '../arazzo/bind-expression.ts';
import type { CompiledStep } from '../compile/compile-tool.ts';
import type { WorkflowAction, WorkflowProgram, WorkflowStep } from '../compile/workflow-program.ts';
import { SculptorError, toSculptorError } from '../errors/sculptor-error.ts';
import {
  callBackend,
  MAX_RETRY_AFTER_S,
  outcomeError,
  type StepContext,
  type StepReport,
  type StoredAnswer,
} from './run-step.ts';

/**
 * Step executions one invocation may make, every workflow it runs together, retries and the
 * repeats a `goto` makes included. The invocation's deadline and backend call budget bound a
 * workflow too; this bounds one whose steps cost no call (cache hits, workflow calls) and would
 * otherwise loop until the deadline.
 */
export const MAX_WORKFLOW_STEPS = 64;

/** Calls of workflows within workflows: deeper than this is refused at run time (recursion is refused at load). */
export const MAX_WORKFLOW_DEPTH = 8;

/** How the engine tracks one step execution: its report (telemetry, Studio's trace) and span. */
export type TrackStep = <T>(
  id: string,
  step: CompiledStep | undefined,
  label: { backend: string; operation: string },
  run: (report: StepReport) => Promise<T>,
) => Promise<T>;

export interface WorkflowRunState {
  /** Step executions left (MAX_WORKFLOW_STEPS at the start of the invocation). */
  stepsLeft: number;
  /** Workflows run so far: `$workflows.<id>.inputs|outputs`. */
  workflows: ExpressionScope['workflows'];
  track: TrackStep;
  /** A top-level step finished well (progress). */
  onStepDone?: () => void;
}

/** What one execution of a step ended with. */
interface StepOutcome {
  ok: boolean;
  scope: ExpressionScope;
  /** Why it failed, as the caller would be told. */
  error?: SculptorError;
  /** A 429/503's Retry-After, seconds: it overrules a retry action's retryAfter. */
  retryAfter?: number;
}

/**
 * Runs one workflow: its steps in order, each judged by its success criteria, then its actions:
 * the next step by default, `goto` a step, `end`, or `retry` after `retryAfter` (or the answer's
 * Retry-After) at most `retryLimit` times. Bounded by the step budget, the invocation's deadline
 * (a retry that cannot start before it fails at once) and its backend call budget.
 *
 * A failure that no action turns into something else ends the workflow with the step's error:
 * the one a chain step gets for the same answer (a 404 is `upstream.error`, a 503
 * `upstream.unavailable` with its Retry-After…), or `tool.error` when the answer was a success
 * that the criteria did not accept. An `end` failure action ends it the same way: the workflow
 * failed, and the caller is told why rather than handed partial outputs.
 */
export async function runWorkflow(
  program: WorkflowProgram,
  inputs: Record<string, unknown>,
  ctx: StepContext,
  state: WorkflowRunState,
  depth = 0,
  prefix = '',
): Promise<Record<string, unknown>> {
  if (depth > MAX_WORKFLOW_DEPTH) {
    throw new SculptorError(
      'upstream.call_budget',
      `Workflows called each other more than ${MAX_WORKFLOW_DEPTH} deep.`,
    );
  }
  for (const dependency of program.dependsOn) {
    const dep = dependency();
    if (!state.workflows[dep.workflowId])
      await runWorkflow(dep, inputs, ctx, state, depth + 1, `${prefix}${dep.workflowId}/`);
  }
  const scope: ExpressionScope = { inputs, steps: {}, workflows: state.workflows };
  const attempts = new Map<string, number>();
  let i = 0;
  while (i < program.steps.length) {
    const step = program.steps[i]!;
    const outcome = await execute(step, scope, ctx, state, depth, prefix);
    if (outcome.ok) {
      scope.steps[step.id] = evaluateAll(step.outputs, outcome.scope);
      if (depth === 0) state.onStepDone?.();
      const action = firstMatching(step.onSuccess, outcome.scope);
      if (action?.type === 'end') break;
      i = action?.type === 'goto' ? action.stepIndex! : i + 1;
      continue;
    }
    const action = firstMatching(
      step.onFailure,
      outcome.scope,
      (a) => a.type !== 'retry' || (attempts.get(`${i}:${a.name}`) ?? 0) < a.retryLimit,
    );
    if (action?.type === 'goto') {
      i = action.stepIndex!;
      continue;
    }
    if (action?.type !== 'retry') throw outcome.error!;
    attempts.set(`${i}:${action.name}`, (attempts.get(`${i}:${action.name}`) ?? 0) + 1);
    if (action.stepIndex !== undefined) {
      // "the reference is executed and the context is returned, after which the current step is retried"
      const first = program.steps[action.stepIndex]!;
      const ran = await execute(first, scope, ctx, state, depth, prefix);
      if (!ran.ok) throw ran.error!;
      scope.steps[first.id] = evaluateAll(first.outputs, ran.scope);
    }
    const delayMs = outcome.retryAfter !== undefined ? outcome.retryAfter * 1000 : action.retryAfterMs;
    // A retry that cannot begin before the deadline would only fail later as upstream.timeout.
    if (Date.now() + delayMs >= ctx.deadlineAt) throw outcome.error!;
    if (delayMs > 0) await sleep(delayMs, ctx.signal);
  }
  const outputs = evaluateAll(program.outputs, scope);
  state.workflows[program.workflowId] = { inputs, outputs };
  return outputs;
}

async function execute(
  step: WorkflowStep,
  scope: ExpressionScope,
  ctx: StepContext,
  state: WorkflowRunState,
  depth: number,
  prefix: string,
): Promise<StepOutcome> {
  if (state.stepsLeft-- <= 0) {
    throw new SculptorError(
      'upstream.call_budget',
      `The workflow ran more steps than the gateway allows per invocation (${MAX_WORKFLOW_STEPS}, retries and repeats included).`,
    );
  }
  const id = `${prefix}${step.id}`;
  if (step.workflow) {
    const called = step.workflow.program();
    return state.track(
      id,
      undefined,
      { backend: 'workflow', operation: called.workflowId },
      async (report) => {
        const args = step.workflow!.inputs(scope) as Record<string, unknown>;
        const problems = called.checkInputs(args);
        if (problems.length > 0) {
          report.outcome = 'error';
          const list = problems.map((p) => `${p.parameter} ${p.reason}`).join('; ');
          throw new SculptorError(
            'projection.failed',
            `Step '${step.id}' calls workflow '${called.workflowId}' with inputs that do not fit its schema (${list}).`,
          );
        }
        let outputs: Record<string, unknown>;
        try {
          outputs = await runWorkflow(called, args, ctx, state, depth + 1, `${id}/`);
        } catch (err) {
          const error = toSculptorError(err);
          if (!failsTheStep(error, ctx)) throw error;
          report.outcome = 'error';
          return { ok: false, scope: { ...scope, outputs: {} }, error };
        }
        const after: ExpressionScope = { ...scope, outputs };
        const ok = step.successCriteria.every((c) => c(after));
        report.outcome = ok ? 'ok' : 'tool_error';
        return ok ? { ok, scope: after } : { ok, scope: after, error: criteriaError(step) };
      },
    );
  }
  const { step: chainStep, params, body } = step.call!;
  return state.track(
    id,
    chainStep,
    { backend: chainStep.backend.name, operation: chainStep.operationRef },
    async (report) => {
      const values: Record<string, unknown> = {};
      for (const [key, get] of params) {
        const value = get(scope);
        if (value !== undefined && value !== null) values[key] = value;
      }
      const payload = body?.(scope);
      let request: Awaited<ReturnType<typeof callBackend>>['request'];
      let answer: StoredAnswer;
      try {
        // A called workflow's step is known by its path (`ordering/find`) to every hook and error.
        const called = prefix ? { ...chainStep, id } : chainStep;
        ({ request, answer } = await callBackend(called, ctx, report, values, payload));
      } catch (err) {
        const error = toSculptorError(err);
        if (!failsTheStep(error, ctx)) throw error;
        report.outcome = 'error';
        return {
          ok: false,
          scope,
          error,
          ...(error.retryAfter !== undefined ? { retryAfter: error.retryAfter } : {}),
        };
      }
      const after: ExpressionScope = {
        ...scope,
        exchange: exchangeOf(chainStep, request, answer, values, payload),
      };
      const success = answer.status >= 200 && answer.status < 300;
      const ok = step.successCriteria.length > 0 ? step.successCriteria.every((c) => c(after)) : success;
      if (ok) {
        report.outcome = 'ok';
        ctx.debug?.result?.(id, after.exchange?.response.body);
        return { ok, scope: after };
      }
      const error = outcomeError(chainStep, answer, ctx.inputs) ?? criteriaError(step);
      report.outcome = error.code === 'tool.error' ? 'tool_error' : 'error';
      const retryAfter =
        answer.retryAfter !== undefined ? Math.min(answer.retryAfter, MAX_RETRY_AFTER_S) : undefined;
      return { ok, scope: after, error, ...(retryAfter !== undefined ? { retryAfter } : {}) };
    },
  );
}

/**
 * Whether an error is the step's outcome, which its actions may act on (the backend unreachable,
 * timing out, rate limiting), rather than the invocation's end: the deadline, the caller gone,
 * the drain, a spent budget, a mistake in the description.
 */
function failsTheStep(error: SculptorError, ctx: StepContext): boolean {
  if (ctx.signal.aborted) return false;
  return (
    error.code.startsWith('upstream.') &&
    error.code !== 'upstream.call_budget' &&
    error.code !== 'upstream.secret_echoed'
  );
}

function criteriaError(step: WorkflowStep): SculptorError {
  return new SculptorError(
    'tool.error',
    `The workflow's step '${step.id}' did not succeed: the answer does not meet its success criteria.`,
  );
}

function exchangeOf(
  step: CompiledStep,
  request: { url: string; method: string; headers: Record<string, string> },
  answer: StoredAnswer,
  params: Record<string, unknown>,
  body: unknown,
): ExchangeValues {
  const header: Record<string, unknown> = {};
  const query: Record<string, unknown> = {};
  const path: Record<string, unknown> = {};
  for (const p of step.operation.parameters) {
    const value = params[p.name] ?? params[`${p.in}.${p.name}`];
    if (value === undefined) continue;
    if (p.in === 'header') header[p.name.toLowerCase()] = value;
    else if (p.in === 'query') query[p.name] = value;
    else if (p.in === 'path') path[p.name] = value;
  }
  return {
    url: request.url,
    method: request.method,
    statusCode: answer.status,
    request: { header, query, path, body },
    response: { header: answer.headers ?? {}, body: answer.body },
  };
}

function firstMatching(
  actions: WorkflowAction[],
  scope: ExpressionScope,
  usable: (action: WorkflowAction) => boolean = () => true,
): WorkflowAction | undefined {
  return actions.find((a) => usable(a) && a.criteria.every((c) => c(scope)));
}

function evaluateAll(entries: Array<[string, Getter]>, scope: ExpressionScope): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, get] of entries) {
    const value = get(scope);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', stop, { once: true });
  });
}
