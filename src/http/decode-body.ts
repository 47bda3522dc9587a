/**
 * Turns a decoded body into what BackendResponse.body carries, by media type:
 * JSON (application/json and any +json) is parsed, text/* and XML
 * (application/xml, any +xml) become a string — XML is parsed by the
 * operation's codec, which knows its schema (src/xml, src/soap) —, anything
 * else is not kept. Whether that is acceptable is the caller's call.
 */
import { TextDecoder } from 'node:util';
import { SculptorError } from '../errors/sculptor-error.ts';
import { type JsonLimits, parseJson } from './parse-json.ts';

export type BodyKind = 'json' | 'text' | 'xml' | 'none';

/** The media type without parameters, lower-cased: "application/geo+json". '' when absent. */
export function mediaType(contentType: string | undefined): string {
  if (contentType === undefined) return '';
  return (contentType.split(';', 1)[0] ?? '').trim().toLowerCase();
}

export function bodyKind(essence: string): BodyKind {
  const slash = essence.indexOf('/');
  if (slash <= 0) return 'none';
  if (essence === 'application/json' || essence.endsWith('+json')) return 'json';
  if (essence === 'application/xml' || essence === 'text/xml' || essence.endsWith('+xml')) return 'xml';
  if (essence.startsWith('text/')) return 'text';
  return 'none';
}

/** The charset parameter, if any, lower-cased and unquoted. */
function charsetOf(contentType: string): string | undefined {
  for (const param of contentType.split(';').slice(1)) {
    const eq = param.indexOf('=');
    if (eq < 0) continue;
    if (param.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    return param
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
  }
  return undefined;
}

function textDecoderFor(charset: string | undefined): TextDecoder {
  if (charset !== undefined) {
    try {
      return new TextDecoder(charset);
    } catch {
      // Unknown label: fall back to UTF-8 rather than failing a text body.
    }
  }
  return new TextDecoder('utf-8');
}

/**
 * One decoder for every answer: `decode` without `{ stream: true }` keeps no
 * state between calls (a fatal error resets it too), and constructing one per
 * answer was measurable on the bench.
 */
const UTF8_STRICT = new TextDecoder('utf-8', { fatal: true });

/**
 * JSON is UTF-8 (RFC 8259 §8.1) whatever the charset parameter says; invalid
 * UTF-8 is an invalid answer. TextDecoder drops a leading BOM by default.
 */
function decodeJson(data: Buffer, limits: JsonLimits): unknown {
  let text: string;
  try {
    text = UTF8_STRICT.decode(data);
  } catch (err) {
    throw new SculptorError('upstream.invalid_response', 'The backend answer is not valid UTF-8.', {
      cause: err,
    });
  }
  if (text.length === 0) return undefined; // the body was only a BOM
  return parseJson(text, limits);
}

export function decodeBody(data: Buffer | undefined, contentType: string, limits: JsonLimits): unknown {
  if (data === undefined || data.length === 0) return undefined;
  switch (bodyKind(mediaType(contentType))) {
    case 'json':
      return decodeJson(data, limits);
    case 'text':
    case 'xml':
      return textDecoderFor(charsetOf(contentType)).decode(data);
    default:
      return undefined;
  }
}
