/**
 * Spans for invocations and steps, written against @opentelemetry/api only:
 * without an SDK (tracing off) every call here is a cheap no-op.
 *
 * What may go into an attribute (RELIABILITY I3–I5): names, ids, templates,
 * counts, status codes and error codes. Never a value the LLM supplied, a
 * body, a header, a credential or an error message (messages can quote
 * inputs, e.g. a declared tool error "No place called {{city}}").
 */
import {
  type Context,
  context,
  createContextKey,
  propagation,
  ProxyTracerProvider,
  type Span,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { telemetryHandle } from './sdk-handle.ts';

export const TRACER_NAME = 'sculptor';

export function tracer() {
  return trace.getTracer(TRACER_NAME);
}

/** What a ProxyTracerProvider delegates to while no SDK has registered a provider. */
const NO_PROVIDER = new ProxyTracerProvider().getDelegate();

/**
 * Whether an SDK has registered a tracer provider (register.ts, or a test's
 * NodeSDK). Without one every span is a no-op that no reader can tell from
 * no span at all: the context it makes active holds no valid span context,
 * so log lines get no trace ids either way, and the backend call's URL
 * template (BACKEND_CALL) is only read by the SDK's undici instrumentation.
 * The span wrappers below then call straight through: a request spared three
 * no-op spans, their contexts, closures and promises. Asked on every call, so
 * a provider registered later (tests) is seen at once.
 */
export function tracingActive(): boolean {
  const provider = trace.getTracerProvider();
  // Another copy of the API registered globally: assume it traces.
  return !(provider instanceof ProxyTracerProvider) || provider.getDelegate() !== NO_PROVIDER;
}

/** Attribute names: OpenTelemetry semantic conventions where one exists, `sculptor.*` otherwise. */
export const ATTR = {
  genAiOperationName: 'gen_ai.operation.name',
  genAiToolName: 'gen_ai.tool.name',
  genAiToolCallId: 'gen_ai.tool.call.id',
  genAiToolType: 'gen_ai.tool.type',
  errorType: 'error.type',
  httpStatus: 'http.response.status_code',
  toolId: 'sculptor.tool.id',
  toolVersion: 'sculptor.tool.version',
  outcome: 'sculptor.outcome',
  stepId: 'sculptor.step.id',
  stepOutcome: 'sculptor.step.outcome',
  backend: 'sculptor.backend',
  operation: 'sculptor.operation',
  operationId: 'sculptor.operation.id',
  cache: 'sculptor.cache',
  stepCount: 'sculptor.steps',
  cacheHits: 'sculptor.cache.hits',
  urlTemplate: 'url.template',
} as const;

/** What the HTTP client span of a backend call may say about the URL. */
export interface BackendCall {
  backend: string;
  /** Redacted base URL and the operation's path template, e.g. https://api.weather.gov/points/{point}. */
  urlTemplate: string;
}

const BACKEND_CALL = createContextKey('sculptor.backend_call');

/** The backend call the active context is making, set by traceStep for the HTTP client instrumentation. */
export function backendCallOf(ctx: Context = context.active()): BackendCall | undefined {
  return ctx.getValue(BACKEND_CALL) as BackendCall | undefined;
}

/** `?city=Paris&key=s3cr3t` → `?city=REDACTED&key=REDACTED`: names kept, every value hidden. */
export function redactQueryValues(search: string): string {
  if (search === '' || search === '?') return '';
  const pairs = search
    .replace(/^\?/, '')
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      return eq < 0 ? pair : `${pair.slice(0, eq)}=REDACTED`;
    });
  return `?${pairs.join('&')}`;
}

export interface StepDescription {
  id: string;
  backend: string;
  /** How the sculpt names the operation (an operationId, or `GET /path/{p}`). */
  operation: string;
  /** The OpenAPI operationId, when the operation has one. */
  operationId?: string;
  urlTemplate: string;
}

/** Read when the step ends: the engine's StepReport satisfies it. */
export interface StepResult {
  outcome: string;
  cache: string;
  status?: number;
  errorCode?: string;
}

function stepAttributes(step: StepDescription): Record<string, string> {
  return {
    [ATTR.stepId]: step.id,
    [ATTR.backend]: step.backend,
    [ATTR.operation]: step.operation,
    ...(step.operationId ? { [ATTR.operationId]: step.operationId } : {}),
    [ATTR.urlTemplate]: step.urlTemplate,
  };
}

/**
 * Runs one step inside its own span, a child of the invocation span, and
 * makes the backend call's URL template available to the HTTP client span.
 *
 * `fold` (a tool of one step): no span of its own, which would say nothing its
 * parent does not; its attributes (step id, backend, operation, URL template, outcome, cache,
 * status, error) go on the active span, the invocation's `execute_tool`.
 */
export function traceStep<T>(
  step: StepDescription,
  result: StepResult,
  run: () => Promise<T>,
  fold = false,
): Promise<T> {
  if (!tracingActive()) return run();
  const call: BackendCall = { backend: step.backend, urlTemplate: step.urlTemplate };
  const ctx = context.active().setValue(BACKEND_CALL, call);
  if (fold) {
    const parent = trace.getSpan(ctx);
    parent?.setAttributes(stepAttributes(step));
    return context.with(ctx, async () => {
      try {
        return await run();
      } finally {
        if (parent) endStep(parent, result, false);
      }
    });
  }
  return tracer().startActiveSpan(
    `step ${step.id}`,
    { attributes: stepAttributes(step) },
    ctx,
    async (span) => {
      try {
        return await run();
      } finally {
        endStep(span, result, true);
      }
    },
  );
}

function endStep(span: Span, result: StepResult, end: boolean): void {
  span.setAttribute(ATTR.stepOutcome, result.outcome);
  span.setAttribute(ATTR.cache, result.cache);
  if (result.status !== undefined) span.setAttribute(ATTR.httpStatus, result.status);
  if (result.errorCode !== undefined) {
    span.setAttribute(ATTR.errorType, result.errorCode);
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  if (end) span.end();
}

/**
 * The backend request's headers with the W3C trace context of the active span (the step's, or
 * the invocation's for a folded step) added, when the gateway propagates it itself: tracing is
 * on and the HTTP client spans are off (SCULPTOR_TRACE_BACKEND_CALLS unset), so that a backend
 * still joins the caller's trace. With client spans on, undici's instrumentation injects the
 * client span's context instead; without tracing nothing is added.
 */
export function withTraceContext(headers: Record<string, string>): Record<string, string> {
  if (!tracingActive()) return headers;
  const handle = telemetryHandle();
  if (handle?.tracing !== true || handle.backendCallSpans === true) return headers;
  const carrier = { ...headers };
  propagation.inject(context.active(), carrier);
  return carrier;
}

/** trace_id and span_id of the active span, for log lines; empty when there is none. */
export function activeTraceIds(): { trace_id?: string; span_id?: string } {
  const span = trace.getSpan(context.active());
  if (!span) return {};
  const spanContext = span.spanContext();
  if (!trace.isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}

/**
 * Attributes for the HTTP client span of a backend call, replacing what the
 * undici instrumentation would record from the real URL: the path (which
 * holds values the LLM chose) becomes the operation's template, and every
 * query value (LLM values, credentials sent `in: query`) becomes REDACTED.
 * The User-Agent is not recorded (no header is, RELIABILITY I4).
 */
export function backendClientAttributes(request: { origin: string; path: string }): Record<string, unknown> {
  let query = '';
  let origin: string;
  try {
    const url = new URL(request.path, request.origin);
    query = redactQueryValues(url.search);
    origin = url.origin;
  } catch {
    origin = '[unparseable URL]';
  }
  const call = backendCallOf();
  return {
    'url.full': `${call?.urlTemplate ?? `${origin}/REDACTED`}${query}`,
    'url.path': undefined,
    'url.query': undefined,
    'user_agent.original': undefined,
    ...(call ? { [ATTR.urlTemplate]: call.urlTemplate, [ATTR.backend]: call.backend } : {}),
  };
}
