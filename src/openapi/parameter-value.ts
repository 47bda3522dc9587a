/**
 * The shapes a parameter value may take before a style serializes it
 * (OAS 3 "Style Examples": primitive, array of primitives, object of
 * primitives), and their text forms. Anything else is a caller mistake the
 * builder reports as `input.invalid` for that parameter.
 */

/** Thrown by serializers for one parameter; the builder turns it into an `InputProblem`. */
export class InvalidValue extends Error {
  override readonly name = 'InvalidValue';
}

export type ShapedValue =
  | { kind: 'primitive'; text: string }
  | { kind: 'array'; items: string[] }
  | { kind: 'object'; entries: [string, string][] };

export function shapeValue(value: unknown): ShapedValue {
  if (Array.isArray(value))
    return { kind: 'array', items: value.map((item) => primitiveText(item, 'array items')) };
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).map(([k, v]): [string, string] => [
      k,
      primitiveText(v, 'object members'),
    ]);
    return { kind: 'object', entries };
  }
  return { kind: 'primitive', text: primitiveText(value, 'the value') };
}

/** Strings as they are, booleans as true/false, numbers in JSON form. */
export function primitiveText(value: unknown, what: string): string {
  switch (typeof value) {
    case 'string':
      // Lone surrogates cannot be UTF-8 encoded; URL encoding would throw or mangle them.
      if (!value.isWellFormed()) throw new InvalidValue('contains unpaired UTF-16 surrogates');
      return value;
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new InvalidValue(`${what} must be finite numbers`);
      return JSON.stringify(value);
    case 'bigint':
      return value.toString();
    default:
      throw new InvalidValue(`${what} must be strings, numbers or booleans`);
  }
}

/** The text of a `content` parameter (`content: application/json`): the value as JSON. */
export function jsonText(value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    text = undefined; // BigInt or a cycle
  }
  if (text === undefined) throw new InvalidValue('cannot be serialized as JSON');
  return primitiveText(text, 'the value');
}
