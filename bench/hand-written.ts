/**
 * What bench/sculpts/bench_forecast.v1.sculpt.yaml does, written by hand the
 * way a careful engineer would: a plain Hono handler that validates the A2T
 * invocation body, calls the backend through a pooled undici client with
 * timeouts, picks the two fields and answers A2T output parameters. No
 * generic machinery: one route, one tool, everything known in advance.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { pino } from 'pino';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { Pool } from 'undici';
import { failStart, serveUntilStopped } from './child.ts';
import { HAND_WRITTEN_PATH } from './invocations.ts';

const OFFICES = new Set(['BOX', 'LWX', 'OKX', 'PHI']);
const MAX_BODY_BYTES = 64 * 1024;

interface Forecast {
  properties?: { periods?: Array<{ temperature?: unknown; shortForecast?: unknown }> };
}

type Problem = { status: 400 | 413 | 415 | 502 | 504; title: string; detail: string };

function problem(c: Context, p: Problem): Response {
  return c.body(JSON.stringify({ type: 'about:blank', ...p }), p.status, {
    'content-type': 'application/problem+json',
  });
}

/** The grid point asked for, or the list of what is wrong with the call. */
function readInputs(body: unknown): { office: string; x: number; y: number } | string[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return ['body must be an object'];
  const { name, input_parameters: given, ...rest } = body as Record<string, unknown>;
  const errors = Object.keys(rest).map((k) => `${k} is not part of an A2T invocation`);
  if (name !== 'bench_forecast') errors.push('name must be "bench_forecast"');
  if (!Array.isArray(given)) return [...errors, 'input_parameters must be an array'];
  const values = new Map<string, unknown>();
  for (const item of given as unknown[]) {
    const p = item as { name?: unknown; value?: unknown } | null;
    if (typeof p !== 'object' || p === null || typeof p.name !== 'string') {
      errors.push('each input parameter must be {name, value}');
    } else if (values.has(p.name)) errors.push(`${p.name} is given twice`);
    else values.set(p.name, p.value);
  }
  for (const key of values.keys()) {
    if (key !== 'office' && key !== 'x' && key !== 'y') errors.push(`${key} is not an input`);
  }
  const office = values.get('office');
  if (typeof office !== 'string' || !OFFICES.has(office)) errors.push('office must be BOX, LWX, OKX or PHI');
  const grid = (key: 'x' | 'y'): number => {
    const v = values.get(key);
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0 || v > 500) {
      errors.push(`${key} must be an integer from 0 to 500`);
    }
    return v as number;
  };
  const x = grid('x');
  const y = grid('y');
  return errors.length > 0 ? errors : { office: office as string, x, y };
}

/**
 * The production telemetry set-up, done by hand: the process runs under the
 * same OpenTelemetry SDK start-up as the gateway (`--import
 * src/telemetry/register.ts`: OTLP traces, undici client spans), and the
 * handler adds what a careful engineer adds: a SERVER span per request,
 * Prometheus metrics (a request counter and latency histogram, in-flight
 * gauge, default process metrics) served at /metrics, and one JSON log line
 * per request, with the trace ids, on stdout.
 */
function withTelemetry(app: Hono, route: string, handler: (c: Context) => Promise<Response>): void {
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
  options: { telemetry?: boolean; honoBodyLimit?: boolean } = {},
): { app: Hono; close: () => Promise<void> } {
  const pool = new Pool(backendUrl, {
    connections: 64,
    connectTimeout: 2_000,
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  const app = new Hono();
  // Hono's bodyLimit, as its documentation advises. It asks `c.req.raw.body`, which makes
  // @hono/node-server build a web Request and stream; without it (BENCH_HAND_BODY_LIMIT=none,
  // for comparison only) `c.req.json()` reads straight from the socket, with no limit at all.
  if (options.honoBodyLimit !== false) {
    app.post(
      HAND_WRITTEN_PATH,
      bodyLimit({
        maxSize: MAX_BODY_BYTES,
        onError: (c) =>
          problem(c, { status: 413, title: 'Payload Too Large', detail: 'The body is too large.' }),
      }),
    );
  }
  const forecast = async (c: Context): Promise<Response> => {
    if (!/^application\/json\b/i.test(c.req.header('content-type') ?? '')) {
      return problem(c, { status: 415, title: 'Unsupported Media Type', detail: 'Send application/json.' });
    }
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return problem(c, { status: 400, title: 'Bad Request', detail: 'The body is not JSON.' });
    }
    const inputs = readInputs(body);
    if (Array.isArray(inputs)) {
      return problem(c, { status: 400, title: 'Invalid tool call', detail: inputs.join('; ') });
    }

    let answer: Forecast;
    try {
      const res = await pool.request({
        method: 'GET',
        path: `/gridpoints/${inputs.office}/${inputs.x},${inputs.y}/forecast`,
        headers: { accept: 'application/geo+json' },
        signal: c.req.raw.signal,
      });
      if (res.statusCode !== 200) {
        await res.body.dump();
        return problem(c, {
          status: 502,
          title: 'Bad Gateway',
          detail: `Backend answered ${res.statusCode}.`,
        });
      }
      answer = (await res.body.json()) as Forecast;
    } catch (err) {
      const timeout = (err as { code?: string }).code?.includes('TIMEOUT') ?? false;
      return timeout
        ? problem(c, { status: 504, title: 'Gateway Timeout', detail: 'The backend did not answer in time.' })
        : problem(c, { status: 502, title: 'Bad Gateway', detail: 'The backend could not be reached.' });
    }

    const period = answer.properties?.periods?.[0];
    if (typeof period?.temperature !== 'number' || typeof period.shortForecast !== 'string') {
      return problem(c, { status: 502, title: 'Bad Gateway', detail: 'The backend answered no forecast.' });
    }
    c.header('cache-control', 'no-store');
    return c.json({
      output_parameters: [
        { name: 'temperature', value: period.temperature },
        { name: 'short_forecast', value: period.shortForecast },
      ],
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
    honoBodyLimit: process.env.BENCH_HAND_BODY_LIMIT !== 'none',
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
