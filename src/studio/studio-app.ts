import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';
import type { Workspace } from './studio-workspace.ts';

/**
 * The Studio's HTTP side (issue #17): the page and its scripts, served from the package (no
 * CDN: machines here and many enterprise networks have no internet), and a small JSON API
 * over one workspace. The front end is Preact with htm — components and hooks in plain ES
 * modules, no build step — loaded through an import map.
 */
const PUBLIC = new URL('./public/', import.meta.url);
const VENDOR: Record<string, string> = {
  'preact.mjs': fileURLToPath(import.meta.resolve('preact')),
  'hooks.mjs': fileURLToPath(import.meta.resolve('preact/hooks')),
  'htm.mjs': fileURLToPath(import.meta.resolve('htm')),
};
const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

export function createStudioApp(workspace: Workspace): Hono {
  const app = new Hono();
  const file = async (path: string) => {
    const body = await readFile(path);
    const type = TYPES[path.split('.').pop() ?? ''] ?? 'application/octet-stream';
    return new Response(body, { headers: { 'content-type': type, 'cache-control': 'no-cache' } });
  };
  app.get('/', () => file(fileURLToPath(new URL('index.html', PUBLIC))));
  app.get('/studio/:asset{[a-z-]+\\.(js|css)}', (c) =>
    file(fileURLToPath(new URL(c.req.param('asset'), PUBLIC))),
  );
  app.get('/studio/vendor/:name', (c) => {
    const path = VENDOR[c.req.param('name')];
    return path ? file(path) : c.notFound();
  });

  app.get('/studio/api/catalog', (c) => c.json(workspace.catalog()));
  app.get('/studio/api/tools/:name', (c) => {
    const version = c.req.query('version');
    const views = workspace.views(c.req.param('name'), version ? Number(version) : undefined);
    return views ? c.json(views) : c.json({ error: 'No such tool.' }, 404);
  });
  app.get('/studio/api/tools/:name/diff', (c) => {
    const diff = workspace.diff(c.req.param('name'), Number(c.req.query('from')), Number(c.req.query('to')));
    return diff ? c.json(diff) : c.json({ error: 'No such versions.' }, 404);
  });
  app.post('/studio/api/run', async (c) => {
    const body = (await c.req.json()) as {
      tool: string;
      version?: number;
      inputs?: Record<string, unknown>;
      mode?: string;
    };
    try {
      return c.json(
        await workspace.run(
          body.tool,
          body.version,
          body.inputs ?? {},
          body.mode === 'live' ? 'live' : 'recordings',
        ),
      );
    } catch (err) {
      return c.json({ error: { code: 'studio.run', message: (err as Error).message } }, 400);
    }
  });
  app.post('/studio/api/evaluate', async (c) => {
    const body = (await c.req.json()) as { run: string; target: string; expression: string };
    return c.json(await workspace.evaluate(body.run, body.target, body.expression));
  });
  app.post('/studio/api/save-test', async (c) => {
    const body = (await c.req.json()) as { run: string; name: string };
    try {
      return c.json(await workspace.saveTest(body.run, body.name || 'saved from the Studio'));
    } catch (err) {
      return c.json({ error: { message: (err as Error).message } }, 400);
    }
  });
  // A cheap change feed: the page polls the generation and reloads the catalog when it moves.
  app.get('/studio/api/generation', (c) => c.json({ generation: workspace.generation() }));
  return app;
}
