import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';

/**
 * The path exactly as the client sent it. `c.req.url` went
 * through WHATWG URL parsing, which removes dot segments — `.`, `..`, `%2e`,
 * `%2E%2e` — and turns `\` into `/`, so `/foo/../tools/<id>:invoke` would
 * reach the tool while a proxy's path rules saw `/foo/…`. Outside Node (a
 * test's `app.request`) there is no raw target, and the parsed path is used.
 */
export function rawPath(c: Context): string {
  return rawRequestPath(c.env as Partial<HttpBindings> | undefined, c.req.url);
}

/** rawPath, from the request's Node bindings (when served by @hono/node-server) and its URL. */
export function rawRequestPath(env: { incoming?: { url?: string } } | undefined, url: string): string {
  const target = env?.incoming?.url;
  if (target === undefined) return new URL(url).pathname;
  // Absolute form (`GET http://host/path`): drop the scheme and authority. The usual origin form
  // starts with '/' and is read with no regular expression.
  const path = target.startsWith('/') ? target : target.replace(ABSOLUTE_FORM_PREFIX, '');
  const query = path.indexOf('?');
  const fragment = path.indexOf('#');
  const end = query === -1 ? fragment : fragment === -1 ? query : Math.min(query, fragment);
  return end === -1 ? path : path.slice(0, end);
}

const ABSOLUTE_FORM_PREFIX = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i;

/** Whether a raw path has a `.` or `..` segment, percent-encoded or not, between `/` or `\`. */
export function hasDotSegment(path: string): boolean {
  // Most paths have neither a dot nor a percent sign: no regex for them.
  return (path.includes('.') || path.includes('%')) && DOT_SEGMENT.test(path);
}

/** A segment of one or two dots, plain or %2e, between separators (or the path's ends). */
const DOT_SEGMENT = /(?:^|[/\\])(?:\.|%2e){1,2}(?=$|[/\\])/i;
