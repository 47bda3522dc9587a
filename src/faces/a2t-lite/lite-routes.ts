/**
 * The a2t-lite routes (docs/protocols/a2t-lite.md), below the face's base
 * `{platform-root}/lite`, matched on the raw (still percent-encoded) path with anchored patterns,
 * like A2T's: a name or group id is one raw segment, compared as sent, so `%2e`, `;x` or an encoded
 * `/` never resolve to a tool or a group. The capabilities file is also served at the origin's
 * root (`/.well-known/a2t-capabilities.json`, RFC 8615), where a client looks for it first.
 */
export type LiteRouteName = 'capabilities' | 'listTools' | 'call' | 'listGroups' | 'groupTools' | 'groupCall';

export interface LiteRoute {
  name: LiteRouteName;
  method: 'GET' | 'POST';
  /** The route template below the base: span names and metrics use it, never the raw path. */
  template: string;
  pattern: RegExp;
}

const SEGMENT = '([^/]+)';
export const CAPABILITIES_PATH = '/.well-known/a2t-capabilities.json';

export const LITE_ROUTES: readonly LiteRoute[] = [
  {
    name: 'capabilities',
    method: 'GET',
    template: CAPABILITIES_PATH,
    pattern: /^\/\.well-known\/a2t-capabilities\.json$/,
  },
  { name: 'listTools', method: 'GET', template: '/tools', pattern: /^\/tools$/ },
  { name: 'call', method: 'POST', template: '/tools/{name}', pattern: new RegExp(`^/tools/${SEGMENT}$`) },
  { name: 'listGroups', method: 'GET', template: '/groups', pattern: /^\/groups$/ },
  {
    name: 'groupTools',
    method: 'GET',
    template: '/groups/{id}/tools',
    pattern: new RegExp(`^/groups/${SEGMENT}/tools$`),
  },
  {
    name: 'groupCall',
    method: 'POST',
    template: '/groups/{id}/tools/{name}',
    pattern: new RegExp(`^/groups/${SEGMENT}/tools/${SEGMENT}$`),
  },
];

export interface LiteRouteMatch {
  route: LiteRoute;
  /** The group id of `/groups/{id}/…`. */
  groupId?: string;
  /** The tool name of `…/tools/{name}`. */
  name?: string;
}

/** The route a path below the face's base names, whatever the method. */
export function matchLiteRoute(path: string): LiteRouteMatch | undefined {
  for (const route of LITE_ROUTES) {
    const m = route.pattern.exec(path);
    if (!m) continue;
    switch (route.name) {
      case 'call':
        return { route, name: m[1]! };
      case 'groupTools':
        return { route, groupId: m[1]! };
      case 'groupCall':
        return { route, groupId: m[1]!, name: m[2]! };
      default:
        return { route };
    }
  }
  return undefined;
}
