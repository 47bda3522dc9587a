/**
 * `sculptor mcp DIR`: the same tools over stdio, a child process (Node 24, `src/cli/main.ts`)
 * driven by the official SDK client in both protocol eras.
 */
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoSculpt, type LabBackend, startLabBackend } from '../../engine/lab-backend.ts';
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
        echoSculpt(name, 'Test tool. Echoes a name; use it to test reloads over stdio.'),
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

describe('over stdio with --watch', () => {
  let session: Awaited<ReturnType<typeof stdioClient>>;
  let changed = 0;
  beforeAll(async () => {
    session = await stdioClient(
      dir,
      '2025-11-25',
      env(),
      { listChanged: { tools: { debounceMs: 0, onChanged: () => void changed++ } } },
      ['--watch'],
    );
  });
  afterAll(async () => {
    // A broken sculpt left behind would fail every later process's start in this folder.
    await rm(path.join(dir, 'watched_echo.v1.sculpt.yaml'), { force: true });
    await session?.client.close();
  });

  it("reloads on a saved change with the gateway's reload events, and keeps the last good catalog on a broken one", async () => {
    const file = path.join(dir, 'watched_echo.v1.sculpt.yaml');
    const sculpt = (description: string) => echoSculpt('watched_echo', description);
    const before = changed;
    await writeFile(file, sculpt('Test tool. Echoes a name; use it to test reloads on change.'));
    await expect.poll(() => changed, { timeout: 30_000 }).toBeGreaterThan(before);
    expect((await session.client.listTools()).tools.map((t) => t.name)).toContain('watched_echo');
    expect(session.stderr()).toMatch(/"event":"reloaded","trigger":"change"/);

    await writeFile(file, 'tool: watched_echo\nversion: [not a number\n');
    await expect
      .poll(() => session.stderr(), { timeout: 30_000 })
      .toMatch(/"event":"reload_refused","trigger":"change"/);
    expect((await session.client.listTools()).tools.map((t) => t.name)).toContain('watched_echo');
  }, 70_000);
});

describe('over stdio, lines that are not JSON-RPC messages', () => {
  /** The codes of the answers with a null id (those to lines whose id could not be read), in order. */
  const refusals = (stdout: string): number[] =>
    stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { id?: unknown; error?: { code: number } })
      .filter((message) => message.id === null && message.error)
      .map((message) => message.error!.code);

  let session: Awaited<ReturnType<typeof stdioClient>>;
  beforeAll(async () => {
    session = await stdioClient(dir, '2025-11-25', env());
  });
  afterAll(async () => {
    await session?.client.close();
  });

  it('each is answered with a JSON-RPC error (id null) and a log line; the official client is served after', async () => {
    session.write('this is not json\n');
    session.write('{"hello": "world"}\n');
    // Over the SDK transport's 10 MiB bound, in pieces as a pipe delivers them, then its newline.
    const mebibyte = 'x'.repeat(1024 * 1024);
    session.write(`{"jsonrpc":"2.0","id":99,"method":"tools/list","params":{"pad":"${mebibyte}`);
    for (let i = 0; i < 10; i++) session.write(mebibyte);
    session.write('"}}\n');
    await expect
      .poll(() => refusals(session.stdout()), { timeout: 10_000 })
      .toEqual([-32700, -32600, -32700]);
    await expect
      .poll(() => session.stderr().match(/"event":"mcp_line_refused"[^\n]*/g) ?? [], { timeout: 5000 })
      .toHaveLength(3);
    for (const reason of ['not_json', 'not_jsonrpc', 'oversize']) {
      expect(session.stderr()).toMatch(new RegExp(`"event":"mcp_line_refused","reason":"${reason}"`));
    }
    // The oversized request was never served: no answer carries its id.
    expect(session.stdout()).not.toContain('"id":99');

    // The process lives on, and the next requests are answered.
    expect(() => process.kill(session.pid!, 0)).not.toThrow();
    expect((await session.client.listTools()).tools.map((t) => t.name)).toContain('parallel_pair');
    const result = await session.client.callTool({ name: 'parallel_pair', arguments: { ms: 1 } });
    expect(result.structuredContent).toEqual({ names: 'left+right' });
  });
});
