/**
 * Wraps the engine so that each invocation gets its span (GenAI semantic
 * conventions for tool execution), its metrics and its one log line. The
 * engine itself only opens the step spans (through the StepTracer hook the core installs), as
 * children of this one. It lives with the core builder: telemetry knows nothing of the engine.
 */
import { randomUUID } from 'node:crypto';
import { type Span, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { Logger } from 'pino';
import type { CompiledTool } from '../compile/compile-tool.ts';
import type {
  Engine,
  InvocationArguments,
  InvocationReport,
  InvocationResult,
  InvokeOptions,
} from '../engine/invoke-tool.ts';
import type { GatewayMetrics } from '../telemetry/metrics.ts';
import { ATTR, tracer, tracingActive } from '../telemetry/tracing.ts';

export interface InstrumentOptions {
  metrics?: GatewayMetrics;
  logger?: Logger;
}

export function instrumentEngine(engine: Engine, { metrics, logger }: InstrumentOptions): Engine {
  /**
   * Runs the invocation; its metrics, its span's outcome (when traced) and its log line are
   * recorded from the engine's report, which every invocation gives exactly once, as it ends.
   * Not an async wrapper: the engine's promise is the one returned.
   */
  const run = (
    tool: CompiledTool,
    args: InvocationArguments,
    options: InvokeOptions,
    callId: string | undefined,
    span: Span | undefined,
  ): Promise<InvocationResult> => {
    metrics?.inFlight.inc();
    return engine.invoke(tool, args, {
      ...options,
      onReport: (report) => {
        metrics?.inFlight.dec();
        record(tool, report, options.face, callId, span);
        options.onReport?.(report);
      },
    });
  };

  const record = (
    tool: CompiledTool,
    final: InvocationReport,
    face: string | undefined,
    callId: string | undefined,
    span: Span | undefined,
  ): void => {
    const { outcome } = final;
    metrics?.observe(final, face);
    let cacheHits = 0;
    for (const s of final.steps) if (s.cache === 'hit' || s.cache === 'shared') cacheHits++;
    if (span) {
      span.setAttribute(ATTR.outcome, outcome);
      span.setAttribute(ATTR.stepCount, final.steps.length);
      span.setAttribute(ATTR.cacheHits, cacheHits);
      if (outcome !== 'ok') {
        span.setAttribute(ATTR.errorType, outcome);
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
    }
    logger?.info(
      {
        event: 'invocation',
        tool: final.tool,
        version: final.version,
        tool_id: tool.signature.toolId,
        tool_call_id: callId,
        outcome,
        duration_ms: round(final.durationMs),
        cache_hits: cacheHits,
        steps: final.steps.map((s) => ({
          id: s.id,
          backend: s.backend,
          outcome: s.outcome,
          cache: s.cache,
          ...(s.status !== undefined ? { status: s.status } : {}),
          ...(s.errorCode !== undefined ? { error: s.errorCode } : {}),
          duration_ms: round(s.durationMs),
        })),
      },
      'invocation',
    );
    const suspended = final.suspended;
    if (suspended) {
      logger?.warn(
        {
          event: 'tool_suspended',
          tool: suspended.tool,
          version: suspended.version,
          file: suspended.file,
          breaches: suspended.breaches,
          suspended_ms: suspended.forMs,
        },
        `tool '${suspended.tool}' (${suspended.file}) suspended for ${suspended.forMs} ms: ${suspended.breaches} evaluations exceeded their budget`,
      );
    }
    // Why a step failed (DNS, refused, TLS, an unset variable): for the operator at LOG_LEVEL=debug.
    for (const s of final.steps) {
      if (s.errorHint === undefined) continue;
      logger?.debug(
        {
          event: 'step_failed',
          tool: final.tool,
          step: s.id,
          backend: s.backend,
          error: s.errorCode,
          why: s.errorHint,
        },
        `step ${s.id} (backend '${s.backend}'): ${s.errorCode}: ${s.errorHint}`,
      );
    }
    span?.end();
  };

  return {
    invoke(tool, args, options = {}) {
      // No SDK: no span (see tracingActive); the call id then only goes into the log line.
      if (!tracingActive()) return run(tool, args, options, logger ? randomUUID() : undefined, undefined);
      const { name, version, toolId } = tool.signature;
      const callId = randomUUID();
      return tracer().startActiveSpan(
        `execute_tool ${name}`,
        {
          kind: SpanKind.INTERNAL,
          attributes: {
            [ATTR.genAiOperationName]: 'execute_tool',
            [ATTR.genAiToolName]: name,
            [ATTR.genAiToolCallId]: callId,
            [ATTR.genAiToolType]: 'extension',
            [ATTR.toolId]: toolId,
            [ATTR.toolVersion]: version,
          },
        },
        (span) => run(tool, args, options, callId, span),
      );
    },
  };
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
