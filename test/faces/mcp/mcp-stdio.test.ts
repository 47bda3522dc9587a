/**
 * `sculptor mcp DIR`: the same tools over stdio, a child process (Node 24, `src/cli/main.ts`)
 * driven by the official SDK client in both protocol eras.
 */
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LabBackend, startLabBackend } from '../../engine/lab-backend.ts';
import { stdioClient } from './mcp-client.ts';

let lab: LabBackend;
let dir: string;
const env = () => ({
  LAB_URL: lab.url,
  LAB_API_KEY: 'k',
  SCULPTOR_ALLOW_PRIVATE_EGRESS: 'true',
  LOG_LEVEL: 'info',
});

beforeAll(async () => {
  lab = await startLabBackend();
  dir = await mkdtemp(path.join(tmpdir(), 'sculptor-mcp-stdio-'));
  await cp('test/engine/fixtures/lab', dir, { recursive: true });
});
afterAll(async () => {
  await lab?.close();
  await rm(dir, { recursive: true, force: true });
});

for (const revision of ['2026-07-28', '2025-11-25'] as const) {
  describe(`over stdio, protocol ${revision}`, () => {
    let session: Awaited<ReturnType<typeof stdioClient>>;
    let changed = 0;
    beforeAll(async () => {
      session = await stdioClient(dir, revision, env(), {
        listChanged: { tools: { debounceMs: 0, onChanged: () => void changed++ } },
      });
    });
    afterAll(async () => {
      await session?.client.close();
    });

    it('lists and calls the tools; logs go to stderr, stdout carries JSON-RPC alone', async () => {
      expect(session.client.getNegotiatedProtocolVersion()).toBe(revision);
      const names = (await session.client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['parallel_pair', 'account_balance']));
      const result = await session.client.callTool({ name: 'parallel_pair', arguments: { ms: 1 } });
      expect(result.structuredContent).toEqual({ names: 'left+right' });
      // Any stray byte on stdout would have broken the client's framing before this point.
      await expect.poll(() => session.stderr()).toContain('"event":"invocation"');
      expect(session.stderr()).toContain('"event":"serving"');
    });

    it('answers invalid input as an isError result with its code', async () => {
      const result = await session.client.callTool({ name: 'parallel_pair', arguments: { ms: 0 } });
      expect(result.isError).toBe(true);
      expect(result._meta?.['io.sculptor/error']).toMatchObject({ code: 'input.invalid' });
    });

    it('aborts the invocation on notifications/cancelled', async () => {
      const controller = new AbortController();
      const started = performance.now();
      setTimeout(() => controller.abort('user pressed stop'), 200);
      await expect(
        session.client.callTool(
          { name: 'parallel_pair', arguments: { ms: 2000 } },
          { signal: controller.signal },
        ),
      ).rejects.toThrow();
      await expect
        .poll(() => session.stderr(), { timeout: 1500 })
        .toMatch(/"tool":"parallel_pair"[^\n]*"outcome":"request.cancelled"/);
      expect(performance.now() - started).toBeLessThan(1800);
    });

    it('reloads on SIGHUP and tells the client the tool list changed', async () => {
      const name = `echo_${revision.replaceAll('-', '_')}`;
      await writeFile(
        path.join(dir, `${name}.v1.sculpt.yaml`),
        [
          `tool: ${name}`,
          'version: 1',
          'description: Test tool. Echoes a name; use it to test reloads over stdio.',
          'inputs:',
          "  name: { type: string, maxLength: 20, description: 'A name.' }",
          'outputs:',
          "  name: { type: string, description: 'The same name.' }",
          'steps:',
          '  - id: echo',
          '    call: lab#slow',
          '    params: \'{ "name": $inputs.name, "ms": 1 }\'',
          'output: \'{ "name": $steps.echo.name }\'',
          '',
        ].join('\n'),
      );
      // The 2026 client opens its listen stream as it connects; let it be acknowledged.
      await new Promise((resolve) => setTimeout(resolve, 100));
      const before = changed;
      process.kill(session.pid!, 'SIGHUP');
      await expect.poll(() => changed, { timeout: 5000 }).toBeGreaterThan(before);
      expect((await session.client.listTools()).tools.map((t) => t.name)).toContain(name);
    });
  });
}
