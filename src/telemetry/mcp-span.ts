/**
 * The span of one MCP `tools/call` (OpenTelemetry semantic conventions for MCP): named
 * `tools/call {tool}`, with `mcp.method.name`, `gen_ai.tool.name`, `gen_ai.operation.name` and
 * `jsonrpc.request.id`; the engine's `execute_tool` span and the step spans nest under it. Its
 * parent is the trace context the client put in the request's `_meta` (`traceparent`,
 * `tracestate`: MCP's way to carry it on every transport, stdio included), else the active one
 * (the HTTP server span, continuing the request's `traceparent` header). Never arguments.
 */
import { context, propagation, SpanKind, SpanStatusCode, type TextMapGetter } from '@opentelemetry/api';
import { ATTR, tracer, tracingActive } from './tracing.ts';

export interface McpCallSpan {
  name: string;
  requestId: string | number;
  meta: Readonly<Record<string, unknown>> | undefined;
}

const metaGetter: TextMapGetter<Readonly<Record<string, unknown>>> = {
  get: (carrier, key) => (typeof carrier[key] === 'string' ? (carrier[key] as string) : undefined),
  keys: (carrier) => Object.keys(carrier),
};

/**
 * `run` answers the call and says, through `failed`, when its answer is an error the model
 * reads (MCP's `isError`), by its stable code: the face decides what is an error, the span
 * records it.
 */
export function traceMcpCall<T>(
  call: McpCallSpan,
  run: (failed: (code: string) => void) => Promise<T>,
): Promise<T> {
  if (!tracingActive()) return run(IGNORED);
  const parent =
    typeof call.meta?.traceparent === 'string'
      ? propagation.extract(context.active(), call.meta, metaGetter)
      : context.active();
  return tracer().startActiveSpan(
    `tools/call ${call.name}`,
    {
      kind: SpanKind.SERVER,
      attributes: {
        'mcp.method.name': 'tools/call',
        [ATTR.genAiOperationName]: 'execute_tool',
        [ATTR.genAiToolName]: call.name,
        'jsonrpc.request.id': String(call.requestId),
      },
    },
    parent,
    async (span) => {
      try {
        return await run((code) => {
          span.setAttribute(ATTR.errorType, code);
          span.setStatus({ code: SpanStatusCode.ERROR });
        });
      } catch (err) {
        span.setAttribute(ATTR.errorType, err instanceof Error ? err.name : 'unknown');
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw err;
      } finally {
        span.end();
      }
    },
  );
}

const IGNORED = (): void => {};
