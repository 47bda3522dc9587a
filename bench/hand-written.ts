/**
 * What bench/sculpts/bench_forecast.v1.sculpt.yaml does, written by hand as the leanest
 * handler a good engineer would write on the same framework as the gateway: one
 * Hono route over @hono/node-server doing the duties of forecast-duties.ts (the body read from
 * Node's request with a content-length check and a counted stream, the A2T body validated, a
 * pooled undici call with a deadline and a bounded answer, two fields picked, A2T answered).
 * No generic machinery: one route, one tool, everything known in advance. With
 * BENCH_TELEMETRY=1, the same under the same OpenTelemetry SDK set-up as the gateway.
 */
import type { AddressInfo } from 'node:net';
import { type HttpBindings, serve } from '@hono/node-server';
import { type Context, Hono } from 'hono';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { pino } from 'pino';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { failStart, serveUntilStopped } from './child.ts';
import { createPool, invokeForecast } from './forecast-duties.ts';
import { HAND_WRITTEN_PATH } from './invocations.ts';

/**
 * The production telemetry set-up, done by hand: the process runs under the
 * same OpenTelemetry SDK start-up as the gateway (`--import
 * src/telemetry/register.ts`: OTLP traces, undici client spans), and the
 * handler adds what a careful engineer adds: a SERVER span per request,
 * Prometheus metrics (a request counter and latency histogram, in-flight
 * gauge, default process metrics) served at /metrics, and one JSON log line
 * per request, with the trace ids, on stdout.
 */
function withTelemetry(
  app: Hono<{ Bindings: HttpBindings }>,
  route: string,
  handler: (c: Context<{ Bindings: HttpBindings }>) => Promise<Response>,
): void {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const labelNames = ['route', 'status'] as const;
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'Requests.',
    labelNames,
    registers: [registry],
  });
  const seconds = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Latency.',
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const inFlight = new Gauge({ name: 'http_requests_in_flight', help: 'In flight.', registers: [registry] });
  const logger = pino({ base: { service: 'hand-written' } }, pino.destination({ dest: 1, sync: true }));
  const tracer = trace.getTracer('hand-written');
  app.get('/metrics', async (c) =>
    c.body(await registry.metrics(), 200, { 'content-type': registry.contentType }),
  );
  app.post(route, (c) =>
    tracer.startActiveSpan(
      `POST ${route}`,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': 'POST', 'http.route': route } },
      async (span) => {
        const started = performance.now();
        inFlight.inc();
        let status = 500;
        try {
          const res = await handler(c);
          status = res.status;
          return res;
        } finally {
          inFlight.dec();
          const ms = performance.now() - started;
          const labels = { route, status: String(status) };
          requests.inc(labels);
          seconds.observe(labels, ms / 1000);
          span.setAttribute('http.response.status_code', status);
          if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
          const { traceId, spanId } = span.spanContext();
          logger.info({
            event: 'request',
            route,
            status,
            duration_ms: Math.round(ms * 10) / 10,
            trace_id: traceId,
            span_id: spanId,
          });
          span.end();
        }
      },
    ),
  );
}

export function createHandWrittenApp(
  backendUrl: string,
  options: { telemetry?: boolean } = {},
): { app: Hono<{ Bindings: HttpBindings }>; close: () => Promise<void> } {
  const pool = createPool(backendUrl);
  const app = new Hono<{ Bindings: HttpBindings }>();
  const forecast = async (c: Context<{ Bindings: HttpBindings }>): Promise<Response> => {
    const answer = await invokeForecast(pool, c.env.incoming);
    return c.body(answer.body, answer.status as 200, {
      'content-type': answer.type,
      'cache-control': 'no-store',
    });
  };
  if (options.telemetry) withTelemetry(app, HAND_WRITTEN_PATH, forecast);
  else app.post(HAND_WRITTEN_PATH, forecast);
  return { app, close: () => pool.close() };
}

async function main(): Promise<void> {
  const backendUrl = process.env.BENCH_BACKEND_URL;
  if (!backendUrl) throw new Error('BENCH_BACKEND_URL is not set');
  const { app, close } = createHandWrittenApp(backendUrl, {
    telemetry: process.env.BENCH_TELEMETRY === '1',
  });
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
    s.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  serveUntilStopped({ url: `http://127.0.0.1:${port}` }, async () => {
    await new Promise((resolve) => server.close(resolve));
    await close();
  });
}

if (import.meta.main) main().catch(failStart);
