/**
 * The MCP peer a developer would write by hand on the official TypeScript SDK
 * (@modelcontextprotocol/server, the version the gateway ships) to give an agent the bench's
 * forecast tool, served by `createMcpHandler` on Hono for both protocol eras — 2026-07-28 and the
 * 2025 revisions statelessly, as the gateway's MCP face does — and calling the backend through an
 * undici `Pool` with a deadline and a bounded answer. The SDK builds a fresh server per request,
 * so what each request pays to set one up is part of the comparison. Two ways
 * (BENCH_MCP_STYLE):
 *
 * - `idiomatic` (default), as the SDK's documentation shows: `registerTool` with zod input and
 *   output schemas (declared once; the SDK validates the arguments and the structured answer);
 * - `lean`, as an engineer who measured it writes: the low-level `tools/list` and `tools/call`
 *   handlers with the tool's JSON Schema written out and the arguments checked by hand, as the
 *   gateway's own MCP server does; the body parsed once and handed to the SDK, and a 2025-era
 *   request answered with one JSON body (this tool sends nothing before its answer) instead of
 *   the SDK's stateless fallback's event stream, as the gateway answers it.
 *
 * No generic machinery: one tool, one backend, everything known in advance.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import {
  createMcpHandler,
  isLegacyRequest,
  McpServer,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { Hono } from 'hono';
import { Pool } from 'undici';
import { z } from 'zod';
import { failStart, serveUntilStopped } from './child.ts';

/** The invocation's deadline and the answer's cap, as forecast-duties.ts and the sculpt have them. */
const DEADLINE_MS = 10_000;
const MAX_ANSWER_BYTES = 10 * 1024 * 1024;

const input = z.object({
  office: z.enum(['BOX', 'LWX', 'OKX', 'PHI']).describe('The weather forecast office that owns the grid.'),
  x: z.number().int().min(0).max(500).describe('The grid column.'),
  y: z.number().int().min(0).max(500).describe('The grid row.'),
});
const output = z.object({
  temperature: z.number().int().describe('Temperature of the next period, in °F.'),
  short_forecast: z.string().describe('A few words, e.g. "Mostly Sunny".'),
});

interface Forecast {
  properties?: { periods?: Array<{ temperature?: unknown; shortForecast?: unknown }> };
}

const failed = (text: string) => ({ isError: true, content: [{ type: 'text' as const, text }] });

/** The backend call and the two fields: the same for both styles. */
async function forecastAt(pool: Pool, office: string, x: number, y: number) {
  let answer: Forecast;
  try {
    const res = await pool.request({
      method: 'GET',
      path: `/gridpoints/${office}/${x},${y}/forecast`,
      headers: { accept: 'application/geo+json' },
      signal: AbortSignal.timeout(DEADLINE_MS),
    });
    if (res.statusCode !== 200) {
      await res.body.dump();
      return failed(`The weather service answered ${res.statusCode}.`);
    }
    answer = (await res.body.json()) as Forecast;
  } catch {
    return failed('The weather service could not be reached in time.');
  }
  const period = answer.properties?.periods?.[0];
  if (typeof period?.temperature !== 'number' || typeof period.shortForecast !== 'string') {
    return failed('The weather service answered no forecast.');
  }
  const structured = { temperature: period.temperature, short_forecast: period.shortForecast };
  return {
    content: [{ type: 'text' as const, text: JSON.stringify(structured) }],
    structuredContent: structured,
  };
}

const DESCRIPTION =
  'The forecast for the next period at one point of a weather office grid: temperature and a short description.';

/** The lean style's tool, as tools/list hands it out. */
const TOOL = {
  name: 'bench_forecast',
  description: DESCRIPTION,
  inputSchema: {
    type: 'object' as const,
    properties: {
      office: {
        type: 'string',
        enum: ['BOX', 'LWX', 'OKX', 'PHI'],
        description: 'The weather forecast office that owns the grid.',
      },
      x: { type: 'integer', minimum: 0, maximum: 500, description: 'The grid column.' },
      y: { type: 'integer', minimum: 0, maximum: 500, description: 'The grid row.' },
    },
    required: ['office', 'x', 'y'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object' as const,
    properties: {
      temperature: { type: 'integer', description: 'Temperature of the next period, in °F.' },
      short_forecast: { type: 'string', description: 'A few words, e.g. "Mostly Sunny".' },
    },
    required: ['temperature', 'short_forecast'],
  },
};
const OFFICES = new Set(['BOX', 'LWX', 'OKX', 'PHI']);
const gridIndex = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && v <= 500;

function createLeanFactory(pool: Pool): () => McpServer {
  return () => {
    const mcp = new McpServer({ name: 'forecast', version: '1.0.0' }, { capabilities: { tools: {} } });
    mcp.server.setRequestHandler('tools/list', () => Promise.resolve({ tools: [TOOL] }));
    mcp.server.setRequestHandler('tools/call', async (request) => {
      const { name, arguments: args = {} } = request.params;
      if (name !== TOOL.name) return failed(`Unknown tool ${name}.`);
      const { office, x, y, ...rest } = args as Record<string, unknown>;
      if (typeof office !== 'string' || !OFFICES.has(office) || !gridIndex(x) || !gridIndex(y)) {
        return failed('office must be BOX, LWX, OKX or PHI; x and y integers from 0 to 500.');
      }
      if (Object.keys(rest).length > 0) return failed(`Unknown arguments: ${Object.keys(rest).join(', ')}.`);
      return forecastAt(pool, office, x as number, y as number);
    });
    return mcp;
  };
}

function createIdiomaticFactory(pool: Pool): () => McpServer {
  return () => {
    const mcp = new McpServer({ name: 'forecast', version: '1.0.0' });
    mcp.registerTool(
      'bench_forecast',
      {
        description: DESCRIPTION,
        inputSchema: input,
        outputSchema: output,
      },
      ({ office, x, y }) => forecastAt(pool, office, x, y),
    );
    return mcp;
  };
}

/** A 2025-era request on a fresh stateless server whose transport answers with one JSON body. */
async function legacyJson(
  factory: () => McpServer,
  request: Request,
  parsedBody: unknown,
): Promise<Response> {
  const mcp = factory();
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await mcp.connect(transport);
  try {
    return await transport.handleRequest(request, { parsedBody });
  } finally {
    void transport.close();
    void mcp.close();
  }
}

async function main(): Promise<void> {
  const backendUrl = process.env.BENCH_BACKEND_URL;
  if (!backendUrl) throw new Error('BENCH_BACKEND_URL is not set');
  const pool = new Pool(backendUrl, {
    connections: 64,
    connectTimeout: 2_000,
    headersTimeout: DEADLINE_MS,
    bodyTimeout: DEADLINE_MS,
    maxResponseSize: MAX_ANSWER_BYTES,
  });
  const factory =
    process.env.BENCH_MCP_STYLE === 'lean' ? createLeanFactory(pool) : createIdiomaticFactory(pool);
  const handler = createMcpHandler(factory);
  const app = new Hono();
  if (process.env.BENCH_MCP_STYLE === 'lean') {
    app.all('/mcp', async (c) => {
      const request = c.req.raw;
      if (request.method !== 'POST') return handler.fetch(request);
      let parsedBody: unknown;
      try {
        parsedBody = await c.req.json();
      } catch {
        return c.json({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }, 400);
      }
      return (await isLegacyRequest(request, parsedBody))
        ? legacyJson(factory, request, parsedBody)
        : handler.fetch(request, { parsedBody });
    });
  } else {
    // As the SDK's Hono guide wires it: the handler takes the web Request as it is.
    app.all('/mcp', (c) => handler.fetch(c.req.raw));
  }
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
    s.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  serveUntilStopped({ url: `http://127.0.0.1:${port}` }, async () => {
    await new Promise((resolve) => server.close(resolve));
    await handler.close();
    await pool.close();
  });
}

if (import.meta.main) main().catch(failStart);
