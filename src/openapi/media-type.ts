/**
 * Media type helpers shared by the loader (which picks the request/response
 * media type to keep) and the request builder (which sets content-type and
 * accept). The gateway only speaks JSON to backends, so "JSON-ish" is the one
 * question that matters.
 */

/** The `type/subtype` part, lower-cased, without parameters such as `; charset=utf-8`. */
export function essence(mediaType: string): string {
  return (mediaType.split(';', 1)[0] ?? '').trim().toLowerCase();
}

/**
 * True for `application/json` and every structured-syntax `+json` type
 * (`application/geo+json`, `application/problem+json`, `application/ld+json`…),
 * with or without parameters.
 */
export function isJsonMediaType(mediaType: string): boolean {
  const type = essence(mediaType);
  return type === 'application/json' || /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+\+json$/.test(type);
}

/** `*\/*` and `application/*` accept a JSON body, so a JSON body may be sent to them. */
export function acceptsJson(mediaType: string): boolean {
  const type = essence(mediaType);
  return type === '*/*' || type === 'application/*' || isJsonMediaType(type);
}

/** The media types in their document order, JSON ones first. */
export function jsonFirst(mediaTypes: readonly string[]): string[] {
  return [...mediaTypes.filter(isJsonMediaType), ...mediaTypes.filter((t) => !isJsonMediaType(t))];
}
