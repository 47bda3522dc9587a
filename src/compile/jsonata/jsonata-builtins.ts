import jsonata from 'jsonata';

/**
 * Every function jsonata 2.x binds in its static frame, by name. The cost model
 * (`cost-model.ts`) has a row for each that sculpts may call; one without a row is refused at
 * load (`compile-expression.ts`). `jsonata-builtins.test.ts` reads jsonata's own source and
 * fails if a new version binds a function this list does not name.
 */
export const JSONATA_BUILTINS = [
  'sum', 'count', 'max', 'min', 'average', 'string', 'substring', 'substringBefore', 'substringAfter',
  'lowercase', 'uppercase', 'length', 'trim', 'pad', 'match', 'contains', 'replace', 'split', 'join',
  'formatNumber', 'formatBase', 'formatInteger', 'parseInteger', 'number', 'floor', 'ceil', 'round',
  'abs', 'sqrt', 'power', 'random', 'boolean', 'not', 'map', 'zip', 'filter', 'single', 'reduce',
  'sift', 'keys', 'lookup', 'append', 'exists', 'spread', 'merge', 'reverse', 'each', 'error',
  'assert', 'type', 'sort', 'shuffle', 'distinct', 'base64encode', 'base64decode',
  'encodeUrlComponent', 'encodeUrl', 'decodeUrlComponent', 'decodeUrl', 'eval', 'toMillis',
  'fromMillis', 'clone', 'now', 'millis',
] as const; // prettier-ignore

export type JsonataBuiltin = (typeof JSONATA_BUILTINS)[number];

export type Implementation = (this: unknown, ...args: unknown[]) => unknown;

/** A function as jsonata holds it in an environment. */
export interface JsonataFunction {
  _jsonata_function: true;
  implementation: Implementation;
  signature?: unknown;
}

const loaded = new Map<string, JsonataFunction>(
  await Promise.all(
    JSONATA_BUILTINS.map(
      async (name) => [name, (await jsonata(`$${name}`).evaluate({})) as JsonataFunction] as const,
    ),
  ),
);

/** jsonata's own `$name`, as jsonata binds it. */
export function jsonataFunction(name: JsonataBuiltin): JsonataFunction {
  return loaded.get(name)!;
}

/** jsonata's own implementation of `$name`. */
export const jsonataImplementation = (name: JsonataBuiltin): Implementation =>
  jsonataFunction(name).implementation;
