import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { type Context, Hono } from 'hono';
import { authenticate, bearerChallenge } from '../callers/authenticate.ts';
import type { CallerDirectory } from '../callers/load-callers.ts';
import { SculptorError } from '../errors/sculptor-error.ts';
import type { Workspace } from './studio-workspace.ts';
import { mountTryModel } from './try-model.ts';

/**
 * The Studio's HTTP side: the page and its scripts, served from the package (no
 * CDN: machines here and many enterprise networks have no internet), and a small JSON API
 * over one workspace. The front end is Preact with htm — components and hooks in plain ES
 * modules, no build step — loaded through an import map. Everything lives below /studio, so
 * the gateway can mount it beside its faces (`serve --studio`).
 *
 * The Studio runs tools against live backends and writes files, so it must not be drivable
 * from other web pages the designer has open:
 * - a POST must be `application/json`: a page on another site can send text/plain or a form
 *   without asking, but not JSON, which needs a CORS preflight the Studio never grants (CSRF);
 * - a request whose `Origin` is not the Studio's own is refused;
 * - without callers (a designer's machine) it answers only to a loopback `Host` (127.0.0.1,
 *   localhost, [::1]): a site whose name was re-pointed at 127.0.0.1 (DNS rebinding) is refused;
 * - with callers (`SCULPTOR_CALLERS`: `serve --studio`, or `studio --host`), its API asks for a
 *   caller's bearer token, which the page keeps in sessionStorage and sends as a header — never
 *   a cookie, so nothing is sent on another page's behalf.
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
/** Host names that always mean this machine (a DNS name could be re-pointed; these cannot). */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

export interface StudioAppOptions {
  /**
   * The callers in force. When it answers a directory, the API asks every request for one of its
   * bearer tokens; when absent (or undefined), the Studio is a loopback-only designer's tool.
   */
  callers?: () => CallerDirectory | undefined;
  /** Also answer `/` (a redirect to the page): `sculptor studio`, not when mounted in the gateway. */
  root?: boolean;
  /** Where "try with a model" reads its endpoint (SCULPTOR_EVAL_*): default, the process environment. */
  env?: Readonly<Record<string, string | undefined>>;
}

/** A refusal in the API's shape: `{error: {code, message}}`. */
function refuse(c: Context, status: 401 | 403 | 415, code: string, message: string, headers = {}) {
  return c.json({ error: { code, message } }, status, headers);
}

export function createStudioApp(workspace: Workspace, options: StudioAppOptions = {}): Hono {
  const app = new Hono();
  const file = async (path: string) => {
    const body = await readFile(path);
    const type = TYPES[path.split('.').pop() ?? ''] ?? 'application/octet-stream';
    return new Response(body, {
      headers: {
        'content-type': type,
        'cache-control': 'no-cache',
        'x-content-type-options': 'nosniff',
        // No other page may frame the Studio (clickjacking its buttons).
        'x-frame-options': 'DENY',
        'content-security-policy': "frame-ancestors 'none'",
      },
    });
  };

  // Who may talk to the Studio at all: its own origin, on a loopback name unless callers guard it.
  app.use('/studio/*', async (c, next) => {
    const own = new URL(c.req.url);
    const guarded = options.callers?.() !== undefined;
    if (!guarded && !LOOPBACK_HOSTS.has(own.hostname)) {
      return refuse(
        c,
        403,
        'studio.host',
        `The Studio answers only at a loopback address (http://127.0.0.1:${own.port || 80}/studio/ or http://localhost:${own.port || 80}/studio/); this request named the host '${own.host}'. Open it by that address, or serve it with SCULPTOR_CALLERS to reach it under another name.`,
      );
    }
    const origin = c.req.header('origin');
    if (origin !== undefined && origin !== own.origin) {
      return refuse(
        c,
        403,
        'studio.origin',
        `The Studio answers only its own page (${own.origin}); this request came from '${origin}'. Another web page cannot drive the Studio.`,
      );
    }
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
      if (type !== 'application/json') {
        return refuse(
          c,
          415,
          'studio.content_type',
          `The Studio's API takes application/json only (this request sent '${type || 'no content type'}').`,
        );
      }
    }
    return next();
  });
  // The API (not the page, which holds nothing) is behind the callers' authentication.
  app.use('/studio/api/*', async (c, next) => {
    const callers = options.callers?.();
    // Whether to ask for a token at all is the one thing the page learns unauthenticated.
    if (!callers || c.req.path === '/studio/api/auth') return next();
    try {
      const caller = await authenticate(callers, c.req.header('authorization'));
      // The Studio shows and runs every tool of the folder, with the folder's own credentials:
      // only a caller whose tenant may use every tool (no allowlist, no scopes narrowing it)
      // may open it, or a tenant's agent would reach tools and data its allowlist denies (D5).
      if (caller.tenant.tools !== undefined || (caller.identity && callers.identity?.scopes)) {
        throw new SculptorError(
          'auth.forbidden',
          `Caller '${caller.name}' acts for tenant '${caller.tenant.name}', whose tools are limited; the Studio needs a caller of a tenant without a tools allowlist (an operator's or designer's).`,
        );
      }
    } catch (err) {
      const error =
        err instanceof SculptorError ? err : new SculptorError('auth.invalid_token', 'Not authenticated.');
      const challenge = bearerChallenge(error);
      return refuse(
        c,
        error.code === 'auth.forbidden' ? 403 : 401,
        error.code,
        `${error.message} The Studio of this gateway is behind its callers' authentication: give the page a caller's token.`,
        challenge ? { 'www-authenticate': challenge } : {},
      );
    }
    return next();
  });

  if (options.root) app.get('/', (c) => c.redirect('/studio/'));
  app.get('/studio', (c) => c.redirect('/studio/'));
  app.get('/studio/', () => file(fileURLToPath(new URL('index.html', PUBLIC))));
  app.get('/studio/:asset{[a-z-]+\\.(js|css)}', (c) =>
    file(fileURLToPath(new URL(c.req.param('asset'), PUBLIC))),
  );
  app.get('/studio/vendor/:name', (c) => {
    const path = VENDOR[c.req.param('name')];
    return path ? file(path) : c.notFound();
  });

  app.get('/studio/api/auth', (c) => c.json({ guarded: options.callers?.() !== undefined }));
  app.get('/studio/api/catalog', (c) => c.json(workspace.catalog()));
  app.get('/studio/api/tools/:name', (c) => {
    const version = c.req.query('version');
    const views = workspace.views(c.req.param('name'), version ? Number(version) : undefined);
    return views ? c.json(views) : c.json({ error: 'No such tool.' }, 404);
  });
  app.get('/studio/api/tools/:name/diff', async (c) => {
    const choice: { from?: number; to?: number } = {};
    for (const end of ['from', 'to'] as const) {
      const text = c.req.query(end);
      if (text === undefined || text === '') continue;
      if (!/^\d+$/.test(text)) {
        const message = `'${end}' is a version number (1, 2, …); this request gave '${text}'.`;
        return c.json({ error: { code: 'studio.version', message } }, 400);
      }
      choice[end] = Number(text);
    }
    const diff = await workspace.diff(c.req.param('name'), choice);
    return diff
      ? c.json(diff)
      : c.json(
          { error: { code: 'studio.no_tool', message: `No version of '${c.req.param('name')}' compiles.` } },
          404,
        );
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
  mountTryModel(app, workspace, options.env ? { env: options.env } : {});
  app.onError((err, c) =>
    err instanceof SyntaxError
      ? c.json({ error: { code: 'studio.json', message: `The body is not JSON: ${err.message}` } }, 400)
      : (console.error(err),
        c.json({ error: { code: 'internal', message: 'The Studio failed; see its terminal.' } }, 500)),
  );
  // A cheap change feed: the page polls the generation and reloads the catalog when it moves.
  app.get('/studio/api/generation', (c) => c.json({ generation: workspace.generation() }));
  return app;
}
