import { createHash } from 'node:crypto';
import { type Context, Hono } from 'hono';
import { authenticate } from '../../callers/authenticate.ts';
import type { Caller, CallerDirectory } from '../../callers/load-callers.ts';
import type { QuotaCheck } from '../../callers/quotas.ts';
import type { Catalog, ToolFilter } from '../../catalog/catalog.ts';
import { listingJson } from '../../catalog/listing-json.ts';
import type { PageCursors } from '../../catalog/page-cursor.ts';
import type { CompiledTool } from '../../compile/compile-tool.ts';
import type { Engine, InvocationReport } from '../../engine/invoke-tool.ts';
import { SculptorError, toSculptorError } from '../../errors/sculptor-error.ts';
import { matchRoute, type RouteMatch } from './a2t-routes.ts';
import { pageOf, parsePageCursor, parsePageLimit } from './paging.ts';
import { problemBody, problemHeaders } from './problem-details.ts';
import { rawPath } from './raw-path.ts';
import { readInvocation } from './read-invocation.ts';
import { readRequestBody } from './read-request-body.ts';

export const MAX_INVOKE_BODY_BYTES = 64 * 1024;

export interface A2tFaceOptions {
  /** The catalog in force; read per request, so a reload swaps it atomically. */
  catalog: () => Catalog;
  engine: Engine;
  cursors: PageCursors;
  /** The draft's {platform-root}: '' or a path such as '/a2t'. */
  prefix?: string;
  onInvocation?: (report: InvocationReport) => void;
  /**
   * The callers file in force (read per request, so a reload swaps it); when it
   * returns undefined every request is the anonymous caller of one tenant.
   */
  callers?: () => CallerDirectory | undefined;
  /** Per-tenant quotas from the callers file, counted per invocation. */
  quotas?: QuotaCheck;
}

/**
 * The A2T face (draft §6–7): translates HTTP to catalog and engine calls and
 * errors to RFC 9457 problem details. No tool logic lives here.
 */
export function createA2tFace(options: A2tFaceOptions): Hono {
  const prefix = options.prefix ?? '';
  const app = new Hono();

  const handle = async (c: Context) => {
    // Every A2T route needs a caller (RELIABILITY D1), even to learn that a path does not exist.
    const caller = await authenticate(options.callers?.(), c.req.header('authorization'));
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
        return json(c, listTools(c, catalog, caller, options.cursors));
      case 'getTool':
        return json(c, catalog.signatureJson(findTool(catalog, caller, match).current));
      case 'listVersions':
        return json(c, listVersions(c, catalog, caller, match, options.cursors));
      case 'getVersion':
        return json(c, catalog.signatureJson(findVersion(catalog, caller, match)));
      case 'invoke':
      case 'invokeVersion': {
        const tool =
          match.version === undefined
            ? findTool(catalog, caller, match).current
            : findVersion(catalog, caller, match);
        requireScopes(caller, tool.signature.name);
        await options.quotas?.take(caller.tenant, tool.signature.name);
        const args = readInvocation(tool, await readJsonBody(c));
        const result = await options.engine.invoke(tool, args, {
          signal: c.req.raw.signal,
          caller: {
            tenant: caller.tenant.name,
            context: caller.context,
            credentials: caller.tenant.credentials,
            ...(caller.identity ? { identity: caller.identity } : {}),
            // Only the headers a backend's explicit pass-through names are ever read.
            presented: (header) => c.req.header(header),
          },
          ...(options.onInvocation ? { onReport: options.onInvocation } : {}),
        });
        c.header('cache-control', 'no-store');
        return c.json({ output_parameters: result.outputs });
      }
    }
  };
  app.all(`${prefix}/tools`, handle);
  app.all(`${prefix}/tools/*`, handle);
  app.onError((err, c) => problem(c, toSculptorError(err)));
  return app;
}

export function problem(c: Context, error: SculptorError): Response {
  const allow = c.res.headers.get('allow');
  const headers = problemHeaders(error);
  if (allow) headers.allow = allow;
  return new Response(JSON.stringify(problemBody(error)), { status: error.status, headers });
}

/** Serialized JSON, with the headers `c.json` would send (signatures are serialized once per catalog). */
function json(c: Context, body: string): Response {
  return c.body(body, 200, { 'Content-Type': 'application/json' });
}

function listTools(c: Context, catalog: Catalog, caller: Caller, cursors: PageCursors): string {
  const limit = parsePageLimit(c.req.queries('pageLimit') ?? []);
  const cursor = parsePageCursor(c.req.queries('pageCursor') ?? []);
  const tags = [...new Set(c.req.queries('tag') ?? [])].sort();
  const versionText = c.req.queries('version') ?? [];
  if (versionText.length > 1 || (versionText[0] !== undefined && !/^[1-9][0-9]{0,9}$/.test(versionText[0]))) {
    throw new SculptorError('request.malformed', 'version must be one positive whole number.');
  }
  const version = versionText[0] === undefined ? undefined : Number(versionText[0]);
  const filter = {
    tags,
    // Listed: what this caller may call (its tenant's tools, within its token's scopes).
    allowed: (name: string) => caller.tenant.allows(name) && caller.missingScopes(name).length === 0,
    ...(version !== undefined ? { version } : {}),
  };
  const query = c.req.queries('q') ?? [];
  if (query.length > 1) throw new SculptorError('request.malformed', 'q may be given once.');
  if (query[0] !== undefined) return searchTools(catalog, query[0], filter, limit, cursor, cursors, caller);
  // A cursor is bound to its listing, and a listing to the tenant it was made for (RELIABILITY A5).
  const listing = JSON.stringify(['tools', caller.tenant.name, tags, version ?? null]);
  const after = cursor === undefined ? undefined : cursors.decode(listing, cursor);
  const tools = catalog.list(filter, after, limit + 1);
  const { page, next } = pageOf(tools, limit, (t) => t.name, cursors, listing);
  return listingJson(
    page.map((t) => catalog.signatureJson(t.current)),
    { pageLimit: limit, next },
  );
}

/**
 * `GET /tools?q=…` (an extension of A2T, issue #16): the same filters, most relevant first.
 * The cursor carries the rank the next page starts at, bound to the query; a reload between
 * pages may shift the ranking — the listing is a search, not an inventory.
 */
function searchTools(
  catalog: Catalog,
  query: string,
  filter: ToolFilter,
  limit: number,
  cursor: string | undefined,
  cursors: PageCursors,
  caller: Caller,
): string {
  // The query enters the listing as a digest: a cursor stays short whatever the query's length.
  const digest = createHash('sha256').update(query).digest('base64url');
  const listing = JSON.stringify(['search', caller.tenant.name, filter.tags, filter.version ?? null, digest]);
  const start = cursor === undefined ? 0 : Number(cursors.decode(listing, cursor));
  const ranked = catalog.search(query, filter, { offset: start, limit: limit + 1 }).items;
  const page = ranked.slice(0, limit);
  const next = ranked.length > limit ? cursors.encode(listing, String(start + limit)) : null;
  return listingJson(
    page.map((t) => catalog.signatureJson(t.current)),
    { pageLimit: limit, next },
  );
}

function listVersions(
  c: Context,
  catalog: Catalog,
  caller: Caller,
  match: RouteMatch,
  cursors: PageCursors,
): string {
  const tool = findTool(catalog, caller, match);
  const limit = parsePageLimit(c.req.queries('pageLimit') ?? []);
  const cursor = parsePageCursor(c.req.queries('pageCursor') ?? []);
  const listing = JSON.stringify(['versions', caller.tenant.name, tool.toolId]);
  const after = cursor === undefined ? undefined : Number(cursors.decode(listing, cursor));
  const versions = tool.versions.filter((v) => after === undefined || v.signature.version < after);
  const { page, next } = pageOf(versions, limit, (v) => String(v.signature.version), cursors, listing);
  return listingJson(
    page.map((v) => catalog.signatureJson(v)),
    { pageLimit: limit, next },
  );
}

/**
 * A tool the caller's tenant may use but its token's scopes do not grant: 403 naming the
 * scopes to ask the identity provider for (RFC 6750 insufficient_scope), not a 404 — the
 * tenant may know the tool; the token is what falls short.
 */
function requireScopes(caller: Caller, toolName: string): void {
  const missing = caller.missingScopes(toolName);
  if (missing.length === 0) return;
  throw new SculptorError(
    'auth.insufficient_scope',
    `Your token's scopes do not grant ${toolName}: ask the identity provider for ${missing.join(' or ')}.`,
    { scopes: missing },
  );
}

/** A tool the caller's tenant may not use is answered exactly like one that does not exist (D5). */
function findTool(catalog: Catalog, caller: Caller, match: RouteMatch) {
  const found = catalog.tool(match.toolId!);
  const tool = found && caller.tenant.allows(found.name) ? found : undefined;
  if (!tool) throw new SculptorError('tool.not_found', `No tool with id ${match.toolId}.`);
  return tool;
}

function findVersion(catalog: Catalog, caller: Caller, match: RouteMatch): CompiledTool {
  const tool = findTool(catalog, caller, match);
  const version = catalog.version(tool.toolId, match.version!);
  if (!version) {
    throw new SculptorError(
      'tool.version_not_found',
      `${tool.name} has no version ${match.version}; versions: ${tool.versions.map((v) => v.signature.version).join(', ')}.`,
    );
  }
  return version;
}

/** JSON only (RELIABILITY A9): `application/json`, optionally `; charset=utf-8`. */
async function readJsonBody(c: Context): Promise<unknown> {
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/json\s*(;\s*charset="?utf-8"?\s*)?$/i.test(type.trim())) {
    throw new SculptorError('request.unsupported_media_type', 'Send the invocation as application/json.');
  }
  // Counted on the streamed bytes, chunked bodies included (RELIABILITY A1).
  const text = await readRequestBody(c, MAX_INVOKE_BODY_BYTES);
  try {
    return JSON.parse(text);
  } catch {
    throw new SculptorError('request.malformed', 'The body is not valid JSON.');
  }
}
