/**
 * The bench backend: a small, fast node:http server answering the three
 * operations of bench/sculpts/openapi/bench-backend.openapi.yaml with recorded
 * bodies (bench/fixtures), held in memory as bytes. It does as little as a
 * server can, so what is measured behind it is the caller.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { failStart, serveUntilStopped } from './child.ts';
import { SLOW_MS, SLOW_PREFIX } from './invocations.ts';

interface Answer {
  body: Buffer;
  headers: Record<string, string>;
}

function answer(fixture: string, contentType: string): Answer {
  const body = readFileSync(new URL(`fixtures/${fixture}`, import.meta.url));
  return {
    body,
    headers: {
      'content-type': contentType,
      'content-length': String(body.length),
      'cache-control': 'public, max-age=900',
    },
  };
}

/**
 * With BENCH_FORECAST_REPEAT=n the forecast's periods are repeated n times (the first period
 * unchanged, so every tool still answers 22 °F, "Sunny"): the same call with an answer n times
 * the size, for the bench's cost-per-byte rows.
 */
function forecast(repeat: number, contentType: string): Answer {
  const recorded = answer('nws-forecast-okx.json', contentType);
  if (repeat <= 1) return recorded;
  const document = JSON.parse(recorded.body.toString('utf8')) as { properties: { periods: unknown[] } };
  const periods = document.properties.periods;
  document.properties.periods = Array.from({ length: repeat }, () => periods).flat();
  const body = Buffer.from(JSON.stringify(document, null, 4));
  return { body, headers: { ...recorded.headers, 'content-length': String(body.length) } };
}

/**
 * BENCH_FORECAST_TYPE replaces the recorded `application/geo+json`: openapi-mcp-generator's server
 * formats only `application/json` answers and hands an agent "[object Object]" for any other
 * JSON type, so it is measured doing the work its users need from it.
 */
const FORECAST = forecast(
  Number(process.env.BENCH_FORECAST_REPEAT ?? 1),
  process.env.BENCH_FORECAST_TYPE ?? 'application/geo+json',
);
const POINT = answer('nws-point-nyc.json', 'application/geo+json');
const SEARCH = answer('open-meteo-search-new-york.json', 'application/json; charset=utf-8');
const NOT_FOUND = {
  body: Buffer.from('{"title":"Not Found","status":404}'),
  headers: { 'content-type': 'application/problem+json', 'content-length': '34' },
};

function route(url: string): Answer {
  // Generated clients add the description's query defaults (`?units=us`): the path decides.
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  if (path.startsWith('/gridpoints/') && path.endsWith('/forecast')) return FORECAST;
  if (url.startsWith('/points/')) return POINT;
  if (url.startsWith('/v1/search?')) return SEARCH;
  return NOT_FOUND;
}

function reply(res: ServerResponse, url: string): void {
  const found = route(url);
  res.writeHead(found === NOT_FOUND ? 404 : 200, found.headers);
  res.end(found.body);
}

/** Under SLOW_PREFIX the same answers, SLOW_MS late (see invocations.ts). */
export function handle(req: IncomingMessage, res: ServerResponse): void {
  const url = req.url ?? '/';
  if (url.startsWith(`${SLOW_PREFIX}/`)) setTimeout(reply, SLOW_MS, res, url.slice(SLOW_PREFIX.length));
  else reply(res, url);
}

/**
 * A loopback OTLP/HTTP sink for the telemetry scenarios: takes every export
 * (traces, metrics, logs; protobuf or JSON), counts it and answers 200 with
 * an empty protobuf message, as a collector does when it accepts everything.
 */
let exports = 0;
let exportedBytes = 0;
function sink(req: IncomingMessage, res: ServerResponse): void {
  req.on('data', (chunk: Buffer) => {
    exportedBytes += chunk.length;
  });
  req.on('end', () => {
    exports++;
    res.writeHead(200, { 'content-type': 'application/x-protobuf', 'content-length': '0' });
    res.end();
  });
}

async function listen(handler: typeof handle): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer({ keepAliveTimeout: 60_000 }, handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function main(): Promise<void> {
  const backend = await listen(handle);
  const otlp = await listen(sink);
  process.on('message', (message: unknown) => {
    if ((message as { type?: string }).type === 'otlp-stats') {
      process.send?.({ type: 'otlp-stats', exports, bytes: exportedBytes });
    }
  });
  serveUntilStopped(
    { url: backend.url, otlpUrl: otlp.url, forecastBytes: FORECAST.body.length },
    async () => {
      await Promise.all([backend.close(), otlp.close()]);
    },
  );
}

if (import.meta.main) main().catch(failStart);
