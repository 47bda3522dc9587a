import { type Context, Hono } from 'hono';
import type { ToolArguments } from '../../engine/validate-arguments.ts';
import { SculptorError } from '../../errors/sculptor-error.ts';
import { outputRecord } from '../../invoke/call-service.ts';
import { audienceOf } from '../../invoke/tool-audience.ts';
import { answering, type Face, type FaceOptions } from '../common/face.ts';
import { callAnswer } from '../common/call-answer.ts';
import type { OpenApiContribution } from '../common/openapi-fragments.ts';
import { rawPath } from '../common/raw-path.ts';
import { readJsonBody } from '../common/read-json-body.ts';
import { requestCaller, requestParty } from '../common/request-caller.ts';
import { DOCS_CSP, docsAsset, docsHtml } from './docs-page.ts';
import { openApiDocument } from './openapi-document.ts';
import { problemResponse } from '../common/problem-details.ts';

/** The same limit as an A2T invocation (RELIABILITY A1). */
export const MAX_CALL_BODY_BYTES = 64 * 1024;

export interface OpenApiFaceOptions extends FaceOptions {
  /** The other faces' endpoints for the document, read when a document is built. */
  contributions?: () => readonly OpenApiContribution[];
}

type OpenApiRoute = 'document' | 'docs' | 'asset' | 'call';

interface Match {
  route: OpenApiRoute;
  method: 'GET' | 'POST';
  template: string;
  /** The asset's file name, or the tool's name. */
  segment?: string;
}

/**
 * The OpenAPI face: the gateway described as an OpenAPI 3.1 document at
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
    return route(c, match);
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
          contributions: options.contributions?.() ?? [],
        });
        return c.body(text, 200, {
          'content-type': 'application/json',
          'cache-control': 'private, no-cache',
          vary: 'authorization',
        });
      }
      case 'call': {
        const found = requestCaller(c, options.callers?.());
        const caller = found instanceof Promise ? await found : found;
        const { outputs } = await options.calls.call({
          face: 'openapi',
          tool: { name: match.segment! },
          party: requestParty(c, caller),
          signal: c.req.raw.signal,
          arguments: () => readJsonBody(c, MAX_CALL_BODY_BYTES, 'the inputs') as Promise<ToolArguments>,
        });
        return callAnswer(outputRecord(outputs));
      }
    }
  };

  const refuse = (c: Context, error: SculptorError) => problemResponse(error, c.res.headers.get('allow'));
  const answered = answering(handle, refuse);
  app.all(`${prefix}/openapi.json`, answered);
  app.all(`${prefix}/docs`, answered);
  app.all(`${prefix}/docs/*`, answered);
  app.all(`${prefix}/call/*`, answered);
  return {
    name: 'openapi',
    app,
    routeOf(path) {
      const match = matchOf(path);
      return match ? `${prefix}${match.template}` : undefined;
    },
    refuse,
  };
}
