/**
 * The MCP requests the peers' part of the bench sends (peers.ts), and how it reads their answers:
 * a stateless request of either protocol era, a session for a server that keeps them, the size of
 * a tools/list, and whether a tools/call answer carries the forecast's first period — as the two
 * picked fields, or the whole forecast as structured content or text.
 */

export type Era = '2026-07-28' | '2025-11-25';

const ACCEPT = 'application/json, text/event-stream';

/** One JSON-RPC request of `era`, as a stateless client sends it (2026: the `_meta` envelope and the routing headers). */
export function mcpRequest(
  era: Era,
  method: string,
  params: Record<string, unknown>,
  extraHeaders: Record<string, string> = {},
): { headers: Record<string, string>; body: string } {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: ACCEPT,
    'mcp-protocol-version': era,
    ...extraHeaders,
  };
  if (era === '2026-07-28') {
    headers['mcp-method'] = method;
    if (typeof params.name === 'string') headers['mcp-name'] = params.name;
    params = {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': era,
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    };
  }
  return { headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) };
}

/** The JSON-RPC message of an answer, whether sent as JSON or as one SSE event. */
function jsonRpcOf(text: string): { result?: Record<string, unknown>; error?: unknown } | undefined {
  try {
    if (text.trimStart().startsWith('{')) return JSON.parse(text) as { result?: Record<string, unknown> };
    const data = text
      .split('\n')
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).trim())
      .find((l) => l.startsWith('{'));
    return data === undefined ? undefined : (JSON.parse(data) as { result?: Record<string, unknown> });
  } catch {
    return undefined;
  }
}

interface Period {
  temperature?: unknown;
  shortForecast?: unknown;
  short_forecast?: unknown;
}
/** The first forecast period in a tools/call result: the two picked fields, or the whole forecast as structured content or text. */
function firstPeriod(result: Record<string, unknown> | undefined): Period | undefined {
  if (!result) return undefined;
  const fromDocument = (doc: unknown): Period | undefined => {
    const d = doc as (Period & { properties?: { periods?: Period[] }; result?: unknown }) | undefined;
    if (d?.properties?.periods) return d.properties.periods[0];
    // FastMCP wraps a structured answer in `result`.
    if (d?.result !== undefined) return fromDocument(d.result);
    if (d && 'temperature' in d) return { temperature: d.temperature, shortForecast: d.short_forecast };
    return undefined;
  };
  const structured = fromDocument(result.structuredContent);
  if (structured) return structured;
  const text = (result.content as Array<{ type?: string; text?: string }> | undefined)?.find(
    (c) => c.type === 'text',
  )?.text;
  if (text === undefined) return undefined;
  try {
    // openapi-mcp-generator puts a status line before the JSON.
    return fromDocument(JSON.parse(text.slice(Math.max(0, text.indexOf('{')))));
  } catch {
    return undefined;
  }
}

const EXPECTED = { temperature: 22, shortForecast: 'Sunny' };
export const mcpAnswers = (status: number, text: string): boolean => {
  const period = firstPeriod(jsonRpcOf(text)?.result);
  return (
    status === 200 &&
    period?.temperature === EXPECTED.temperature &&
    period.shortForecast === EXPECTED.shortForecast
  );
};
export const a2tAnswers = (status: number, text: string): boolean => {
  if (status !== 200) return false;
  try {
    const outputs = (JSON.parse(text) as { output_parameters?: Array<{ name: string; value: unknown }> })
      .output_parameters;
    const get = (name: string) => outputs?.find((o) => o.name === name)?.value;
    return get('temperature') === EXPECTED.temperature && get('short_forecast') === EXPECTED.shortForecast;
  } catch {
    return false;
  }
};

export async function post(url: string, request: { headers: Record<string, string>; body: string }) {
  const res = await fetch(url, { method: 'POST', headers: request.headers, body: request.body });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** What an agent reads to know the tools: tools/list's `tools` as JSON, in characters, and how many. */
export async function toolsListSize(
  url: string,
  era: Era,
  extraHeaders: Record<string, string> = {},
): Promise<{ chars: number; tools: number } | undefined> {
  const { text } = await post(url, mcpRequest(era, 'tools/list', {}, extraHeaders));
  const tools = jsonRpcOf(text)?.result?.tools as unknown[] | undefined;
  return tools ? { chars: JSON.stringify(tools).length, tools: tools.length } : undefined;
}

/**
 * The generated server keeps sessions (the SDK 1.x transport with a session id generator): one
 * `initialize`, then every call on that session, as a connected client would.
 */
export async function openSession(url: string): Promise<Record<string, string>> {
  const era: Era = '2025-11-25';
  const init = await post(
    url,
    mcpRequest(era, 'initialize', {
      protocolVersion: era,
      capabilities: {},
      clientInfo: { name: 'sculptor-bench', version: '1.0.0' },
    }),
  );
  const session = init.headers.get('mcp-session-id');
  if (!session) throw new Error(`no session from initialize: ${init.status} ${init.text.slice(0, 300)}`);
  const headers = { 'mcp-session-id': session };
  const notification = mcpRequest(era, 'notifications/initialized', {}, headers);
  await post(url, {
    headers: notification.headers,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  return headers;
}
