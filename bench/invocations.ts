/** The requests every bench scenario and the profiler send, in one place. */
import { cpSync } from 'node:fs';
import path from 'node:path';
import { toolIdFor } from '../src/compile/tool-signature.ts';

/** The hand-written handler's one route (Sculptor's is /tools/{toolId}:invoke). */
export const HAND_WRITTEN_PATH = '/tools/bench_forecast:invoke';

/** The bench sculpts folder (bench/sculpts). */
export const BENCH_SCULPTS = new URL('sculpts/', import.meta.url).pathname;

/**
 * A sculpts folder at `dir` holding bench_forecast alone, with its backend: the one tool the
 * comparators implement, as an agent would be given it for this job.
 */
export function forecastOnlySculpts(dir: string): string {
  for (const part of ['backends.yaml', 'openapi', 'bench_forecast.v1.sculpt.yaml']) {
    cpSync(path.join(BENCH_SCULPTS, part), path.join(dir, part), { recursive: true });
  }
  return dir;
}

/** The A2T invocation of bench_forecast (and of the hand-written handler): New York's grid cell. */
export const FORECAST_BODY = JSON.stringify({
  name: 'bench_forecast',
  input_parameters: [
    { name: 'office', value: 'OKX' },
    { name: 'x', value: 33 },
    { name: 'y', value: 35 },
  ],
});

/** The A2T invocation of a chain tool for New York. */
export const chainBody = (tool: string): string =>
  JSON.stringify({ name: tool, input_parameters: [{ name: 'place', value: 'New York' }] });

export const JSON_POST = { method: 'POST' as const, headers: { 'content-type': 'application/json' } };

/**
 * The bench backend answers under this prefix too, SLOW_MS late, as a SaaS API across a network
 * would: the chain scenarios run against both, because what a cached step saves is mostly the wait.
 */
export const SLOW_PREFIX = '/slow';
export const SLOW_MS = 20;

/** bench_forecast's arguments as a2t-lite takes them: a plain JSON object. */
export const LITE_FORECAST_BODY = JSON.stringify({ office: 'OKX', x: 33, y: 35 });

/**
 * How each of the gateway's faces invokes bench_forecast, for the face rows of `npm run bench`
 * and `bench/single-op-ab.ts` (every face against the same hand-written handler in the
 * same run). A face that lands adds its entry here (MCP: `POST /mcp` with a JSON-RPC
 * `tools/call`), and both benches measure it.
 */
export interface FaceInvocation {
  /** Scenario key suffix and `kind` of single-op-ab (`sculptor` + `_lite`, …). */
  key: string;
  /** How the table names it. */
  label: string;
  /** The path below the gateway's URL. */
  path: string;
  headers: Record<string, string>;
  body: string;
  /** The temperature and short forecast the answer carries, in the face's shape. */
  read(body: unknown): { temperature: unknown; shortForecast: unknown };
}

export const FACE_INVOCATIONS: FaceInvocation[] = [
  {
    key: 'a2t',
    label: 'A2T POST /tools/{id}:invoke',
    path: `/tools/${toolIdFor('bench_forecast')}:invoke`,
    headers: JSON_POST.headers,
    body: FORECAST_BODY,
    read(body) {
      const outputs = (body as { output_parameters?: Array<{ name: string; value: unknown }> })
        .output_parameters;
      const get = (name: string) => outputs?.find((o) => o.name === name)?.value;
      return { temperature: get('temperature'), shortForecast: get('short_forecast') };
    },
  },
  {
    key: 'lite',
    label: 'a2t-lite POST /lite/tools/{name}',
    path: '/lite/tools/bench_forecast',
    headers: JSON_POST.headers,
    body: LITE_FORECAST_BODY,
    read(body) {
      const result = (body as { result?: { temperature?: unknown; short_forecast?: unknown } }).result;
      return { temperature: result?.temperature, shortForecast: result?.short_forecast };
    },
  },
  {
    key: 'mcp',
    label: 'MCP tools/call (2026-07-28)',
    path: '/mcp',
    // Stateless 2026-07-28: the envelope in `_meta`, the method and tool name repeated in headers.
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'bench_forecast',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'bench_forecast',
        arguments: { office: 'OKX', x: 33, y: 35 },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
    read(body) {
      const content = (
        body as { result?: { structuredContent?: { temperature?: unknown; short_forecast?: unknown } } }
      ).result?.structuredContent;
      return { temperature: content?.temperature, shortForecast: content?.short_forecast };
    },
  },
];

/** The MCP face's invocation (for bench/mcp-sdk-floor.ts, which hands it to the SDK alone). */
export const MCP_FORECAST = FACE_INVOCATIONS.find((f) => f.key === 'mcp')!;

/**
 * The same tools/call as a 2025-11-25 client sends it statelessly (no `_meta` envelope): not a row
 * of the main table (the peers measure both eras), but a face single-op-ab and the profiler take.
 */
export const MCP_2025_FORECAST: FaceInvocation = {
  ...MCP_FORECAST,
  key: 'mcp2025',
  label: 'MCP tools/call (2025-11-25, stateless)',
  headers: {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-11-25',
  },
  body: JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'bench_forecast', arguments: { office: 'OKX', x: 33, y: 35 } },
  }),
};

/** Every face invocation a single-server tool (single-op-ab, the profiler) can be asked for, by key. */
export const ALL_FACE_INVOCATIONS: FaceInvocation[] = [...FACE_INVOCATIONS, MCP_2025_FORECAST];
