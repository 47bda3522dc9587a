/**
 * Header and cookie parameters. Header *names* only ever come from the
 * document (RELIABILITY B1); values are checked so they cannot split the
 * header block (CWE-113, RELIABILITY I2b) and are capped in length.
 */
import type { OperationParameter } from './normalize-parameter.ts';
import { InvalidValue, jsonText, shapeValue } from './parameter-value.ts';

export const MAX_HEADER_VALUE_BYTES = 1024;

/**
 * Headers that frame or route the message: the HTTP client owns them, a sculpt
 * never sets them (request smuggling, host confusion). Hop-by-hop headers
 * (RFC 9110 §7.6.1) are here for the same reason.
 */
const FORBIDDEN_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'upgrade',
]);

export function isForbiddenHeader(name: string): boolean {
  return FORBIDDEN_HEADERS.has(name.toLowerCase());
}

/** RFC 9110 `token`: what a header or cookie name may be. */
export function isToken(name: string): boolean {
  return /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name);
}

/** Simple style (the only one OAS defines for headers), or JSON for `content` parameters. */
export function serializeHeaderValue(param: OperationParameter, value: unknown): string {
  if (param.mediaType !== undefined) return checkedHeader(jsonText(value));
  const shaped = shapeValue(value);
  switch (shaped.kind) {
    case 'primitive':
      return checkedHeader(shaped.text);
    case 'array':
      return checkedHeader(shaped.items.join(','));
    case 'object':
      return checkedHeader(
        param.explode
          ? shaped.entries.map(([k, v]) => `${k}=${v}`).join(',')
          : shaped.entries.flat().join(','),
      );
  }
}

/** Form style cookie pairs (`name=value`), values percent-encoded so they cannot end the pair or the header. */
export function serializeCookieValue(param: OperationParameter, value: unknown): string[] {
  const name = param.name;
  const enc = encodeURIComponent;
  let pairs: string[];
  if (param.mediaType !== undefined) {
    pairs = [`${name}=${enc(jsonText(value))}`];
  } else {
    const shaped = shapeValue(value);
    if (shaped.kind === 'primitive') pairs = [`${name}=${enc(shaped.text)}`];
    else if (shaped.kind === 'array') {
      pairs = param.explode
        ? shaped.items.map((item) => `${name}=${enc(item)}`)
        : [`${name}=${shaped.items.map(enc).join(',')}`];
    } else {
      pairs = param.explode
        ? shaped.entries.map(([k, v]) => `${enc(k)}=${enc(v)}`)
        : [`${name}=${shaped.entries.flat().map(enc).join(',')}`];
    }
  }
  checkedHeader(pairs.join('; '));
  return pairs;
}

function checkedHeader(text: string): string {
  if (/[\r\n\0]/.test(text)) throw new InvalidValue('may not contain CR, LF or NUL');
  // What Node's HTTP client accepts in a field value (it throws ERR_INVALID_CHAR otherwise).
  if (/[^\t\x20-\x7e\x80-\xff]/.test(text))
    throw new InvalidValue('contains characters not allowed in an HTTP header');
  if (Buffer.byteLength(text, 'latin1') > MAX_HEADER_VALUE_BYTES) {
    throw new InvalidValue(`is longer than ${MAX_HEADER_VALUE_BYTES} bytes`);
  }
  return text;
}
