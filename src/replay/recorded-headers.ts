/**
 * Recorded headers are kept as one string per lower-cased name: HTTP names are
 * case-insensitive and recorders disagree on case (one vcrpy cassette here has
 * both `Content-Length` and `content-length`), so a single spelling makes
 * look-ups predictable.
 *
 * Repeated fields are joined with ", " (RFC 9110 §5.3) except Set-Cookie,
 * whose values may contain commas: those are joined with "\n", which cannot
 * occur inside a header value, and split again when answering.
 */

export type RecordedHeaders = Record<string, string>;

const SET_COOKIE = 'set-cookie';

export function emptyHeaders(): RecordedHeaders {
  // No prototype: a header named "__proto__" or "constructor" stays a header.
  return Object.create(null) as RecordedHeaders;
}

export function addHeader(headers: RecordedHeaders, name: string, value: string): void {
  const key = name.toLowerCase();
  const prior = headers[key];
  headers[key] = prior === undefined ? value : prior + (key === SET_COOKIE ? '\n' : ', ') + value;
}

/** The values to put on the wire for one recorded header. */
export function wireValues(name: string, value: string): string | string[] {
  return name === SET_COOKIE ? value.split('\n') : value;
}
