import type { CompiledStep } from '../compile/compile-tool.ts';
import { redactUrl } from '../http/redact-url.ts';

/** What a step's span may say about it: names and templates, no values. */
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
export interface StepOutcome {
  outcome: string;
  cache: string;
  status?: number;
  errorCode?: string;
}

/**
 * How the engine's steps are traced: a hook the core builder installs (telemetry's, when an
 * OpenTelemetry SDK runs), as it installs `debug`. The engine knows only this shape, so
 * telemetry stays a leaf that imports nothing of the pipeline.
 */
export interface StepTracer {
  /**
   * Runs one step inside its span; `fold` (a tool of one step): on the invocation's span
   * instead of a span of its own.
   */
  traceStep<T>(
    step: StepDescription,
    outcome: StepOutcome,
    run: () => Promise<T>,
    fold?: boolean,
  ): Promise<T>;
  /** The backend request's headers with the trace context added, when the tracer propagates it. */
  withTraceContext(headers: Record<string, string>): Record<string, string>;
}

/** No tracing: steps run as they are, headers go as built. */
export const NO_TRACING: StepTracer = {
  traceStep: (_step, _outcome, run) => run(),
  withTraceContext: (headers) => headers,
};

const described = new WeakMap<CompiledStep, StepDescription>();

/** A step's description, computed once per step. */
export function describeStep(step: CompiledStep): StepDescription {
  let description = described.get(step);
  if (!description) {
    description = {
      id: step.id,
      backend: step.backend.name,
      operation: step.operationRef,
      ...(step.operation.operationId ? { operationId: step.operation.operationId } : {}),
      urlTemplate: backendUrlTemplate(step.backend.baseUrl, step.operation.path),
    };
    described.set(step, description);
  }
  return description;
}

/** `https://user:pw@h/base/` + `/pets/{id}` → `https://REDACTED:REDACTED@h/base/pets/{id}`, no query or fragment. */
export function backendUrlTemplate(baseUrl: string, pathTemplate: string): string {
  const redacted = redactUrl(baseUrl);
  if (redacted.startsWith('[')) return redacted;
  const url = new URL(redacted);
  url.search = '';
  url.hash = '';
  return `${url.href.replace(/\/+$/, '')}${pathTemplate}`;
}
