/**
 * The second A2T comparator: what a good engineer writes by hand to give bench_forecast the same
 * guarantees the gateway gives every call, with the usual libraries rather than the leanest code
 * (hand-written.ts is that). One Hono route on @hono/node-server:
 *
 * - the invocation: JSON content type, a declared length over 64 KiB refused before a byte is read
 *   and the streamed bytes counted, then the A2T body and the tool's inputs validated by ajv
 *   schemas compiled once;
 * - the backend call through an undici `Pool` (connect/headers/body timeouts, a bounded answer)
 *   under cockatiel policies, outermost first: a 10 s deadline on the whole call, one retry with
 *   exponential backoff on a connect error or a 503, a circuit breaker (5 consecutive failures
 *   open it for 30 s) and a bulkhead of 32 calls in flight — the gateway's defaults for an origin;
 * - prom-client metrics: requests by status, latency, backend calls by outcome, calls in flight,
 *   the process's default metrics, served at /metrics;
 * - the answer: the two fields picked, A2T `output_parameters`, problem details for every failure.
 */
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type HttpBindings, serve } from '@hono/node-server';
import { Ajv } from 'ajv';
import {
  BrokenCircuitError,
  BulkheadRejectedError,
  bulkhead,
  circuitBreaker,
  ConsecutiveBreaker,
  ExponentialBackoff,
  handleWhen,
  retry,
  TaskCancelledError,
  TimeoutStrategy,
  timeout,
  wrap,
} from 'cockatiel';
import { Hono } from 'hono';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { Pool } from 'undici';
import { failStart, serveUntilStopped } from './child.ts';
import { HAND_WRITTEN_PATH } from './invocations.ts';

const MAX_BODY_BYTES = 64 * 1024;
const MAX_ANSWER_BYTES = 10 * 1024 * 1024;
const DEADLINE_MS = 10_000;
const JSON_TYPE = /^application\/json\s*(;\s*charset="?utf-8"?\s*)?$/i;

const ajv = new Ajv({ allErrors: true });
const validateInvocation = ajv.compile<{
  name: string;
  input_parameters: Array<{ name: string; value: unknown }>;
}>({
  type: 'object',
  required: ['name', 'input_parameters'],
  additionalProperties: false,
  properties: {
    name: { const: 'bench_forecast' },
    input_parameters: {
      type: 'array',
      maxItems: 3,
      items: {
        type: 'object',
        required: ['name', 'value'],
        additionalProperties: false,
        properties: { name: { type: 'string' }, value: {} },
      },
    },
  },
});
const validateInputs = ajv.compile<{ office: string; x: number; y: number }>({
  type: 'object',
  required: ['office', 'x', 'y'],
  additionalProperties: false,
  properties: {
    office: { enum: ['BOX', 'LWX', 'OKX', 'PHI'] },
    x: { type: 'integer', minimum: 0, maximum: 500 },
    y: { type: 'integer', minimum: 0, maximum: 500 },
  },
});

/** A failure worth one more try: the backend's 503, or a connection that could not be made. */
class Retryable extends Error {}
const CONNECT_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_SOCKET']);
const retryable = (err: unknown) =>
  err instanceof Retryable || CONNECT_ERRORS.has((err as { code?: string } | null)?.code ?? '');

class TooLarge extends Error {}

function readBody(incoming: IncomingMessage): Promise<string> {
  const declared = incoming.headers['content-length'];
  if (declared !== undefined && Number(declared) > MAX_BODY_BYTES) return Promise.reject(new TooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    incoming.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        incoming.pause();
        reject(new TooLarge());
      } else chunks.push(chunk);
    });
    incoming.once('end', () => resolve(Buffer.concat(chunks, size).toString('utf8')));
    incoming.once('error', reject);
  });
}

interface Forecast {
  properties?: { periods?: Array<{ temperature?: unknown; shortForecast?: unknown }> };
}

export function createDutyEqualApp(backendUrl: string): {
  app: Hono<{ Bindings: HttpBindings }>;
  close: () => Promise<void>;
} {
  const pool = new Pool(backendUrl, {
    connections: 64,
    connectTimeout: 2_000,
    headersTimeout: DEADLINE_MS,
    bodyTimeout: DEADLINE_MS,
    maxResponseSize: MAX_ANSWER_BYTES,
  });
  const policy = wrap(
    timeout(DEADLINE_MS, TimeoutStrategy.Aggressive),
    retry(handleWhen(retryable), {
      maxAttempts: 1,
      backoff: new ExponentialBackoff({ initialDelay: 100, maxDelay: 1_000 }),
    }),
    circuitBreaker(
      handleWhen((err) => !(err instanceof BulkheadRejectedError)),
      {
        halfOpenAfter: 30_000,
        breaker: new ConsecutiveBreaker(5),
      },
    ),
    bulkhead(32),
  );

  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'forecast_requests_total',
    help: 'Invocations by status.',
    labelNames: ['status'] as const,
    registers: [registry],
  });
  const seconds = new Histogram({
    name: 'forecast_request_duration_seconds',
    help: 'Invocation latency.',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const backendCalls = new Counter({
    name: 'forecast_backend_calls_total',
    help: 'Backend calls by outcome.',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const inFlight = new Gauge({
    name: 'forecast_requests_in_flight',
    help: 'Invocations in flight.',
    registers: [registry],
  });

  const problem = (status: number, title: string, detail: string) =>
    new Response(JSON.stringify({ type: 'about:blank', status, title, detail }), {
      status,
      headers: { 'content-type': 'application/problem+json', 'cache-control': 'no-store' },
    });

  const invoke = async (incoming: IncomingMessage): Promise<Response> => {
    if (!JSON_TYPE.test((incoming.headers['content-type'] ?? '').trim())) {
      return problem(415, 'Unsupported Media Type', 'Send application/json.');
    }
    let body: unknown;
    try {
      body = JSON.parse(await readBody(incoming));
    } catch (err) {
      return err instanceof TooLarge
        ? problem(413, 'Payload Too Large', `The body is over ${MAX_BODY_BYTES} bytes.`)
        : problem(400, 'Bad Request', 'The body is not JSON.');
    }
    if (!validateInvocation(body))
      return problem(400, 'Invalid tool call', ajv.errorsText(validateInvocation.errors));
    const args = Object.fromEntries(body.input_parameters.map((p) => [p.name, p.value]));
    if (!validateInputs(args))
      return problem(400, 'Invalid tool call', ajv.errorsText(validateInputs.errors));

    let answer: Forecast;
    try {
      answer = await policy.execute(async ({ signal }) => {
        const res = await pool.request({
          method: 'GET',
          path: `/gridpoints/${args.office}/${args.x},${args.y}/forecast`,
          headers: { accept: 'application/geo+json' },
          signal,
        });
        if (res.statusCode !== 200) {
          await res.body.dump();
          backendCalls.inc({ outcome: String(res.statusCode) });
          if (res.statusCode === 503) throw new Retryable('The backend answered 503.');
          throw new Error(`The backend answered ${res.statusCode}.`);
        }
        const json = (await res.body.json()) as Forecast;
        backendCalls.inc({ outcome: '200' });
        return json;
      });
    } catch (err) {
      if (err instanceof TaskCancelledError)
        return problem(504, 'Gateway Timeout', 'The backend did not answer in time.');
      if (err instanceof BrokenCircuitError || err instanceof BulkheadRejectedError) {
        return problem(503, 'Service Unavailable', 'The backend is not taking calls now; try again later.');
      }
      backendCalls.inc({ outcome: 'error' });
      return problem(502, 'Bad Gateway', err instanceof Error ? err.message : 'The backend failed.');
    }
    const period = answer.properties?.periods?.[0];
    if (typeof period?.temperature !== 'number' || typeof period.shortForecast !== 'string') {
      return problem(502, 'Bad Gateway', 'The backend answered no forecast.');
    }
    return new Response(
      JSON.stringify({
        output_parameters: [
          { name: 'temperature', value: period.temperature },
          { name: 'short_forecast', value: period.shortForecast },
        ],
      }),
      { status: 200, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } },
    );
  };

  const app = new Hono<{ Bindings: HttpBindings }>();
  app.get('/metrics', async (c) =>
    c.body(await registry.metrics(), 200, { 'content-type': registry.contentType }),
  );
  app.post(HAND_WRITTEN_PATH, async (c) => {
    const stop = seconds.startTimer();
    inFlight.inc();
    let status = 500;
    try {
      const res = await invoke(c.env.incoming);
      status = res.status;
      return res;
    } finally {
      inFlight.dec();
      stop();
      requests.inc({ status: String(status) });
    }
  });
  return { app, close: () => pool.close() };
}

async function main(): Promise<void> {
  const backendUrl = process.env.BENCH_BACKEND_URL;
  if (!backendUrl) throw new Error('BENCH_BACKEND_URL is not set');
  const { app, close } = createDutyEqualApp(backendUrl);
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
