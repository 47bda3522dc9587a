/**
 * The official MCP SDK's own cost per `tools/call`, without Sculptor, HTTP or a backend:
 * `createMcpHandler(factory).fetch()` in a loop, in process, with a fresh server per request
 * (as the SDK requires) whose `tools/call` answers a canned result of the bench tool's size.
 * What it prints is the floor the MCP face cannot go under while it serves through the SDK
 * (docs/PERFORMANCE.md, "MCP face").
 *
 *   node bench/mcp-sdk-floor.ts [requests per round, default 20000]
 */
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { MCP_FORECAST } from './invocations.ts';

const structured = { temperature: 22, short_forecast: 'Sunny' };
const handler = createMcpHandler(() => {
  // As mcp-server.ts builds it: an McpServer whose tools/call is answered by a handler of its own.
  const mcp = new McpServer({ name: 'floor', version: '0.1.0' }, { capabilities: { tools: {} } });
  mcp.server.setRequestHandler('tools/call', () =>
    Promise.resolve({
      content: [{ type: 'text', text: JSON.stringify(structured) }],
      structuredContent: structured,
    }),
  );
  return mcp;
});

const n = Number(process.argv[2] ?? 20_000);
const round = async (): Promise<number> => {
  const t0 = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const request = new Request('http://127.0.0.1/mcp', { method: 'POST', headers: MCP_FORECAST.headers });
    const response = await handler.fetch(request, { parsedBody: JSON.parse(MCP_FORECAST.body) });
    const text = await response.text();
    if (i === 0 && !text.includes('"Sunny"')) throw new Error(`unexpected answer: ${text}`);
  }
  const used = process.cpuUsage(t0);
  return (used.user + used.system) / n;
};

const rounds: number[] = [];
for (let r = 0; r < 6; r++) rounds.push(await round());
const sorted = rounds.slice(1).sort((a, b) => a - b);
console.log(
  `SDK handler.fetch, tools/call: ${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)} µs of CPU per request ` +
    `(median of ${sorted.length} rounds of ${n} after one warm-up round; rounds ${rounds.map((x) => x.toFixed(1)).join(' / ')})`,
);
