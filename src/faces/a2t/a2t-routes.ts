/**
 * The A2T routes, matched on the raw (still percent-encoded) path with
 * anchored patterns: `…:invoke:invoke`, `%3Ainvoke`, `;params`, `..%2F` and
 * double encodings never resolve to a tool (RELIABILITY A6). Hono's router
 * cannot express the `{toolId}:invoke` segment, and it decodes paths first.
 */
const UUID = '([0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12})';
const VERSION = '([1-9][0-9]{0,9})';

export type RouteName = 'listTools' | 'getTool' | 'listVersions' | 'getVersion' | 'invoke' | 'invokeVersion';

export interface A2tRoute {
  name: RouteName;
  method: 'GET' | 'POST';
  /** The route template: span names and metrics use it, never the raw path. */
  template: string;
  pattern: RegExp;
}

/** Tried in this order: invocations first, the most frequent requests (the patterns exclude one another). */
export const A2T_ROUTES: readonly A2tRoute[] = [
  {
    name: 'invoke',
    method: 'POST',
    template: '/tools/{toolId}:invoke',
    pattern: new RegExp(`^/tools/${UUID}:invoke$`),
  },
  {
    name: 'invokeVersion',
    method: 'POST',
    template: '/tools/{toolId}/versions/{version}:invoke',
    pattern: new RegExp(`^/tools/${UUID}/versions/${VERSION}:invoke$`),
  },
  { name: 'listTools', method: 'GET', template: '/tools', pattern: /^\/tools$/ },
  { name: 'getTool', method: 'GET', template: '/tools/{toolId}', pattern: new RegExp(`^/tools/${UUID}$`) },
  {
    name: 'listVersions',
    method: 'GET',
    template: '/tools/{toolId}/versions',
    pattern: new RegExp(`^/tools/${UUID}/versions$`),
  },
  {
    name: 'getVersion',
    method: 'GET',
    template: '/tools/{toolId}/versions/{version}',
    pattern: new RegExp(`^/tools/${UUID}/versions/${VERSION}$`),
  },
];

export interface RouteMatch {
  route: A2tRoute;
  toolId?: string;
  version?: number;
}

/** The route a path (below the platform root) names, whatever the method. */
export function matchRoute(path: string): RouteMatch | undefined {
  for (const route of A2T_ROUTES) {
    const m = route.pattern.exec(path);
    if (!m) continue;
    const match: RouteMatch = { route };
    if (m[1] !== undefined) match.toolId = m[1];
    if (m[2] !== undefined) match.version = Number(m[2]);
    return match;
  }
  return undefined;
}
