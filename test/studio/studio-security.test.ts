/**
 * Who may drive the Studio: only its own page. Shown over real HTTP: a POST that is
 * not application/json (what another site can send without a CORS preflight) is refused, as is
 * a request from another origin and, without callers, one naming a host that is not loopback
 * (DNS rebinding); refused requests run nothing and write nothing. Then the CLI: `serve --studio`
 * puts the Studio's API behind the callers' bearer tokens, refuses to start on a shared address
 * without them, and `serve` alone has no Studio; `studio --host` needs callers too.
 */
import { rawRequest } from '../support/raw-request.ts';
import type { AddressInfo } from 'node:net';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStudioApp } from '../../src/studio/studio-app.ts';
import { openWorkspace, type Workspace } from '../../src/studio/studio-workspace.ts';
import { type CliProcess, copySamples, removeFolder, runCli, startCli, tempFolder } from '../cli/run-cli.ts';

/** A raw HTTP request, so the Host header is the test's to choose (fetch may not set it). */
async function send(
  port: number,
  method: string,
  pathname: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{
  status: number;
  body: { error?: { code: string; message: string } } & Record<string, unknown>;
}> {
  const answer = await rawRequest(`http://127.0.0.1:${port}${pathname}`, {
    method,
    headers,
    ...(body !== undefined ? { body } : {}),
  });
  return { status: answer.status, body: JSON.parse(answer.body || '{}') };
}

const RUN = JSON.stringify({ tool: 'lookup_weather_by_city', inputs: { city: 'New York' } });

describe('the Studio answers only its own page', () => {
  let dir: string;
  let workspace: Workspace;
  let server: ReturnType<typeof serve>;
  let port: number;
  let runs = 0;
  beforeAll(async () => {
    dir = await copySamples('weather');
    workspace = await openWorkspace({ dir });
    const counted = {
      ...workspace,
      run: (...args: Parameters<Workspace['run']>) => {
        runs++;
        return workspace.run(...args);
      },
    };
    await new Promise<void>((resolve) => {
      server = serve({ fetch: createStudioApp(counted).fetch, hostname: '127.0.0.1', port: 0 }, () =>
        resolve(),
      );
    });
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server?.close();
    await workspace?.close();
    await removeFolder(dir);
  });

  it('refuses a text/plain or form POST (a cross-site request needs no preflight for those)', async () => {
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ]) {
      const answer = await send(
        port,
        'POST',
        '/studio/api/run',
        { host: `127.0.0.1:${port}`, 'content-type': type },
        RUN,
      );
      expect(answer.status, type).toBe(415);
      expect(answer.body.error?.code).toBe('studio.content_type');
    }
    const none = await send(port, 'POST', '/studio/api/save-test', { host: `127.0.0.1:${port}` }, '{}');
    expect(none.status).toBe(415);
    expect(runs).toBe(0);
  });

  it('refuses a request from another origin, even in JSON', async () => {
    for (const origin of ['http://evil.example', `http://localhost:${port + 1}`, 'null']) {
      const answer = await send(
        port,
        'POST',
        '/studio/api/run',
        { host: `127.0.0.1:${port}`, origin, 'content-type': 'application/json' },
        RUN,
      );
      expect(answer.status, origin).toBe(403);
      expect(answer.body.error?.code).toBe('studio.origin');
      expect(answer.body.error?.message).toContain(`from '${origin}'`);
    }
    expect(runs).toBe(0);
  });

  it('refuses a host name that is not loopback (DNS rebinding), for the page and the API', async () => {
    for (const pathname of ['/studio/', '/studio/api/catalog']) {
      const answer = await send(port, 'GET', pathname, { host: `rebound.example:${port}` });
      expect(answer.status, pathname).toBe(403);
      expect(answer.body.error?.code).toBe('studio.host');
      expect(answer.body.error?.message).toContain(`http://127.0.0.1:${port}/studio/`);
    }
  });

  it('answers its own page: JSON from its own origin, under a loopback name', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) {
      const catalog = await send(port, 'GET', '/studio/api/catalog', { host });
      expect(catalog.status, host).toBe(200);
    }
    const answer = await send(
      port,
      'POST',
      '/studio/api/run',
      {
        host: `localhost:${port}`,
        origin: `http://localhost:${port}`,
        'content-type': 'application/json; charset=utf-8',
      },
      RUN,
    );
    expect(answer.status).toBe(200);
    expect(answer.body.outputs).toMatchObject({ forecast: 'Sunny' });
    expect(runs).toBe(1);
    // Nothing was saved by the refused save-test above.
    expect((await readdir(dir)).filter((f) => f.endsWith('.test.yaml'))).toEqual([
      'lookup_weather_by_city.test.yaml',
    ]);
  });
});

describe('serve --studio and studio --host', { timeout: 60_000 }, () => {
  const TOKEN = 'studio-caller-token-0123456789abcdef';
  const SHOP_TOKEN = 'shop-agent-token-0123456789abcdefgh';
  const processes: CliProcess[] = [];
  const folders: string[] = [];
  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    await Promise.all(folders.map(removeFolder));
  });

  it("puts the Studio's API behind the callers' bearer tokens", async () => {
    const callers = await tempFolder({
      'callers.yaml':
        "tenants:\n  designers:\n    callers:\n      - { name: ada, token: '${STUDIO_TOKEN}' }\n" +
        "  shop:\n    tools: [lookup_weather_by_city]\n    callers:\n      - { name: shop-agent, token: '${SHOP_TOKEN}' }\n",
    });
    folders.push(callers);
    const cli = startCli(['serve', 'sculpts/weather', '--studio'], {
      env: {
        PORT: '0',
        HOST: '0.0.0.0',
        SCULPTOR_CALLERS: path.join(callers, 'callers.yaml'),
        STUDIO_TOKEN: TOKEN,
        SHOP_TOKEN,
      },
    });
    processes.push(cli);
    const port = (await cli.waitFor(/"url":"http:\/\/[^"]*:(\d+)"/))[1]!;
    const base = `http://127.0.0.1:${port}`;
    // The page holds nothing and loads; it learns that it must ask for a token.
    expect((await fetch(`${base}/studio/`)).status).toBe(200);
    expect(await (await fetch(`${base}/studio/api/auth`)).json()).toEqual({ guarded: true });
    const anonymous = await fetch(`${base}/studio/api/catalog`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer realm="sculptor"/);
    expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBe('auth.unauthenticated');
    const wrong = await fetch(`${base}/studio/api/catalog`, {
      headers: { authorization: 'Bearer nope-nope-nope' },
    });
    expect(wrong.status).toBe(401);
    // A tenant's agent, whose tools are limited, may not open a Studio that shows and runs them all.
    const agent = await fetch(`${base}/studio/api/catalog`, {
      headers: { authorization: `Bearer ${SHOP_TOKEN}` },
    });
    expect(agent.status).toBe(403);
    expect(((await agent.json()) as { error: { code: string } }).error.code).toBe('auth.forbidden');
    const ok = await fetch(`${base}/studio/api/catalog`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).toEqual([
      'lookup_weather_by_city',
    ]);
    // Behind callers, any host name may reach it, but still only in JSON from its own origin.
    const csrf = await fetch(`${base}/studio/api/run`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'text/plain' },
      body: RUN,
    });
    expect(csrf.status).toBe(415);
    // The gateway's own face is unchanged beside it.
    expect((await fetch(`${base}/tools`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(
      200,
    );
  });

  it('refuses to start on a shared address without callers, and serve alone has no Studio', async () => {
    const refused = await runCli(['serve', 'sculpts/weather', '--studio'], {
      env: { PORT: '0', HOST: '0.0.0.0' },
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("needs the callers' authentication. Set SCULPTOR_CALLERS");
    const studio = await runCli(['studio', 'sculpts/weather', '--host', '0.0.0.0', '--port', '0']);
    expect(studio.code).toBe(1);
    expect(studio.stderr).toContain('Set SCULPTOR_CALLERS');

    const plain = startCli(['serve', 'sculpts/weather'], { env: { PORT: '0', HOST: '127.0.0.1' } });
    processes.push(plain);
    const port = (await plain.waitFor(/"url":"http:\/\/[^"]*:(\d+)"/))[1]!;
    expect((await fetch(`http://127.0.0.1:${port}/studio/`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${port}/studio/api/catalog`)).status).toBe(404);
  });

  it('serves the Studio on loopback without callers (serve --watch --studio, a designer)', async () => {
    const dir = await copySamples('weather');
    folders.push(dir);
    const cli = startCli(['serve', dir, '--watch', '--studio'], { env: { PORT: '0' } });
    processes.push(cli);
    const base = (await cli.waitFor(/serving at (http:\/\/127\.0\.0\.1:\d+)\/tools/))[1]!;
    expect(await (await fetch(`${base}/studio/api/auth`)).json()).toEqual({ guarded: false });
    expect((await fetch(`${base}/studio/api/catalog`)).status).toBe(200);
  });
});
