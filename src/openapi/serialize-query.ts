/**
 * Query parameters → encoded `name=value` pairs, by OAS 3 style. Names and
 * values use URLSearchParams (application/x-www-form-urlencoded) encoding, so
 * `New York, NY` becomes `New+York%2C+NY` as browsers and the recorded
 * exchanges send it. Array and object delimiters are added after encoding, so
 * a comma inside a value (`%2C`) stays distinguishable from the delimiter.
 */
import type { OperationParameter } from './normalize-parameter.ts';
import { InvalidValue, jsonText, shapeValue } from './parameter-value.ts';

/** Encoded delimiters for non-exploded arrays and objects (`|` and spaces are not legal raw in a URI). */
const DELIMITERS: Record<string, string> = {
  form: ',',
  spaceDelimited: '%20',
  pipeDelimited: '%7C',
  tabDelimited: '%09',
};

export function serializeQueryValue(param: OperationParameter, value: unknown): string[] {
  const name = formEncode(param.name);
  const enc = (text: string) => (param.allowReserved ? keepReserved(formEncode(text)) : formEncode(text));
  if (param.mediaType !== undefined) {
    return [`${name}=${enc(jsonText(value))}`];
  }
  const shaped = shapeValue(value);
  const { style, explode } = param;
  if (style === 'deepObject') {
    if (shaped.kind === 'array') throw new InvalidValue('deepObject style takes an object');
    if (shaped.kind === 'primitive') return [`${name}=${enc(shaped.text)}`];
    return shaped.entries.map(([k, v]) => `${formEncode(`${param.name}[${k}]`)}=${enc(v)}`);
  }
  const delimiter = DELIMITERS[style];
  if (delimiter === undefined)
    throw new InvalidValue(`style "${style}" is not supported for query parameters`);
  switch (shaped.kind) {
    case 'primitive':
      return [`${name}=${enc(shaped.text)}`];
    case 'array':
      if (explode) return shaped.items.map((item) => `${name}=${enc(item)}`);
      return [`${name}=${shaped.items.map(enc).join(delimiter)}`];
    case 'object':
      if (explode) return shaped.entries.map(([k, v]) => `${formEncode(k)}=${enc(v)}`);
      return [`${name}=${shaped.entries.flat().map(enc).join(delimiter)}`];
  }
}

/** application/x-www-form-urlencoded, exactly as URLSearchParams serializes. */
export function formEncode(text: string): string {
  return encodeURIComponent(text)
    .replace(/[!'()~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/**
 * `allowReserved: true` lets RFC 3986 reserved characters through unencoded,
 * except those that would change the query's structure once sent: `&` and `=`
 * (new pairs), `#` (fragment) and `+` (space in form encoding).
 */
function keepReserved(encoded: string): string {
  return encoded.replace(/%(3A|2F|3F|5B|5D|40|21|24|27|28|29|2A|2C|3B)/gi, (sequence) =>
    decodeURIComponent(sequence),
  );
}
