/**
 * A backend call's URL is read twice in the same turn: by the resilience layer (its origin, which
 * keys the bulkhead and the breaker) and then by the client (origin and path). The last URL
 * parsed is kept, so the second read costs a string comparison instead of a parse. Readers must
 * not modify the URL they are given.
 */
let lastText: string | undefined;
let lastUrl: URL | undefined;

/** `new URL(text)`, throwing as it does, or the same URL object as the previous call for the same text. */
export function parseUrl(text: string): URL {
  if (text === lastText && lastUrl !== undefined) return lastUrl;
  const url = new URL(text);
  lastText = text;
  lastUrl = url;
  return url;
}
