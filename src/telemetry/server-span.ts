/**
 * The SERVER span of one inbound HTTP request, framework-free (the web
 * framework wiring lives in src/server). The span is named by the route
 * template (`POST /tools/{toolId}:invoke`), never by the raw path, and
 * continues the caller's W3C trace context (traceparent/tracestate).
 * Recorded: method, route, scheme, status. Not recorded: path, query, client
 * address, user agent or any other header (RELIABILITY I4, I5).
 */
import { propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, type TextMapGetter } from '@opentelemetry/api';
import { ATTR, tracer, tracingActive } from './tracing.ts';

const KNOWN_METHODS = new Set([
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
  'CONNECT',
  'TRACE',
]);

const headerGetter: TextMapGetter<Headers> = {
  get: (carrier, key) => carrier.get(key) ?? undefined,
  keys: (carrier) => [...carrier.keys()],
};

export interface InboundRequest {
  method: string;
  /** The matched route template, prefix included; undefined when no route matched. */
  route: string | undefined;
  headers: Headers;
  scheme?: string;
}

/** Runs `handle` inside the request's SERVER span; `handle` resolves to the response status. */
export function traceServerRequest(request: InboundRequest, handle: () => Promise<number>): Promise<number> {
  // No SDK: a no-op span would change nothing (see tracingActive).
  if (!tracingActive()) return handle();
  const method = KNOWN_METHODS.has(request.method.toUpperCase()) ? request.method.toUpperCase() : '_OTHER';
  const spanMethod = method === '_OTHER' ? 'HTTP' : method;
  const name = request.route ? `${spanMethod} ${request.route}` : spanMethod;
  const parent = propagation.extract(ROOT_CONTEXT, request.headers, headerGetter);
  return tracer().startActiveSpan(
    name,
    {
      kind: SpanKind.SERVER,
      attributes: {
        'http.request.method': method,
        'url.scheme': request.scheme ?? 'http',
        ...(request.route ? { 'http.route': request.route } : {}),
      },
    },
    parent,
    async (span) => {
      try {
        const status = await handle();
        span.setAttribute(ATTR.httpStatus, status);
        // Server spans: only 5xx are errors (a 4xx is the caller's mistake).
        if (status >= 500) {
          span.setAttribute(ATTR.errorType, String(status));
          span.setStatus({ code: SpanStatusCode.ERROR });
        }
        return status;
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
