/**
 * Path templates and path parameter values (RELIABILITY B2).
 *
 * Each value is percent-encoded as part of ONE segment: it can never add a
 * segment, climb with `..`, or start a query or fragment. Values that would
 * mean something else once a server decodes them (`..`, `a/b`, control
 * characters) are refused outright rather than encoded, since some servers
 * and proxies decode before routing.
 */
import type { OperationParameter } from './normalize-parameter.ts';
import { InvalidValue, jsonText, shapeValue } from './parameter-value.ts';

export const MAX_PATH_VALUE_LENGTH = 256;

export type TemplatePart = { literal: string } | { placeholder: string };

/** `/gridpoints/{wfo}/{x},{y}/forecast` → literals and placeholders, in order. */
export function parseTemplate(template: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let last = 0;
  for (const match of template.matchAll(/\{([^{}]+)\}/g)) {
    if (match.index > last) parts.push({ literal: template.slice(last, match.index) });
    parts.push({ placeholder: match[1]! });
    last = match.index + match[0].length;
  }
  if (last < template.length) parts.push({ literal: template.slice(last) });
  return parts;
}

/** The template's text before its first placeholder: what every built path starts with. */
export function staticPrefix(template: string): string {
  const brace = template.indexOf('{');
  return brace === -1 ? template : template.slice(0, brace);
}

/**
 * Literal template text, percent-encoding whatever RFC 3986 does not allow in
 * a path (spaces, quotes, non-ASCII, `\`…), so that the WHATWG URL parser
 * leaves the path exactly as built and the builder can compare it afterwards.
 * Existing `%XX` escapes are kept.
 */
export function encodePathLiteral(literal: string): string {
  return literal.replace(/%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~!$&'()*+,;=:@/%]/gu, (c) =>
    encodeURIComponent(c),
  );
}

/** Serializes one path parameter's value by its style; the result is ready to place in the path. */
export function serializePathValue(param: OperationParameter, value: unknown): string {
  if (param.mediaType !== undefined) return encodeURIComponent(checked(jsonText(value)));
  const { style, explode, name } = param;
  // Each piece of the value is encoded on its own; the style's delimiters stay literal.
  const enc = encodeURIComponent;
  const shaped = shapeValue(value);
  if (shaped.kind === 'primitive') {
    const text = checked(shaped.text);
    if (style === 'label') return `.${enc(text)}`;
    if (style === 'matrix') return `;${enc(name)}=${enc(text)}`;
    return enc(text);
  }
  const texts = shaped.kind === 'array' ? shaped.items : shaped.entries.flat();
  if (texts.length === 0) throw new InvalidValue('is empty');
  for (const text of texts) checked(text);
  if (shaped.kind === 'array') {
    const items = shaped.items.map(enc);
    if (style === 'label') return `.${items.join(explode ? '.' : ',')}`;
    if (style === 'matrix') {
      return explode ? items.map((i) => `;${enc(name)}=${i}`).join('') : `;${enc(name)}=${items.join(',')}`;
    }
    return items.join(DELIMITERS[style] ?? ',');
  }
  const pairs = shaped.entries.map(([k, v]) => [enc(k), enc(v)] as const);
  if (style === 'label')
    return `.${explode ? pairs.map(([k, v]) => `${k}=${v}`).join('.') : pairs.flat().join(',')}`;
  if (style === 'matrix') {
    return explode ? pairs.map(([k, v]) => `;${k}=${v}`).join('') : `;${enc(name)}=${pairs.flat().join(',')}`;
  }
  return explode ? pairs.map(([k, v]) => `${k}=${v}`).join(',') : pairs.flat().join(',');
}

/**
 * Array delimiters, already encoded, of the simple style and of the Swagger 2
 * collection formats found on path parameters (a comma is legal in a segment).
 */
const DELIMITERS: Record<string, string> = {
  simple: ',',
  form: ',',
  spaceDelimited: '%20',
  pipeDelimited: '%7C',
  tabDelimited: '%09',
};

function checked(text: string): string {
  if (text === '') throw new InvalidValue('is empty');
  if (text === '.' || text === '..') throw new InvalidValue(`may not be "${text}"`);
  if (/[/\\?#]/.test(text)) throw new InvalidValue('may not contain "/", "\\", "?" or "#"');
  if (/[\u0000-\u001f\u007f-\u009f]/.test(text)) throw new InvalidValue('may not contain control characters');
  if (text.length > MAX_PATH_VALUE_LENGTH) {
    throw new InvalidValue(`is longer than ${MAX_PATH_VALUE_LENGTH} characters`);
  }
  return text;
}
