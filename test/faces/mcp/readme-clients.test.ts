/**
 * README's client configurations, as a user would paste them: the Claude Desktop block launches
 * `sculptor mcp` over stdio, the Cursor/VS Code block reaches a running gateway's `/mcp` with a
 * bearer token. Both are read from README.md itself, so a config that drifts from what works
 * fails here. (The Python examples need packages this machine cannot install; not run.)
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LabBackend, startLabBackend } from '../../engine/lab-backend.ts';
import { startTestGateway } from '../../support/start-test-gateway.ts';
import { ACME, TENANCY_CALLERS, TENANCY_SCULPTS, tenancyEnv } from '../../support/tenancy-fixture.ts';

const REPO = path.resolve(import.meta.dirname, '../../..');
const README = readFileSync(path.join(REPO, 'README.md'), 'utf8');

interface ServerConfig {
  command: string;
  args: string[];
  env: Record<string, string>;
  url: string;
  headers: Record<string, string>;
}

/** The `sculptor` server of the first ```json block after `heading` in README. */
function configAfter(heading: string): ServerConfig {
  const from = README.indexOf(heading);
  expect(from, `README no longer has "${heading}"`).toBeGreaterThan(-1);
  const block = /```json\n([\s\S]*?)\n```/.exec(README.slice(from));
  expect(block, `no JSON block after "${heading}"`).not.toBeNull();
  return (JSON.parse(block![1]!) as { mcpServers: { sculptor: ServerConfig } }).mcpServers.sculptor;
}

const client = () => new Client({ name: 'readme-client', version: '1.0.0' });

describe('the Claude Desktop configuration', () => {
  it('launches sculptor mcp over stdio, lists the sample tools and calls one offline, as written', async () => {
    const server = configAfter('Claude Desktop (`claude_desktop_config.json`)');
    // What the user edits: the checkout's path.
    const resolve = (s: string) => s.replaceAll('/path/to/sculptor', REPO);
    const transport = new StdioClientTransport({
      command: resolve(server.command),
      args: server.args.map(resolve),
      // A desktop app passes the config's env and little else.
      env: { PATH: process.env.PATH ?? '', ...server.env },
      stderr: 'pipe',
    });
    const mcp = client();
    await mcp.connect(transport);
    try {
      const names = (await mcp.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['lookup_weather_by_city']));
      expect(names.some((n) => n.includes('pet'))).toBe(true);
      // --offline: the answer comes from the samples' recordings, no network.
      const answer = await mcp.callTool({ name: 'describe_pet', arguments: { pet_number: 10 } });
      expect(answer.isError).toBeFalsy();
      expect(answer.structuredContent).toMatchObject({ name: 'doggie', status: 'AVAILABLE' });
    } finally {
      await mcp.close();
    }
  }, 60_000);
});

describe('the Cursor / VS Code configuration', () => {
  let lab: LabBackend;
  let gateway: Awaited<ReturnType<typeof startTestGateway>>;
  beforeAll(async () => {
    lab = await startLabBackend();
    gateway = await startTestGateway(TENANCY_SCULPTS, tenancyEnv(lab), { callers: TENANCY_CALLERS });
  });
  afterAll(async () => {
    await gateway?.close();
    await lab?.close();
  });

  it('reaches a running gateway with the token from the environment', async () => {
    const server = configAfter('Cursor (`.cursor/mcp.json`)');
    const url = new URL(server.url);
    const local = new URL(gateway.url);
    url.host = local.host; // the README's localhost:8080 is wherever the gateway listens
    const env: Record<string, string> = { SCULPTOR_TOKEN: ACME };
    const headers = Object.fromEntries(
      Object.entries(server.headers).map(([k, v]) => [
        k,
        v.replace(/\$\{env:(\w+)\}/g, (_, name: string) => env[name] ?? ''),
      ]),
    );
    const mcp = client();
    await mcp.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
    try {
      const names = (await mcp.listTools()).tools.map((t) => t.name);
      expect(names).toContain('tenant_whoami');
    } finally {
      await mcp.close();
    }
  });
});
