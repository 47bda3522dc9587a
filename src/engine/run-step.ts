import { cacheKey } from '../cache/cache-key.ts';
import type { StepCache } from '../cache/step-cache.ts';
import { BAIL, type CompiledExpression } from '../compile/compile-expression.ts';
import type { CompiledStep } from '../compile/compile-tool.ts';
import { SculptorError } from '../errors/sculptor-error.ts';
import type { BackendRequest, BackendResponse } from '../http/backend-client.ts';
import type { CallBudget, ResilientSendOptions } from '../http/resilient-sender.ts';
import { buildRequest } from '../openapi/build-request.ts';
import { credentialsFor, type InvocationCaller, withCredentials } from './attach-credentials.ts';
import type { ToolInputs } from './validate-invocation.ts';

/** What the engine needs from an HTTP client (the real one is src/http). */
export interface BackendSender {
  send(request: BackendRequest, options: ResilientSendOptions): Promise<BackendResponse>;
}

export interface StepContext {
  inputs: ToolInputs;
  /** Who the invocation is for: credentials and `$caller` (RELIABILITY D1-D2). */
  caller: InvocationCaller;
  /** Results of earlier steps, by id (after their `result` projection). */
  steps: Record<string, unknown>;
  signal: AbortSignal;
  /** When the invocation's deadline falls (epoch ms), for retry decisions. */
  deadlineAt: number;
  sender: BackendSender;
  /** Backend calls this invocation may still make, retries included (RELIABILITY C9). */
  calls?: CallBudget;
  cache: StepCache | undefined;
  cacheSecret: string;
  allowPrivate: boolean;
  /** Off by default: sees each step's request and the backend's answer (`sculptor invoke --debug`). */
  debug?: StepDebugHook;
}

/**
 * A designer's view of one invocation. `request` is the request as built,
 * before credentials are attached; `response` is the backend's answer, not
 * called on a cache hit. Never set on a serving gateway.
 */
export interface StepDebugHook {
  request?(stepId: string, request: BackendRequest): void;
  response?(stepId: string, response: BackendResponse): void;
}

export type CacheOutcome = 'hit' | 'miss' | 'shared' | 'bypass' | 'off';

export interface StepReport {
  id: string;
  backend: string;
  operation: string;
  /** `not_run`: an earlier step failed first, so this one never started. */
  outcome: 'ok' | 'skipped' | 'tool_error' | 'error' | 'not_run';
  cache: CacheOutcome;
  status?: number;
  durationMs: number;
  errorCode?: string;
}

/**
 * How long a cached step keeps an answer its sculpt calls empty (`on: empty`,
 * e.g. no such city): a negative answer is kept briefly (RELIABILITY E4).
 */
export const NEGATIVE_TTL_MS = 30_000;

/** What a cached step keeps: the backend's answer, before any projection. */
interface StoredAnswer {
  status: number;
  body: unknown;
}

/** Runs one step: params → request → (cache | backend) → outcome mapping → result projection. */
export async function runStep(step: CompiledStep, ctx: StepContext, report: StepReport): Promise<unknown> {
  const bindings = { inputs: ctx.inputs, steps: ctx.steps, caller: ctx.caller.context };
  if (step.when && !(await evaluate(step, 'when', step.when, ctx.inputs, bindings, ctx.signal))) {
    report.outcome = 'skipped';
    return undefined;
  }
  const params = await evaluate(step, 'params', step.params, ctx.inputs, bindings, ctx.signal);
  if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params))) {
    throw new SculptorError('projection.failed', `Step '${step.id}': params must yield an object.`);
  }
  const body = await evaluate(step, 'body', step.body, ctx.inputs, bindings, ctx.signal);
  const request = buildBackendRequest(step, (params ?? {}) as Record<string, unknown>, body);
  ctx.debug?.request?.(step.id, request);
  // Before the cache: a caller without the credentials gets no cached answer either.
  const credentials = credentialsFor(step.backend, ctx.caller);

  const send = async (): Promise<StoredAnswer> => {
    if (ctx.calls && !ctx.calls.tryTake()) {
      throw new SculptorError(
        'upstream.call_budget',
        `The tool needed more backend calls than the gateway allows per invocation (step '${step.id}').`,
      );
    }
    const response = await ctx.sender.send(withCredentials(request, credentials.auth), {
      signal: ctx.signal,
      deadlineAt: ctx.deadlineAt,
      idempotent: step.idempotent,
      allowPrivate: ctx.allowPrivate || step.backend.allowPrivate,
      ...(ctx.calls ? { calls: ctx.calls } : {}),
    });
    ctx.debug?.response?.(step.id, response);
    report.status = response.status;
    return { status: response.status, body: answerBody(step, response) };
  };

  let answer: StoredAnswer;
  const stepCache = step.cache;
  if (stepCache && ctx.cache) {
    const key = cacheKey(
      {
        method: request.method,
        url: request.url,
        ...(request.body !== undefined ? { body: request.body } : {}),
        varyHeaders: request.headers,
        scope: stepCache.scope,
        credentialId: credentials.credentialId,
      },
      ctx.cacheSecret,
    );
    const cached = await ctx.cache.getOrLoad(key, stepCache.ttlMs, async () => {
      const value = await send();
      // Only definitive, successful answers are kept (RELIABILITY E3).
      const cacheable = value.status >= 200 && value.status < 300 && value.body !== undefined;
      if (cacheable && (await projectsEmpty(step, value.body, bindings, ctx.signal))) {
        return { value, cacheable, ttlMs: Math.min(NEGATIVE_TTL_MS, stepCache.ttlMs) };
      }
      return { value, cacheable };
    });
    answer = cached.value;
    report.cache = cached.outcome;
    report.status = answer.status;
  } else {
    report.cache = step.cache ? 'bypass' : 'off';
    answer = await send();
  }

  const failure = outcomeError(step, answer, ctx.inputs);
  if (failure) {
    report.outcome = failure.code === 'tool.error' ? 'tool_error' : 'error';
    throw failure;
  }
  const result = step.result
    ? await evaluate(step, 'result', step.result, answer.body, bindings, ctx.signal)
    : answer.body;
  const empty = step.on.get('empty');
  if (empty !== undefined && isEmpty(result)) {
    report.outcome = 'tool_error';
    throw new SculptorError('tool.error', renderMessage(empty, ctx.inputs));
  }
  report.outcome = 'ok';
  return result;
}

function buildBackendRequest(
  step: CompiledStep,
  params: Record<string, unknown>,
  body: unknown,
): BackendRequest {
  try {
    const built = buildRequest(step.operation, step.backend.baseUrl, params, body);
    // Both sides are lower-cased already (buildRequest, loadBackends); the backend file's
    // static headers are explicit deployment configuration and win over derived ones (accept).
    return { ...built, headers: { ...built.headers, ...step.backend.headers } };
  } catch (err) {
    // A parameter only known at run time turned out unknown or missing: the
    // sculpt's fault, not the caller's; input.invalid stays (bad path value).
    if (err instanceof SculptorError && err.code.startsWith('compile.')) {
      throw new SculptorError('projection.failed', `Step '${step.id}': ${err.message}`, { cause: err });
    }
    throw err;
  }
}

/** A JSON body, or nothing; a successful answer in another format is unusable. */
function answerBody(step: CompiledStep, response: BackendResponse): unknown {
  const ok = response.status >= 200 && response.status < 300;
  if (ok && typeof response.body === 'string') {
    throw new SculptorError(
      'upstream.invalid_response',
      `Backend '${step.backend.name}' answered ${response.contentType || 'without a content type'}, not JSON.`,
    );
  }
  return typeof response.body === 'string' ? undefined : response.body;
}

/** Maps a non-2xx answer to the error the caller sees; declared outcomes first. */
function outcomeError(
  step: CompiledStep,
  answer: StoredAnswer,
  inputs: ToolInputs,
): SculptorError | undefined {
  const { status } = answer;
  if (status >= 200 && status < 300) return undefined;
  const declared = step.on.get(String(status)) ?? step.on.get(`${Math.floor(status / 100)}xx`);
  if (declared !== undefined) return new SculptorError('tool.error', renderMessage(declared, inputs));
  const who = `Backend '${step.backend.name}'`;
  if (status === 429)
    return new SculptorError('upstream.rate_limited', `${who} is rate limiting; try again later.`);
  if (status === 503) return new SculptorError('upstream.unavailable', `${who} is unavailable (HTTP 503).`);
  if (status === 504) return new SculptorError('upstream.timeout', `${who} timed out (HTTP 504).`);
  return new SculptorError('upstream.error', `${who} answered HTTP ${status} to step '${step.id}'.`);
}

/** Synchronous when the fast path answers (most expressions); a promise only when jsonata must. */
function evaluate(
  step: CompiledStep,
  field: string,
  expression: CompiledExpression | undefined,
  input: unknown,
  bindings: Record<string, unknown>,
  signal: AbortSignal,
): unknown {
  if (!expression) return undefined;
  const value = expression.evaluateSync(input, bindings);
  return value === BAIL ? evaluateSlowly(step, field, expression, input, bindings, signal) : value;
}

async function evaluateSlowly(
  step: CompiledStep,
  field: string,
  expression: CompiledExpression,
  input: unknown,
  bindings: Record<string, unknown>,
  signal: AbortSignal,
): Promise<unknown> {
  try {
    // The signal lets worker isolation (RELIABILITY G6) kill the evaluation at the deadline.
    return await expression.evaluate(input, bindings, { signal });
  } catch (err) {
    // JSONata throws plain objects whose messages may quote data: keep the code only.
    const code = (err as { code?: string }).code ?? 'error';
    throw new SculptorError('projection.failed', `Step '${step.id}' ${field} failed (JSONata ${code}).`, {
      cause: err,
    });
  }
}

/** Whether a step that maps `empty` to a tool error would find this answer empty. */
async function projectsEmpty(
  step: CompiledStep,
  body: unknown,
  bindings: Record<string, unknown>,
  signal: AbortSignal,
): Promise<boolean> {
  if (!step.on.has('empty')) return false;
  try {
    return isEmpty(step.result ? await step.result.evaluate(body, bindings, { signal }) : body);
  } catch {
    return false; // the same projection fails again after the cache, and is reported there
  }
}

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

/** `{{name}}` → the caller's input of that name (already validated and bounded). */
export function renderMessage(template: string, inputs: ToolInputs): string {
  return template.replace(/\{\{\s*([a-z0-9_]+)\s*\}\}/g, (_m, name: string) => String(inputs[name] ?? ''));
}
