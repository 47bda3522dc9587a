/**
 * What outlives one call on the MCP face: cancellation, a reload telling listening clients that
 * the tool list changed, and bearer authentication (401 + RFC 9728 metadata).
 */
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoSculpt, type LabBackend, labUser, startLabBackend } from '../../engine/lab-backend.ts';
import { startTestGateway } from '../../support/start-test-gateway.ts';
import { httpClient } from './mcp-client.ts';

type TestGateway = Awaited<ReturnType<typeof startTestGateway>>;

let lab: LabBackend;
beforeAll(async () => {
  lab = await startLabBackend();
});
afterAll(async () => {
  await lab?.close();
});

describe('cancellation and reload', () => {
  let dir: string;
  let gateway: TestGateway;
  let client: Client;
  let changed: number;
  beforeAll(async () => {
    // A copy, so that the reload test can add a sculpt.
    dir = await mkdtemp(path.join(tmpdir(), 'sculptor-mcp-'));
    await cp('test/engine/fixtures/lab', dir, { recursive: true });
    gateway = await startTestGateway(dir, { LAB_URL: lab.url, LAB_API_KEY: 'k' });
    changed = 0;
    client = await httpClient(`${gateway.url}/mcp`, '2026-07-28', {
      listChanged: { tools: { debounceMs: 0, onChanged: () => void changed++ } },
    });
  });
  afterAll(async () => {
    await client?.close();
    await gateway?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('aborts the invocation when the client cancels (2026-07-28: the request closes)', async () => {
    const controller = new AbortController();
    const started = performance.now();
    setTimeout(() => controller.abort('user pressed stop'), 200);
    await expect(
      client.callTool({ name: 'parallel_pair', arguments: { ms: 2000 } }, { signal: controller.signal }),
    ).rejects.toThrow();
    // The engine ends the invocation as cancelled, long before the backend would have answered.
    await expect
      .poll(() => gateway.reports.find((r) => r.tool === 'parallel_pair')?.outcome)
      .toBe('request.cancelled');
    expect(performance.now() - started).toBeLessThan(1500);
  });

  it('tells a listening client that the tool list changed after a reload, and the new tool is listed', async () => {
    // The listen stream opens with the client; give it a moment to be acknowledged.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const before = (await client.listTools()).tools.map((t) => t.name);
    expect(before).not.toContain('slow_echo');
    await writeFile(
      path.join(dir, 'slow_echo.v1.sculpt.yaml'),
      echoSculpt('slow_echo', 'Test tool. Echoes a name after a short wait; use it to test reloads.'),
    );
    await gateway.reload();
    await expect.poll(() => changed, { timeout: 3000 }).toBeGreaterThanOrEqual(1);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('slow_echo');
    const echoed = await client.callTool({ name: 'slow_echo', arguments: { name: 'ada' } });
    expect(echoed.structuredContent).toEqual({ name: 'ada' });
  });
});

describe('bearer tokens (SCULPTOR_CALLERS)', () => {
  const ACME = 'acme-token-0123456789abcdefghij';
  const GLOBEX = 'globex-token-0123456789abcdefghij';
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway(
      'test/hardening/fixtures/tenancy',
      {
        LAB_URL: lab.url,
        ACME_LAB_KEY: 'acme-lab-key',
        GLOBEX_LAB_KEY: 'globex-lab-key',
        ACME_TOKEN: ACME,
        GLOBEX_TOKEN: GLOBEX,
      },
      { callers: 'test/hardening/fixtures/tenancy-callers.yaml' },
    );
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('answers 401 with a Bearer challenge naming the RFC 9728 metadata, which is served', async () => {
    const res = await fetch(`${gateway.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    const metadataUrl = `${gateway.url}/.well-known/oauth-protected-resource/mcp`;
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect(res.headers.get('www-authenticate')).toContain(`resource_metadata="${metadataUrl}"`);
    expect(await res.json()).toMatchObject({ error: { data: { code: 'auth.unauthenticated' } } });
    for (const url of [metadataUrl, `${gateway.url}/.well-known/oauth-protected-resource`]) {
      const metadata = await fetch(url);
      expect(metadata.status).toBe(200);
      expect(await metadata.json()).toMatchObject({
        resource: `${gateway.url}/mcp`,
        bearer_methods_supported: ['header'],
      });
    }
  });

  it("lists and calls each tenant's own tools, and never sends the caller's token to a backend", async () => {
    const acme = await httpClient(`${gateway.url}/mcp`, '2026-07-28', { token: ACME });
    const globex = await httpClient(`${gateway.url}/mcp`, '2025-11-25', { token: GLOBEX });
    try {
      expect((await acme.listTools()).tools.map((t) => t.name)).toContain('public_stats');
      expect((await globex.listTools()).tools.map((t) => t.name)).not.toContain('public_stats');
      await expect(globex.callTool({ name: 'public_stats', arguments: {} })).rejects.toMatchObject({
        code: -32602,
      });
      const before = lab.requests.length;
      const mine = await acme.callTool({ name: 'tenant_whoami', arguments: {} });
      expect(mine.structuredContent).toEqual({ user: labUser('acme-lab-key') });
      for (const request of lab.requests.slice(before)) {
        expect(request.headerValues.join('\n')).not.toContain(ACME);
      }
    } finally {
      await acme.close();
      await globex.close();
    }
  });
});
