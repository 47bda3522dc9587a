import { createHash } from 'node:crypto';
import { type Context, Hono } from 'hono';
import type { ScopedCatalog, ToolAudience, ToolFilter } from '../../catalog/catalog.ts';
import type { PageCursors } from '../../catalog/page-cursor.ts';
import { SculptorError } from '../../errors/sculptor-error.ts';
import { matchRoute, type RouteMatch } from './a2t-routes.ts';
import { pageOf, parsePageCursor, parsePageLimit } from './paging.ts';
import { problemResponse } from '../common/problem-details.ts';
import { answering, type Face, type FaceOptions } from '../common/face.ts';
import { callAnswer } from '../common/call-answer.ts';
import { rawPath } from '../common/raw-path.ts';
import { readJsonBody } from '../common/read-json-body.ts';
import { audienceOf } from '../../invoke/tool-audience.ts';
import { requestCaller, requestParty } from '../common/request-caller.ts';
import { A2T_OPENAPI } from './a2t-openapi.ts';
import { listingJson } from './listing-json.ts';
import { readInvocation } from './read-invocation.ts';
import { signatureJson } from './served-signature.ts';

export const MAX_INVOKE_BODY_BYTES = 64 * 1024;

export interface A2tFaceOptions extends FaceOptions {
  cursors: PageCursors;
}

/**
 * The A2T face (draft §6–7): translates HTTP to catalog and engine calls and
 * errors to RFC 9457 problem details. No tool logic lives here.
 */
export function createA2tFace(options: A2tFaceOptions): Face {
  const prefix = options.prefix ?? '';
  const app = new Hono();

  const route = async (c: Context) => {
    // Every A2T route needs a caller (RELIABILITY D1), even to learn that a path does not exist.
    const found = requestCaller(c, options.callers?.());
    const caller = found instanceof Promise ? await found : found;
    const audience = audienceOf(caller);
    const raw = rawPath(c);
    const match = raw.startsWith(prefix) ? matchRoute(raw.slice(prefix.length)) : undefined;
    if (!match) throw new SculptorError('request.not_found', 'No such A2T resource.');
    const method = c.req.method === 'HEAD' ? 'GET' : c.req.method;
    if (method !== match.route.method) {
      c.header('allow', match.route.method === 'GET' ? 'GET, HEAD' : 'POST');
      throw new SculptorError(
        'request.method_not_allowed',
        `Use ${match.route.method} on ${match.route.template}.`,
      );
    }
    const catalog = options.catalog();
    switch (match.route.name) {
      case 'listTools':
        return json(c, listTools(c, catalog, audience, options.cursors));
      case 'getTool':
        return json(c, signatureJson(catalog, audience, catalog.find(audience, match.toolId!).current));
      case 'listVersions':
        return json(c, listVersions(c, catalog, audience, match, options.cursors));
      case 'getVersion':
        return json(
          c,
          signatureJson(catalog, audience, catalog.findVersion(audience, match.toolId!, match.version!)),
        );
      case 'invoke':
      case 'invokeVersion': {
        const { outputs } = await options.calls.call({
          face: 'a2t',
          tool: { id: match.toolId! },
          version: match.version,
          party: requestParty(c, caller),
          signal: c.req.raw.signal,
          // The envelope is read once the call is admitted; its problems are the invocation's.
          arguments: (tool) =>
            readJsonBody(c, MAX_INVOKE_BODY_BYTES, 'the invocation').then(
              (body) => () => readInvocation(tool, body),
            ),
        });
        return callAnswer({ output_parameters: outputs });
      }
    }
  };
  app.all(`${prefix}/tools`, answering(route, problem));
  app.all(`${prefix}/tools/*`, answering(route, problem));
  return {
    name: 'a2t',
    app,
    routeOf(path) {
      if (!path.startsWith(prefix)) return undefined;
      const match = matchRoute(path.slice(prefix.length));
      return match ? `${prefix}${match.route.template}` : undefined;
    },
    refuse: problem,
    openApi: A2T_OPENAPI,
  };
}

export function problem(c: Context, error: SculptorError): Response {
  return problemResponse(error, c.res.headers.get('allow'));
}

/** Serialized JSON, with the headers `c.json` would send (signatures are serialized once per catalog). */
function json(c: Context, body: string): Response {
  return c.body(body, 200, { 'Content-Type': 'application/json' });
}

function listTools(c: Context, catalog: ScopedCatalog, audience: ToolAudience, cursors: PageCursors): string {
  const limit = parsePageLimit(c.req.queries('pageLimit') ?? []);
  const cursor = parsePageCursor(c.req.queries('pageCursor') ?? []);
  const tags = [...new Set(c.req.queries('tag') ?? [])].sort();
  const versionText = c.req.queries('version') ?? [];
  if (versionText.length > 1 || (versionText[0] !== undefined && !/^[1-9][0-9]{0,9}$/.test(versionText[0]))) {
    throw new SculptorError('request.malformed', 'version must be one positive whole number.');
  }
  const version = versionText[0] === undefined ? undefined : Number(versionText[0]);
  // Listed: what this caller may call (its tenant's tools, within its token's scopes).
  const filter = { tags, audience, ...(version !== undefined ? { version } : {}) };
  const query = c.req.queries('q') ?? [];
  if (query.length > 1) throw new SculptorError('request.malformed', 'q may be given once.');
  if (query[0] !== undefined) return searchTools(catalog, query[0], filter, limit, cursor, cursors);
  // A cursor is bound to its listing, and a listing to the tenant it was made for (RELIABILITY A5).
  const listing = JSON.stringify(['tools', audience.key, tags, version ?? null]);
  const after = cursor === undefined ? undefined : cursors.decode(listing, cursor);
  const tools = catalog.list(filter, after, limit + 1);
  const { page, next } = pageOf(tools, limit, (t) => t.name, cursors, listing);
  return listingJson(
    page.map((t) => signatureJson(catalog, filter.audience, t.current)),
    { pageLimit: limit, next },
  );
}

/**
 * `GET /tools?q=…` (an extension of A2T): the same filters, most relevant first.
 * The cursor carries the rank the next page starts at, bound to the query; a reload between
 * pages may shift the ranking — the listing is a search, not an inventory.
 */
function searchTools(
  catalog: ScopedCatalog,
  query: string,
  filter: ToolFilter & { audience: ToolAudience },
  limit: number,
  cursor: string | undefined,
  cursors: PageCursors,
): string {
  // The query enters the listing as a digest: a cursor stays short whatever the query's length.
  const digest = createHash('sha256').update(query).digest('base64url');
  const listing = JSON.stringify([
    'search',
    filter.audience?.key ?? null,
    filter.tags,
    filter.version ?? null,
    digest,
  ]);
  const start = cursor === undefined ? 0 : Number(cursors.decode(listing, cursor));
  const ranked = catalog.search(query, filter, { offset: start, limit: limit + 1 }).items;
  const page = ranked.slice(0, limit);
  const next = ranked.length > limit ? cursors.encode(listing, String(start + limit)) : null;
  return listingJson(
    page.map((t) => signatureJson(catalog, filter.audience, t.current)),
    { pageLimit: limit, next },
  );
}

function listVersions(
  c: Context,
  catalog: ScopedCatalog,
  audience: ToolAudience,
  match: RouteMatch,
  cursors: PageCursors,
): string {
  const tool = catalog.find(audience, match.toolId!);
  const limit = parsePageLimit(c.req.queries('pageLimit') ?? []);
  const cursor = parsePageCursor(c.req.queries('pageCursor') ?? []);
  const listing = JSON.stringify(['versions', audience.key, tool.toolId]);
  const after = cursor === undefined ? undefined : Number(cursors.decode(listing, cursor));
  const versions = tool.versions.filter((v) => after === undefined || v.signature.version < after);
  const { page, next } = pageOf(versions, limit, (v) => String(v.signature.version), cursors, listing);
  return listingJson(
    page.map((v) => signatureJson(catalog, audience, v)),
    { pageLimit: limit, next },
  );
}
