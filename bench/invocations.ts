/** The requests every bench scenario and the profiler send, in one place. */

/** The hand-written handler's one route (Sculptor's is /tools/{toolId}:invoke). */
export const HAND_WRITTEN_PATH = '/tools/bench_forecast:invoke';

/** The bench sculpts folder (bench/sculpts). */
export const BENCH_SCULPTS = new URL('sculpts/', import.meta.url).pathname;

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

/**
 * The same invocation of bench_forecast as an MCP `tools/call` (protocol 2026-07-28: stateless,
 * the envelope in `_meta`, the method and tool name repeated in headers), POSTed to `/mcp`.
 */
export const MCP_FORECAST = {
  method: 'POST' as const,
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
};
