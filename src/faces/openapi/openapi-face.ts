import { type Context, Hono } from 'hono';
import { toolIdFor } from '../../compile/tool-signature.ts';
import type { ToolArguments } from '../../engine/validate-arguments.ts';
import { SculptorError, toSculptorError } from '../../errors/sculptor-error.ts';
import type { Face, FaceOptions } from '../shared/face.ts';
import { rawPath } from '../shared/raw-path.ts';
import { readJsonBody } from '../shared/read-json-body.ts';
import { admitInvocation, audienceOf, invocationCaller, requestCaller } from '../shared/request-caller.ts';
import { DOCS_CSP, docsAsset, docsHtml } from './docs-page.ts';
import { openApiDocument } from './openapi-document.ts';
import { problemResponse } from './openapi-errors.ts';

/** The same limit as an A2T invocation (RELIABILITY A1). */
export const MAX_CALL_BODY_BYTES = 64 * 1024;

export type OpenApiFaceOptions = FaceOptions;

type OpenApiRoute = 'document' | 'docs' | 'asset' | 'call';

interface Match {
  route: OpenApiRoute;
  method: 'GET' | 'POST';
  template: string;
  /** The asset's file name, or the tool's name. */
  segment?: string;
}

/**
 * The OpenAPI face (issue #16): the gateway described as an OpenAPI 3.1 document at
 * `{platform-root}/openapi.json` (the caller's tools only), a docs page at `{platform-root}/docs`
 * to read and try them, and the typed operations the document describes — `POST
 * {platform-root}/call/{name}`, the inputs as a JSON object, the outputs as one, errors as RFC
 * 9457 problem details — for plain software: scripts, workflow engines, generated clients.
 */
export function createOpenApiFace(options: OpenApiFaceOptions): Face {
  const prefix = options.prefix ?? '';
  const app = new Hono();

  const matchOf = (raw: string): Match | undefined => {
    if (!raw.startsWith(`${prefix}/`)) return undefined;
    const rest = raw.slice(prefix.length);
    if (rest === '/openapi.json') return { route: 'document', method: 'GET', template: '/openapi.json' };
    if (rest === '/docs' || rest === '/docs/') return { route: 'docs', method: 'GET', template: '/docs' };
    const asset = /^\/docs\/([^/]+)$/.exec(rest);
    if (asset) return { route: 'asset', method: 'GET', template: '/docs/{file}', segment: asset[1]! };
    const call = /^\/call\/([^/]+)$/.exec(rest);
    if (call) return { route: 'call', method: 'POST', template: '/call/{name}', segment: call[1]! };
    return undefined;
  };

  const handle = async (c: Context) => {
    const match = matchOf(rawPath(c));
    if (!match) throw new SculptorError('request.not_found', 'No such resource.');
    const method = c.req.method === 'HEAD' ? 'GET' : c.req.method;
    if (method !== match.method) {
      c.header('allow', match.method === 'GET' ? 'GET, HEAD' : 'POST');
      throw new SculptorError(
        'request.method_not_allowed',
        `Use ${match.method} on ${prefix}${match.template}.`,
      );
    }
    if (match.route !== 'call' || !options.admit) return route(c, match);
    // An invocation: admitted (shedding, rate, concurrency) before anything else is looked at.
    const release = await options.admit(c);
    try {
      return await route(c, match);
    } finally {
      release();
    }
  };

  const route = async (c: Context, match: Match): Promise<Response> => {
    switch (match.route) {
      case 'docs':
        return c.body(docsHtml(prefix, options.callers?.() !== undefined), 200, {
          'content-type': 'text/html; charset=utf-8',
          'content-security-policy': DOCS_CSP,
          'x-content-type-options': 'nosniff',
          'cache-control': 'no-cache',
        });
      case 'asset': {
        const asset = await docsAsset(match.segment!);
        if (!asset) throw new SculptorError('request.not_found', 'No such file of the docs page.');
        return c.body(typeof asset.body === 'string' ? asset.body : new Uint8Array(asset.body), 200, {
          'content-type': asset.type,
          'x-content-type-options': 'nosniff',
          'cache-control': 'public, max-age=3600',
        });
      }
      case 'document': {
        // The caller's tenant decides which tools the document holds (RELIABILITY D5).
        const callers = options.callers?.();
        const caller = await requestCaller(c, callers);
        const text = openApiDocument(options.catalog(), audienceOf(caller), {
          prefix,
          secured: callers !== undefined,
        });
        return c.body(text, 200, {
          'content-type': 'application/json',
          'cache-control': 'private, no-cache',
          vary: 'authorization',
        });
      }
      case 'call': {
        const caller = await requestCaller(c, options.callers?.());
        const tool = options.catalog().find(audienceOf(caller), toolIdFor(match.segment!));
        await admitInvocation(caller, tool.current, options.quotas);
        const body = await readJsonBody(c, MAX_CALL_BODY_BYTES, 'the inputs');
        const { outputs } = await options.engine.invoke(tool.current, body as ToolArguments, {
          signal: c.req.raw.signal,
          caller: invocationCaller(c, caller),
          ...(options.onInvocation ? { onReport: options.onInvocation } : {}),
        });
        c.header('cache-control', 'no-store');
        return c.json(Object.fromEntries(outputs.map((o) => [o.name, o.value])));
      }
    }
  };

  app.all(`${prefix}/openapi.json`, handle);
  app.all(`${prefix}/docs`, handle);
  app.all(`${prefix}/docs/*`, handle);
  app.all(`${prefix}/call/*`, handle);
  app.onError((err, c) => {
    const error = toSculptorError(err);
    // A tool the caller may not see answers like a missing one, named as it was asked for.
    const named =
      error.code === 'tool.not_found'
        ? new SculptorError('tool.not_found', `No tool named ${lastSegment(rawPath(c))}.`)
        : error;
    return problemResponse(named, c.res.headers.get('allow'));
  });
  return {
    name: 'openapi',
    app,
    routeOf(path) {
      const match = matchOf(path);
      return match ? `${prefix}${match.template}` : undefined;
    },
    refuse: (c, error) => problemResponse(error, c.res.headers.get('allow')),
  };
}

function lastSegment(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1).slice(0, 128);
}
