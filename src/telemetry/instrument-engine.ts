/**
 * Wraps the engine so that each invocation gets its span (GenAI semantic
 * conventions for tool execution), its metrics and its one log line. The
 * engine itself only opens the step spans (traceStep), as children of this one.
 */
import { randomUUID } from 'node:crypto';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { Logger } from 'pino';
import type { CompiledTool } from '../compile/compile-tool.ts';
import type { Engine, InvocationReport } from '../engine/invoke-tool.ts';
import { toSculptorError } from '../errors/sculptor-error.ts';
import type { GatewayMetrics } from './metrics.ts';
import { ATTR, tracer } from './tracing.ts';

export interface InstrumentOptions {
  metrics?: GatewayMetrics;
  logger?: Logger;
}

export function instrumentEngine(engine: Engine, { metrics, logger }: InstrumentOptions): Engine {
  return {
    invoke(tool, body, options = {}) {
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
        async (span) => {
          const started = performance.now();
          let report: InvocationReport | undefined;
          let outcome = 'ok';
          metrics?.inFlight.inc();
          try {
            return await engine.invoke(tool, body, {
              ...options,
              onReport: (r) => {
                report = r;
                options.onReport?.(r);
              },
            });
          } catch (err) {
            outcome = toSculptorError(err).code;
            throw err;
          } finally {
            metrics?.inFlight.dec();
            const final = finalReport(tool, report, outcome, performance.now() - started);
            metrics?.observe(final);
            const cacheHits = final.steps.filter((s) => s.cache === 'hit' || s.cache === 'shared').length;
            span.setAttribute(ATTR.outcome, outcome);
            span.setAttribute(ATTR.stepCount, final.steps.length);
            span.setAttribute(ATTR.cacheHits, cacheHits);
            if (outcome !== 'ok') {
              span.setAttribute(ATTR.errorType, outcome);
              span.setStatus({ code: SpanStatusCode.ERROR });
            }
            logger?.info(
              {
                event: 'invocation',
                tool: name,
                version,
                tool_id: toolId,
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
            span.end();
          }
        },
      );
    },
  };
}

/**
 * The engine's report, with the outcome the caller actually got: a wrapper
 * around the engine (drain) may turn its error into another code.
 */
function finalReport(
  tool: CompiledTool,
  report: InvocationReport | undefined,
  outcome: string,
  durationMs: number,
): InvocationReport {
  return {
    tool: tool.signature.name,
    version: tool.signature.version,
    steps: report?.steps ?? [],
    durationMs: report?.durationMs ?? durationMs,
    outcome,
  };
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
