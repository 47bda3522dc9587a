/**
 * What makes two requests "the same" for replay: the method, the path and the
 * query, where the query is a multiset of decoded (key, value) pairs — so
 * `name=New+York` equals `name=New%20York` and parameter order is irrelevant,
 * as it is for every backend Sculptor talks to. The host is ignored: one
 * replay server stands in for several backends at once.
 */

export interface RequestTarget {
  /** Path as received or recorded, still percent-encoded. */
  path: string;
  /** Query without the leading "?", still encoded; '' when there is none. */
  query: string;
}

/**
 * Splits a request target: origin-form (`/a?b`) as servers receive it, or an
 * absolute URL as recordings store it (and as a client using the replay
 * server as an HTTP proxy sends it).
 */
export function splitTarget(target: string): RequestTarget {
  let rest = target;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(rest) && URL.canParse(rest)) {
    const url = new URL(rest);
    rest = url.pathname + url.search;
  }
  const hash = rest.indexOf('#');
  if (hash >= 0) rest = rest.slice(0, hash);
  const question = rest.indexOf('?');
  const path = question >= 0 ? rest.slice(0, question) : rest;
  const query = question >= 0 ? rest.slice(question + 1) : '';
  return { path: path === '' ? '/' : path, query };
}

/** Path segments, each percent-decoded (an encoded "/" stays inside its segment). */
export function pathSegments(path: string): string[] {
  return path.split('/').map(safeDecode);
}

/** Decoded (key, value) pairs, sorted so that equal multisets compare equal. */
export function queryPairs(query: string): Array<[string, string]> {
  // URLSearchParams decodes "+" as a space and leaves malformed escapes as they are.
  const pairs = [...new URLSearchParams(query)];
  return pairs.sort((a, b) => compare(a[0], b[0]) || compare(a[1], b[1]));
}

export function requestKey(method: string, target: string): string {
  const { path, query } = splitTarget(target);
  return JSON.stringify([method.toUpperCase(), pathSegments(path), queryPairs(query)]);
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

// Code-unit order: stable whatever the locale.
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
