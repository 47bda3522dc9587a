import { type Context, Hono } from 'hono';
import type { CatalogTool, ScopedCatalog, ToolAudience } from '../../catalog/catalog.ts';
import type { ToolArguments } from '../../engine/validate-arguments.ts';
import { outputRecord } from '../../invoke/call-service.ts';
import { audienceOf } from '../../invoke/tool-audience.ts';
import { SculptorError } from '../../errors/sculptor-error.ts';
import { answering, type Face, type FaceOptions } from '../common/face.ts';
import { callAnswer } from '../common/call-answer.ts';
import { rawPath } from '../common/raw-path.ts';
import { readJsonBody } from '../common/read-json-body.ts';
import { requestCaller, requestParty } from '../common/request-caller.ts';
import { liteError } from './lite-errors.ts';
import { liteGroup, liteTool, visibleGroups } from './lite-json.ts';
import { LITE_OPENAPI } from './lite-openapi.ts';
import { CAPABILITIES_PATH, type LiteRouteMatch, matchLiteRoute } from './lite-routes.ts';

/** The same limit as an A2T invocation (RELIABILITY A1). */
export const MAX_CALL_BODY_BYTES = 64 * 1024;
/** The most a listing answers at once, and what it answers without `limit` (the seed's figures). */
export const MAX_TOOLS_PER_REQUEST = 100;
export const MAX_GROUPS_PER_REQUEST = 50;

export type A2tLiteFaceOptions = FaceOptions;

/**
 * The a2t-lite face (docs/protocols/a2t-lite.md): a capabilities file, tools and
 * groups listed by offset with a total, search (`q`), and `POST /tools/{name}` with the
 * arguments as a plain JSON object, answering `{"result": {outputs…}}` or
 * `{"error": {"code", "message"}}`. Mounted at `{platform-root}/lite`: A2T owns
 * `{platform-root}/tools`, whose listing has another shape. Tenancy, scopes, quotas, the
 * invocation gate, deadlines and telemetry are the engine's and faces/common's, as on A2T.
 */
export function createA2tLiteFace(options: A2tLiteFaceOptions): Face {
  const base = `${options.prefix ?? ''}/lite`;
  const app = new Hono();

  /** The route of a raw path: below the base, or the capabilities file at the origin's root. */
  const matchOf = (raw: string): LiteRouteMatch | undefined => {
    if (raw === CAPABILITIES_PATH) return matchLiteRoute(raw);
    if (!raw.startsWith(`${base}/`)) return undefined;
    return matchLiteRoute(raw.slice(base.length));
  };

  const handle = async (c: Context) => {
    const match = matchOf(rawPath(c));
    if (!match) throw new SculptorError('request.not_found', 'No such a2t-lite resource.');
    const method = c.req.method === 'HEAD' ? 'GET' : c.req.method;
    if (method !== match.route.method) {
      c.header('allow', match.route.method === 'GET' ? 'GET, HEAD' : 'POST');
      throw new SculptorError(
        'request.method_not_allowed',
        `Use ${match.route.method} on ${match.route.name === 'capabilities' ? CAPABILITIES_PATH : base + match.route.template}.`,
      );
    }
    if (match.route.name === 'capabilities') return c.json(capabilities(options.catalog(), base));
    return route(c, match);
  };

  const route = async (c: Context, match: LiteRouteMatch) => {
    // Every listing and call needs a caller (RELIABILITY D1); what it sees is its tenant's.
    const found = requestCaller(c, options.callers?.());
    const caller = found instanceof Promise ? await found : found;
    const audience = audienceOf(caller);
    const catalog = options.catalog();
    switch (match.route.name) {
      case 'listTools':
        return c.json(listTools(c, catalog, audience));
      case 'listGroups':
        return c.json(listGroups(c, catalog, audience));
      case 'groupTools': {
        const seen = visibleGroups(catalog, audience).get(match.groupId!);
        if (!seen) throw noGroup(match.groupId!);
        return c.json(listTools(c, catalog, audience, seen.tools));
      }
      case 'call':
      case 'groupCall': {
        const outcome = await options.calls.call({
          face: 'a2t-lite',
          tool: { name: match.name! },
          party: requestParty(c, caller),
          signal: c.req.raw.signal,
          arguments: () => readJsonBody(c, MAX_CALL_BODY_BYTES, 'the arguments') as Promise<ToolArguments>,
        });
        const meta =
          match.groupId === undefined
            ? undefined
            : groupRefresh(outcome.catalog, audience, match.groupId, outcome.entry);
        const result = outputRecord(outcome.outputs);
        return callAnswer(meta ? { result, meta } : { result });
      }
      case 'capabilities':
        return c.json(capabilities(catalog, base));
    }
  };

  const answered = answering(handle, (c, error) => liteError(error, c.res.headers.get('allow')));
  app.all(CAPABILITIES_PATH, answered);
  app.all(base, answered);
  app.all(`${base}/*`, answered);
  return {
    name: 'a2t-lite',
    app,
    routeOf(path) {
      const match = matchOf(path);
      if (!match) return undefined;
      return match.route.name === 'capabilities' && path === CAPABILITIES_PATH
        ? CAPABILITIES_PATH
        : `${base}${match.route.template}`;
    },
    refuse: (c, error) => liteError(error, c.res.headers.get('allow')),
    openApi: LITE_OPENAPI,
  };
}

/** What the server offers, with the face's real paths (`{platform-root}/lite/…`). */
function capabilities(catalog: ScopedCatalog, base: string) {
  return {
    version: '1.0',
    features: {
      groups: catalog.groups().next().done !== true,
      search: true,
      // The catalog changes only by a reload: no call adds tools (see the `group_refresh` meta).
      dynamic_tools: false,
    },
    endpoints: { tools: `${base}/tools`, groups: `${base}/groups` },
    limits: { max_tools_per_request: MAX_TOOLS_PER_REQUEST, max_groups_per_request: MAX_GROUPS_PER_REQUEST },
  };
}

/**
 * A call made through a group the tool is not in (any more): its folder was renamed or the tool
 * moved by a reload since the client listed the group. Tool names are unique on the gateway, so
 * the call is made, and the answer tells the client which groups to list again: the group it
 * called through (changed or gone) and every group now holding the tool. Nothing else is ever
 * sent as meta: a call adds no tools (`dynamic_tools: false`).
 */
function groupRefresh(
  catalog: ScopedCatalog,
  audience: ToolAudience,
  groupId: string,
  tool: CatalogTool,
): { type: 'group_refresh'; group_ids: string[] } | undefined {
  const groups = visibleGroups(catalog, audience);
  if (groups.get(groupId)?.tools.includes(tool)) return undefined;
  const ids = [groupId];
  for (let id = catalog.groupOf(tool); id !== null; id = groups.get(id)?.group.parentId ?? null) ids.push(id);
  return { type: 'group_refresh', group_ids: ids };
}

function noGroup(id: string): SculptorError {
  return new SculptorError('request.not_found', `No group ${id.slice(0, 128)}; GET /groups lists them.`);
}

/** `limit`: a whole number, clamped to 1…max and echoed (as A2T's pageLimit); `max` when absent. */
function parseLimit(c: Context, max: number): number {
  const values = c.req.queries('limit') ?? [];
  if (values.length === 0) return max;
  if (values.length > 1 || !/^-?\d{1,12}$/.test(values[0]!)) {
    throw new SculptorError('request.bad_paging', `limit must be one whole number (1 to ${max}).`);
  }
  return Math.min(max, Math.max(1, Number(values[0])));
}

/** `offset`: a whole number, 0 or more; past the end the page is empty and `total` still true. */
function parseOffset(c: Context): number {
  const values = c.req.queries('offset') ?? [];
  if (values.length === 0) return 0;
  if (values.length > 1 || !/^\d{1,12}$/.test(values[0]!)) {
    throw new SculptorError('request.bad_paging', 'offset must be one whole number, 0 or more.');
  }
  return Number(values[0]);
}

/** One query parameter given at most once; an empty one is as good as none. */
function single(c: Context, name: string): string | undefined {
  const values = c.req.queries(name) ?? [];
  if (values.length > 1) throw new SculptorError('request.malformed', `${name} may be given once.`);
  return values[0];
}

/**
 * `GET /tools` (every tool the caller may call) and `GET /groups/{id}/tools` (`group`: those of
 * one group), by name; with `q`, those matching, most relevant first (the catalog's search, BM25).
 */
function listTools(
  c: Context,
  catalog: ScopedCatalog,
  audience: ToolAudience,
  group?: readonly CatalogTool[],
) {
  const limit = parseLimit(c, MAX_TOOLS_PER_REQUEST);
  const offset = parseOffset(c);
  const q = single(c, 'q')?.trim();
  let total: number;
  let page: CatalogTool[];
  if (q && group) {
    const within = new Set(group);
    const found = catalog.search(q, { audience }).items.filter((t) => within.has(t));
    total = found.length;
    page = found.slice(offset, offset + limit);
  } else if (q) {
    ({ total, items: page } = catalog.search(q, { audience }, { offset, limit }));
  } else {
    const pool = group ?? catalog.list({ audience });
    total = pool.length;
    page = pool.slice(offset, offset + limit);
  }
  return { tools: page.map((t) => liteTool(catalog, t)), total, offset, limit };
}

/**
 * `GET /groups`: every group the caller can see, by id; `parent_id=X` only X's direct subgroups
 * (404 when X is not a group it can see), `parent_id=` (empty) only the top-level ones; `q` ranks
 * groups by their names and their tools' words (Catalog.searchGroups).
 */
function listGroups(c: Context, catalog: ScopedCatalog, audience: ToolAudience) {
  const limit = parseLimit(c, MAX_GROUPS_PER_REQUEST);
  const offset = parseOffset(c);
  const q = single(c, 'q')?.trim();
  const parent = single(c, 'parent_id');
  const groups = visibleGroups(catalog, audience);
  if (parent !== undefined && parent !== '' && !groups.has(parent)) throw noGroup(parent);
  const keep = (id: string, parentId: string | null) =>
    groups.has(id) && (parent === undefined || parentId === (parent === '' ? null : parent));
  let total: number;
  let ids: string[];
  if (q) {
    const found = catalog.searchGroups(q, { audience }, (g) => keep(g.id, g.parentId), { offset, limit });
    total = found.total;
    ids = found.items.map((g) => g.id);
  } else {
    const all = [...groups.values()].filter((v) => keep(v.group.id, v.group.parentId)).map((v) => v.group.id);
    total = all.length;
    ids = all.slice(offset, offset + limit);
  }
  return { groups: ids.map((id) => liteGroup(groups.get(id)!, groups)), total, offset, limit };
}
