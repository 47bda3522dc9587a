import { cacheKey } from '../cache/cache-key.ts';
import type { StepCache } from '../cache/step-cache.ts';
import { isLimitError } from '../compile/evaluation-budget.ts';
import {
  type AstNode,
  BAIL,
  type CompiledExpression,
  literalObjectPairs,
  walkAst,
} from '../compile/compile-expression.ts';
import type { CompiledStep } from '../compile/compile-tool.ts';
import { SculptorError } from '../errors/sculptor-error.ts';
import type { BackendRequest, BackendResponse } from '../http/backend-client.ts';
import type { CallBudget, ResilientSendOptions } from '../http/resilient-sender.ts';
import type { TokenSource } from '../oauth/token-source.ts';
import { buildRequest } from '../openapi/build-request.ts';
import { withTraceContext } from '../telemetry/tracing.ts';
import {
  credentialsFor,
  type InvocationCaller,
  type StepCredentials,
  withCredentials,
} from './attach-credentials.ts';
import { type EchoWatch, watchSecrets } from './echoed-secrets.ts';
import type { ToolInputs } from './validate-arguments.ts';

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
  /** OAuth access tokens for `oauth` backends (fetched, kept, shared, renewed). */
  tokens: TokenSource;
  allowPrivate: boolean;
  /** Off by default: sees each step's request and the backend's answer (`sculptor invoke --debug`). */
  debug?: StepDebugHook;
  /** The secrets this invocation's steps hold or send, searched for in its output (issue #13 F6). */
  secrets: EchoWatch;
}

/**
 * A designer's view of one invocation. `request` is the request as built,
 * before credentials are attached; `response` is the backend's answer, not
 * called on a cache hit. Never set on a serving gateway.
 */
export interface StepDebugHook {
  request?(stepId: string, request: BackendRequest): void;
  /** `sent`: the secret values the invocation holds so far, so a debug view can redact them. */
  response?(stepId: string, response: BackendResponse, sent: Iterable<string>): void;
  /** The step's value after its `result` projection, cache hit or not (the Studio's trace). */
  result?(stepId: string, value: unknown): void;
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
  /** The error's operator hint (why, what to change): for `invoke --debug` and the debug log, never the wire. */
  errorHint?: string;
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
  /** A 429/503's Retry-After, in seconds, passed on to the caller (never cached: not a 2xx). */
  retryAfter?: number;
}

/** The longest Retry-After passed on: a backend cannot park an agent for longer than this. */
export const MAX_RETRY_AFTER_S = 3600;

/** Runs one step: params → request → (cache | backend) → outcome mapping → result projection. */
export async function runStep(step: CompiledStep, ctx: StepContext, report: StepReport): Promise<unknown> {
  const bindings = { inputs: ctx.inputs, steps: ctx.steps, caller: ctx.caller.context };
  if (step.when && !(await evaluate(step, 'when', step.when, ctx.inputs, bindings, ctx))) {
    report.outcome = 'skipped';
    return undefined;
  }
  const params = await evaluate(step, 'params', step.params, ctx.inputs, bindings, ctx);
  if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params))) {
    throw new SculptorError('projection.failed', `Step '${step.id}': params must yield an object.`);
  }
  const body = await evaluate(step, 'body', step.body, ctx.inputs, bindings, ctx);
  const request = buildBackendRequest(step, (params ?? {}) as Record<string, unknown>, body, ctx.inputs);
  ctx.debug?.request?.(step.id, request);
  // Before the cache: a caller without the credentials gets no cached answer either.
  const credentials = credentialsFor(step.backend, ctx.caller);
  watchSecrets(ctx.secrets, step.backend, credentials.auth);

  const sendOnce = async (auth: StepCredentials['auth']): Promise<BackendResponse> => {
    if (ctx.calls && !ctx.calls.tryTake()) {
      throw new SculptorError(
        'upstream.call_budget',
        `The tool needed more backend calls than the gateway allows per invocation (step '${step.id}').`,
      );
    }
    const sent = withCredentials(request, auth);
    const headers = withTraceContext(sent.headers);
    return ctx.sender.send(headers === sent.headers ? sent : { ...sent, headers }, {
      signal: ctx.signal,
      deadlineAt: ctx.deadlineAt,
      idempotent: step.idempotent,
      // Its own circuit breaker: another operation of the same backend failing does not pause it.
      operation: `${step.operation.method} ${step.operation.path}`,
      allowPrivate: ctx.allowPrivate || step.backend.allowPrivate,
      ...(ctx.calls ? { calls: ctx.calls } : {}),
    });
  };

  const send = async (): Promise<StoredAnswer> => {
    let response: BackendResponse;
    if (credentials.token) {
      const tokenRequest = await credentials.token();
      const bearer = async () => {
        const token = await ctx.tokens.token(tokenRequest, ctx.signal);
        watchSecrets(ctx.secrets, step.backend, [{ value: token }]);
        return {
          token,
          auth: [
            ...credentials.auth,
            { in: 'header' as const, name: 'authorization', value: `Bearer ${token}` },
          ],
        };
      };
      const first = await bearer();
      response = await sendOnce(first.auth);
      // A refused token (revoked, rotated keys, clock skew): drop it, fetch a new one, try once more.
      if (response.status === 401) {
        ctx.tokens.invalidate(tokenRequest, first.token);
        response = await sendOnce((await bearer()).auth);
      }
    } else {
      response = await sendOnce(credentials.auth);
    }
    ctx.debug?.response?.(step.id, response, ctx.secrets.keys());
    report.status = response.status;
    const retryAfter = retryAfterOf(response);
    return {
      status: response.status,
      body: answerBody(step, response),
      ...(retryAfter !== undefined ? { retryAfter } : {}),
    };
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
      if (cacheable && (await projectsEmpty(step, value.body, bindings, ctx))) {
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
    ? await evaluate(step, 'result', step.result, answer.body, bindings, ctx)
    : answer.body;
  const empty = step.on.get('empty');
  if (empty !== undefined && isEmpty(result)) {
    report.outcome = 'tool_error';
    throw new SculptorError('tool.error', renderMessage(empty, ctx.inputs));
  }
  report.outcome = 'ok';
  ctx.debug?.result?.(step.id, result);
  return result;
}

function buildBackendRequest(
  step: CompiledStep,
  params: Record<string, unknown>,
  body: unknown,
  inputs: ToolInputs,
): BackendRequest {
  try {
    const built = buildRequest(step.operation, step.backend.baseUrl, params, body);
    // Both sides are lower-cased already (buildRequest, loadBackends); the backend file's
    // static headers are explicit deployment configuration and win over derived ones (accept).
    // The request is this call's own, just built: its headers are extended in place.
    Object.assign(built.headers, step.backend.headers);
    return built;
  } catch (err) {
    // A parameter only known at run time turned out unknown or missing: the
    // sculpt's fault, not the caller's; input.invalid stays (bad path value).
    if (err instanceof SculptorError && err.code.startsWith('compile.')) {
      throw new SculptorError('projection.failed', `Step '${step.id}': ${err.message}`, { cause: err });
    }
    throw err instanceof SculptorError ? blameValues(err, step, params, inputs) : err;
  }
}

/**
 * A bad parameter value is the caller's (`input.invalid`) only when the caller sent it; one
 * built from an earlier step's answer (an id with a `/`) is the backend's, an upstream error
 * the caller cannot fix by changing its inputs (issue #13). Who sent it is read from the
 * params expression where it tells: a parameter whose expression reads `$steps` and not
 * `$inputs` came from a backend, one that reads `$inputs` and not `$steps` from the caller.
 * When it reads both (`$exists($inputs.x) ? $inputs.x : $steps.a.x`), neither (through a
 * variable), or the keys are only known at run time, the value decides: the caller's when
 * every primitive in it is one the caller sent.
 */
function blameValues(
  err: SculptorError,
  step: CompiledStep,
  params: Record<string, unknown>,
  inputs: ToolInputs,
): SculptorError {
  if (err.code !== 'input.invalid' || step.dependsOn.length === 0 || !err.problems) return err;
  const pairs = step.params ? literalObjectPairs(step.params.ast) : undefined;
  const sent = new Set(Object.values(inputs).flatMap(leaves));
  const fromAnswer = err.problems.filter((p) => {
    const reads = pairs?.has(p.parameter) ? variablesRead(pairs.get(p.parameter)!) : undefined;
    if (reads?.has('steps') && !reads.has('inputs')) return true;
    if (reads?.has('inputs') && !reads.has('steps')) return false;
    return !leaves(params[p.parameter]).every((v) => sent.has(v));
  });
  if (fromAnswer.length === 0) return err;
  const list = fromAnswer.map((p) => `${p.parameter} ${p.reason}`).join('; ');
  return new SculptorError(
    'upstream.invalid_response',
    `Step '${step.id}' cannot send a value an earlier step's backend answered (${list}).`,
    { cause: err },
  );
}

/** The variables an expression reads (`$inputs`, `$steps`, its own…), by name. */
function variablesRead(ast: AstNode): Set<string> {
  const names = new Set<string>();
  walkAst(ast, (node) => {
    if (node.type === 'variable' && typeof node.value === 'string') names.add(node.value);
  });
  return names;
}

/** The primitive values inside a value (a parameter may be an array or an object of them). */
function leaves(value: unknown): unknown[] {
  if (Array.isArray(value)) return value.flatMap(leaves);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(leaves);
  return [value];
}

/** Retry-After of a 429 or 503, as delay-seconds or an HTTP date, within 1 s to MAX_RETRY_AFTER_S. */
function retryAfterOf(response: BackendResponse): number | undefined {
  if (response.status !== 429 && response.status !== 503) return undefined;
  const text = response.headers['retry-after']?.trim();
  if (!text) return undefined;
  const seconds = /^\d{1,10}$/.test(text) ? Number(text) : (Date.parse(text) - Date.now()) / 1000;
  if (!Number.isFinite(seconds)) return undefined;
  return Math.min(MAX_RETRY_AFTER_S, Math.max(1, Math.ceil(seconds)));
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
  // The backend's Retry-After reaches the caller as its own (issue #13).
  const later = answer.retryAfter !== undefined ? { retryAfter: answer.retryAfter } : {};
  if (status === 429)
    return new SculptorError('upstream.rate_limited', `${who} is rate limiting; try again later.`, later);
  if (status === 503)
    return new SculptorError('upstream.unavailable', `${who} is unavailable (HTTP 503).`, later);
  if (status === 504) return new SculptorError('upstream.timeout', `${who} timed out (HTTP 504).`);
  return new SculptorError('upstream.error', `${who} answered HTTP ${status} to step '${step.id}'.`);
}

/** What bounds an evaluation: the invocation's signal and deadline. */
type Evaluation = Pick<StepContext, 'signal' | 'deadlineAt'>;

/** Synchronous when the fast path answers (most expressions); a promise only when jsonata must. */
function evaluate(
  step: CompiledStep,
  field: string,
  expression: CompiledExpression | undefined,
  input: unknown,
  bindings: Record<string, unknown>,
  limits: Evaluation,
): unknown {
  if (!expression) return undefined;
  const value = expression.evaluateSync(input, bindings);
  return value === BAIL ? evaluateSlowly(step, field, expression, input, bindings, limits) : value;
}

async function evaluateSlowly(
  step: CompiledStep,
  field: string,
  expression: CompiledExpression,
  input: unknown,
  bindings: Record<string, unknown>,
  { signal, deadlineAt }: Evaluation,
): Promise<unknown> {
  try {
    // The signal lets worker isolation (RELIABILITY G6) kill the evaluation at the deadline;
    // in process, the evaluation's own end time is the deadline at the latest.
    return await expression.evaluate(input, bindings, { signal, deadlineAt });
  } catch (err) {
    // JSONata throws plain objects whose messages may quote data: keep the code only.
    const code = (err as { code?: string }).code ?? 'error';
    // Sculptor's own limits say which one, with no data in the message.
    const limit = isLimitError(err) ? ` ${err.message}` : '';
    throw new SculptorError(
      'projection.failed',
      `Step '${step.id}' ${field} failed (JSONata ${code}).${limit}`,
      {
        cause: err,
      },
    );
  }
}

/** Whether a step that maps `empty` to a tool error would find this answer empty. */
async function projectsEmpty(
  step: CompiledStep,
  body: unknown,
  bindings: Record<string, unknown>,
  { signal, deadlineAt }: Evaluation,
): Promise<boolean> {
  if (!step.on.has('empty')) return false;
  try {
    return isEmpty(step.result ? await step.result.evaluate(body, bindings, { signal, deadlineAt }) : body);
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
