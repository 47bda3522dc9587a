import { cacheKey } from '../cache/cache-key.ts';
import type { StepCache } from '../cache/step-cache.ts';
import { isLimitError } from '../compile/jsonata/evaluation-budget.ts';
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
import type { Operation } from '../openapi/load-openapi.ts';
import type { AnswerFault } from '../openapi/operation-codec.ts';
import {
  credentialsFor,
  type InvocationCaller,
  type StepCredentials,
  withCredentials,
} from './attach-credentials.ts';
import { type EchoWatch, NO_SECRETS, watchSecrets } from './echoed-secrets.ts';
import type { StepTracer } from './step-tracer.ts';
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
  /** The secrets this invocation's steps hold or send, searched for in its output. */
  secrets: EchoWatch;
  /** Step spans and trace propagation (NO_TRACING when the host installs none). */
  tracer: StepTracer;
}

/**
 * A designer's view of one invocation. `request` is the request as built,
 * before credentials are attached; `response` is the backend's answer, not
 * called on a cache hit. Never set on a serving gateway.
 */
export interface StepDebugHook {
  request?(stepId: string, request: BackendRequest): void;
  /** A workflow tool's run: the workflow's outputs, which its output projection reads as `$outputs`. */
  workflowOutputs?(outputs: Record<string, unknown>): void;
  /** `sent`: the secret values the invocation holds so far, so a debug view can redact them. */
  response?(stepId: string, response: BackendResponse, sent: Iterable<string>): void;
  /** The answer's body as the step reads it, before `result` (an XML answer parsed; not called on a cache hit). */
  decoded?(stepId: string, value: unknown): void;
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
export interface StoredAnswer {
  status: number;
  body: unknown;
  /** A failure the answer reports itself (a SOAP fault); never cached. */
  fault?: AnswerFault;
  /** A 429/503's Retry-After, in seconds, passed on to the caller (never cached: not a 2xx). */
  retryAfter?: number;
  /** The response headers the step reads (`keepHeaders`), lower-cased; no others are kept. */
  headers?: Record<string, string>;
}

/** The longest Retry-After passed on: a backend cannot park an agent for longer than this. */
export const MAX_RETRY_AFTER_S = 3600;

/** Runs one step: params → request → (cache | backend) → outcome mapping → result projection. */
export async function runStep(step: CompiledStep, ctx: StepContext, report: StepReport): Promise<unknown> {
  const bindings = { inputs: ctx.inputs, steps: ctx.steps, caller: ctx.caller.context };
  // An expression the fast path evaluated is a value, not a promise: awaited only when it is one
  // (each await of a value costs a promise and a turn; JSON data is never a promise).
  if (step.when) {
    let when = evaluate(step, 'when', step.when, ctx.inputs, bindings, ctx);
    if (when instanceof Promise) when = await when;
    if (!when) {
      report.outcome = 'skipped';
      return undefined;
    }
  }
  let params = evaluate(step, 'params', step.params, ctx.inputs, bindings, ctx);
  if (params instanceof Promise) params = await params;
  if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params))) {
    throw new SculptorError('projection.failed', `Step '${step.id}': params must yield an object.`);
  }
  let body = evaluate(step, 'body', step.body, ctx.inputs, bindings, ctx);
  if (body instanceof Promise) body = await body;
  const { answer } = await callBackend(
    step,
    ctx,
    report,
    params as Record<string, unknown> | undefined,
    body,
    bindings,
  );

  const failure = outcomeError(step, answer, ctx.inputs, ctx.secrets);
  if (failure) {
    report.outcome = failure.code === 'tool.error' ? 'tool_error' : 'error';
    throw failure;
  }
  let result = step.result ? evaluate(step, 'result', step.result, answer.body, bindings, ctx) : answer.body;
  if (result instanceof Promise) result = await result;
  const empty = step.on.get('empty');
  if (empty !== undefined && isEmpty(result)) {
    report.outcome = 'tool_error';
    throw new SculptorError('tool.error', renderMessage(empty, ctx.inputs));
  }
  report.outcome = 'ok';
  ctx.debug?.result?.(step.id, result);
  return result;
}

/**
 * One backend exchange of a step: the request built from its parameter values and body, the
 * credentials attached, the cache consulted (only definitive, successful answers kept), the
 * call budget charged. A chain step and an Arazzo workflow step both call a backend through here.
 * `bindings`, a chain step's: a cacheable answer its result projects empty is kept briefly.
 *
 * The uncached exchange creates no closure: each would make every call allocate this function's
 * scope as a context object.
 */
export async function callBackend(
  step: CompiledStep,
  ctx: StepContext,
  report: StepReport,
  params: Record<string, unknown> | undefined,
  body: unknown,
  bindings?: Record<string, unknown>,
): Promise<{ request: BackendRequest; answer: StoredAnswer }> {
  const request = buildBackendRequest(step, params ?? {}, body, ctx.inputs);
  ctx.debug?.request?.(step.id, request);
  // Before the cache: a caller without the credentials gets no cached answer either.
  const credentials = credentialsFor(step.backend, ctx.caller);
  watchSecrets(ctx, step.backend, credentials.auth);
  const stepCache = step.cache;
  if (stepCache && ctx.cache) {
    const answer = await cachedAnswer(
      step,
      ctx,
      report,
      request,
      credentials,
      stepCache,
      ctx.cache,
      bindings,
    );
    return { request, answer };
  }
  report.cache = stepCache ? 'bypass' : 'off';
  const answer = answerOf(step, ctx, report, await sendStep(step, ctx, request, credentials));
  return { request, answer };
}

/** The step's answer from the cache, or from the backend and kept when it is definitive. */
async function cachedAnswer(
  step: CompiledStep,
  ctx: StepContext,
  report: StepReport,
  request: BackendRequest,
  credentials: StepCredentials,
  stepCache: NonNullable<CompiledStep['cache']>,
  cache: StepCache,
  bindings: Record<string, unknown> | undefined,
): Promise<StoredAnswer> {
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
  const cached = await cache.getOrLoad(key, stepCache.ttlMs, async () => {
    const value = answerOf(step, ctx, report, await sendStep(step, ctx, request, credentials));
    // Only definitive, successful answers are kept (RELIABILITY E3) — a SOAP fault is not one;
    // never one that echoed a credential this invocation holds or sent, even one its projection
    // drops: the store outlives the call and is read by whoever reaches Redis.
    const cacheable = value.status >= 200 && value.status < 300 && value.body !== undefined && !value.fault;
    const secrets = ctx.secrets.keys();
    if (cacheable && bindings && (await projectsEmpty(step, value.body, bindings, ctx))) {
      return { value, cacheable, secrets, ttlMs: Math.min(NEGATIVE_TTL_MS, stepCache.ttlMs) };
    }
    return { value, cacheable, secrets };
  });
  report.cache = cached.outcome;
  report.status = cached.value.status;
  return cached.value;
}

/** The step's request sent with its credentials: with an OAuth token, fetched first. Not async: no layer around the sender's promise. */
function sendStep(
  step: CompiledStep,
  ctx: StepContext,
  request: BackendRequest,
  credentials: StepCredentials,
): Promise<BackendResponse> {
  return credentials.token
    ? sendWithToken(step, ctx, request, credentials)
    : sendOnce(step, ctx, request, credentials.auth);
}

/** One send of the request with these credentials, charged to the invocation's budget. */
function sendOnce(
  step: CompiledStep,
  ctx: StepContext,
  request: BackendRequest,
  auth: StepCredentials['auth'],
): Promise<BackendResponse> {
  if (ctx.calls && !ctx.calls.tryTake()) {
    throw new SculptorError(
      'upstream.call_budget',
      `The tool needed more backend calls than the gateway allows per invocation (step '${step.id}').`,
    );
  }
  const sent = withCredentials(request, auth);
  const headers = ctx.tracer.withTraceContext(sent.headers);
  return ctx.sender.send(headers === sent.headers ? sent : { ...sent, headers }, {
    signal: ctx.signal,
    deadlineAt: ctx.deadlineAt,
    idempotent: step.idempotent,
    // Its own circuit breaker: another operation of the same backend failing does not pause it.
    operation: breakerName(step.operation),
    allowPrivate: ctx.allowPrivate || step.backend.allowPrivate,
    calls: ctx.calls,
  });
}

/** With an OAuth token: fetched first, and once more when the backend refuses it. */
async function sendWithToken(
  step: CompiledStep,
  ctx: StepContext,
  request: BackendRequest,
  credentials: StepCredentials,
): Promise<BackendResponse> {
  const tokenRequest = await credentials.token!();
  const bearer = async () => {
    const token = await ctx.tokens.token(tokenRequest, ctx.signal);
    watchSecrets(ctx, step.backend, [{ value: token }]);
    return {
      token,
      auth: [...credentials.auth, { in: 'header' as const, name: 'authorization', value: `Bearer ${token}` }],
    };
  };
  const first = await bearer();
  const response = await sendOnce(step, ctx, request, first.auth);
  if (response.status !== 401) return response;
  // A refused token (revoked, rotated keys, clock skew): drop it, fetch a new one, try once more.
  ctx.tokens.invalidate(tokenRequest, first.token);
  return sendOnce(step, ctx, request, (await bearer()).auth);
}

const breakerNames = new WeakMap<Operation, string>();

/** An operation's name for its circuit breaker, `GET /path/{x}`: made once per operation, not per call. */
function breakerName(operation: Operation): string {
  let name = breakerNames.get(operation);
  if (name === undefined) {
    name = `${operation.method} ${operation.path}`;
    breakerNames.set(operation, name);
  }
  return name;
}

/** What a step keeps of the backend's response: its status, decoded body, fault, Retry-After and kept headers. */
function answerOf(
  step: CompiledStep,
  ctx: StepContext,
  report: StepReport,
  response: BackendResponse,
): StoredAnswer {
  ctx.debug?.response?.(step.id, response, ctx.secrets.keys());
  report.status = response.status;
  const retryAfter = retryAfterOf(response);
  const headers = keptHeaders(step, response);
  const decoded = decodeAnswer(step, response);
  ctx.debug?.decoded?.(step.id, decoded.body);
  // Absent fields stay absent (the answer may be cached), set without a spread per field.
  const answer: StoredAnswer = { status: response.status, body: decoded.body };
  if (decoded.fault) answer.fault = decoded.fault;
  if (retryAfter !== undefined) answer.retryAfter = retryAfter;
  if (headers) answer.headers = headers;
  return answer;
}

function buildBackendRequest(
  step: CompiledStep,
  params: Record<string, unknown>,
  body: unknown,
  inputs: ToolInputs,
): BackendRequest {
  try {
    const built = step.codec.request(step.operation, step.backend.baseUrl, params, body);
    // Both sides are lower-cased already (the codec, loadBackends); the backend file's
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
    throw err instanceof SculptorError ? blameValues(err, step, params, body, inputs) : err;
  }
}

/**
 * A bad parameter value is the caller's (`input.invalid`) only when the caller sent it; one
 * built from an earlier step's answer (an id with a `/`) is the backend's, an upstream error
 * the caller cannot fix by changing its inputs. Who sent it is read from the
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
  body: unknown,
  inputs: ToolInputs,
): SculptorError {
  if (err.code !== 'input.invalid' || step.dependsOn.length === 0 || !err.problems) return err;
  const paramPairs = step.params ? literalObjectPairs(step.params.ast) : undefined;
  const bodyPairs = step.body ? literalObjectPairs(step.body.ast) : undefined;
  const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const sent = new Set(Object.values(inputs).flatMap(leaves));
  const fromAnswer = err.problems.filter((p) => {
    // A body field's problem (an XML or SOAP body) names its path: `body.x.y`, or `x.y` for a SOAP message.
    const inParams = Object.hasOwn(params, p.parameter) || paramPairs?.has(p.parameter);
    const field = p.parameter.replace(/^body\.?/, '').split('.')[0]!;
    const pairs = inParams ? paramPairs : bodyPairs;
    const key = inParams ? p.parameter : field;
    const reads = pairs?.has(key) ? variablesRead(pairs.get(key)!) : undefined;
    if (reads?.has('steps') && !reads.has('inputs')) return true;
    if (reads?.has('inputs') && !reads.has('steps')) return false;
    const value = inParams ? params[p.parameter] : field === '' ? body : fields[field];
    return !leaves(value).every((v) => sent.has(v));
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
export function retryAfterOf(response: BackendResponse): number | undefined {
  if (response.status !== 429 && response.status !== 503) return undefined;
  const text = response.headers['retry-after']?.trim();
  if (!text) return undefined;
  const seconds = /^\d{1,10}$/.test(text) ? Number(text) : (Date.parse(text) - Date.now()) / 1000;
  if (!Number.isFinite(seconds)) return undefined;
  return Math.min(MAX_RETRY_AFTER_S, Math.max(1, Math.ceil(seconds)));
}

function keptHeaders(step: CompiledStep, response: BackendResponse): Record<string, string> | undefined {
  if (!step.keepHeaders || step.keepHeaders.length === 0) return undefined;
  const kept: Record<string, string> = {};
  for (const name of step.keepHeaders) {
    const value = response.headers[name];
    if (value !== undefined) kept[name] = value;
  }
  return kept;
}

/** The answer as the step's codec reads it (JSON as is, XML by its schema, a SOAP envelope unwrapped). */
function decodeAnswer(
  step: CompiledStep,
  response: BackendResponse,
): ReturnType<CompiledStep['codec']['answer']> {
  try {
    return step.codec.answer(step.operation, response);
  } catch (err) {
    if (err instanceof SculptorError && err.code === 'upstream.invalid_response') {
      throw new SculptorError('upstream.invalid_response', `Backend '${step.backend.name}': ${err.message}`, {
        cause: err,
        ...(err.hint ? { hint: err.hint } : {}),
      });
    }
    throw err;
  }
}

/**
 * Maps a fault or a non-2xx answer to the error the caller sees; declared outcomes first. A
 * fault of the caller's request (SOAP Client/Sender) is the caller's to fix, `input.invalid`;
 * any other is the backend's. The backend's own words go to the hint (the designer's debug
 * view), with every secret the invocation holds masked, never to the caller.
 */
export function outcomeError(
  step: CompiledStep,
  answer: StoredAnswer,
  inputs: ToolInputs,
  secrets: EchoWatch = NO_SECRETS,
): SculptorError | undefined {
  const { status, fault } = answer;
  if (fault) {
    const declared = step.on.get('fault');
    if (declared !== undefined) return new SculptorError('tool.error', renderMessage(declared, inputs));
    const hint = `${fault.code}: ${masked(fault.reason, secrets)}`;
    return fault.party === 'caller'
      ? new SculptorError(
          'input.invalid',
          `Backend '${step.backend.name}' refused the request built from the call's values as invalid (step '${step.id}'); check the values and try again.`,
          { hint },
        )
      : new SculptorError(
          'upstream.error',
          `Backend '${step.backend.name}' failed to answer step '${step.id}' (a SOAP fault).`,
          { hint },
        );
  }
  if (status >= 200 && status < 300) return undefined;
  const declared = step.on.get(String(status)) ?? step.on.get(`${Math.floor(status / 100)}xx`);
  if (declared !== undefined) return new SculptorError('tool.error', renderMessage(declared, inputs));
  const who = `Backend '${step.backend.name}'`;
  // The backend's Retry-After reaches the caller as its own.
  const later = answer.retryAfter !== undefined ? { retryAfter: answer.retryAfter } : {};
  if (status === 429)
    return new SculptorError('upstream.rate_limited', `${who} is rate limiting; try again later.`, later);
  if (status === 503)
    return new SculptorError('upstream.unavailable', `${who} is unavailable (HTTP 503).`, later);
  if (status === 504) return new SculptorError('upstream.timeout', `${who} timed out (HTTP 504).`);
  return new SculptorError('upstream.error', `${who} answered HTTP ${status} to step '${step.id}'.`);
}

/** A backend's text with the secrets the invocation holds replaced, for a debug view. */
function masked(text: string, secrets: EchoWatch): string {
  let out = text;
  for (const form of secrets.keys()) if (out.includes(form)) out = out.split(form).join('[REDACTED]');
  return out;
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
    // The signal lets an isolated evaluator (RELIABILITY G6) be killed at the deadline;
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
