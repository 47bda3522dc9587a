/**
 * Arazzo runtime expressions (specification § Runtime Expressions), parsed by the ABNF given
 * there:
 *
 *   expression = "$url" / "$method" / "$statusCode" / "$request." source / "$response." source
 *              / "$inputs." name / "$outputs." name / "$steps." name / "$workflows." name
 *              / "$sourceDescriptions." name / "$components." name
 *   source     = header-reference / query-reference / path-reference / body-reference
 *   header-reference = "header." token;  query-reference = "query." name
 *   path-reference = "path." name;  body-reference = "body" ["#" json-pointer]
 *
 * `name` is any run of characters, so the grammar alone leaves `$steps.a.outputs.b` ambiguous;
 * every implementation reads it as the specification's examples do (`$steps.<stepId>.outputs.
 * <name>`, `$workflows.<id>.inputs|outputs.<name>`), and a `#` starts a JSON pointer into the
 * value (`$steps.s.outputs.pets#/0/id`). No published JavaScript parser of this grammar was
 * installable here; the grammar is small enough that one function states it.
 */

export type Exchange = 'request' | 'response';

export type RuntimeExpression =
  | { kind: 'url' | 'method' | 'statusCode' }
  | { kind: Exchange; source: 'header' | 'query' | 'path'; name: string }
  | { kind: Exchange; source: 'body'; pointer: string[] | undefined }
  | { kind: 'inputs' | 'outputs'; name: string; pointer: string[] | undefined }
  | { kind: 'steps'; step: string; name: string; pointer: string[] | undefined }
  | {
      kind: 'workflows';
      workflow: string;
      part: 'inputs' | 'outputs';
      name: string;
      pointer: string[] | undefined;
    }
  | { kind: 'sourceDescriptions'; source: string; name: string }
  | { kind: 'components'; section: string; name: string };

/** RFC 9110 `token`: a header name. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Parses one runtime expression; a string with the reason when it is not one. */
export function parseRuntimeExpression(text: string): RuntimeExpression | string {
  if (text === '$url') return { kind: 'url' };
  if (text === '$method') return { kind: 'method' };
  if (text === '$statusCode') return { kind: 'statusCode' };
  const dot = text.indexOf('.');
  const head = dot < 0 ? text : text.slice(0, dot);
  const rest = dot < 0 ? '' : text.slice(dot + 1);
  switch (head) {
    case '$request':
    case '$response':
      return exchange(head.slice(1) as Exchange, rest, text);
    case '$inputs':
    case '$outputs': {
      const [name, pointer] = withPointer(rest);
      if (typeof pointer === 'string') return pointer;
      if (name === '') return `'${text}' names no ${head.slice(1, -1)}: write ${head}.<name>.`;
      return { kind: head.slice(1) as 'inputs' | 'outputs', name, pointer };
    }
    case '$steps': {
      const [path, pointer] = withPointer(rest);
      if (typeof pointer === 'string') return pointer;
      const at = path.indexOf('.outputs.');
      if (at <= 0 || at + 9 >= path.length) {
        return `'${text}' is not a step output: write $steps.<stepId>.outputs.<name>.`;
      }
      return { kind: 'steps', step: path.slice(0, at), name: path.slice(at + 9), pointer };
    }
    case '$workflows': {
      const [path, pointer] = withPointer(rest);
      if (typeof pointer === 'string') return pointer;
      const match = /^(.+?)\.(inputs|outputs)\.(.+)$/.exec(path);
      if (!match) return `'${text}' is not a workflow value: write $workflows.<workflowId>.outputs.<name>.`;
      return {
        kind: 'workflows',
        workflow: match[1]!,
        part: match[2] as 'inputs' | 'outputs',
        name: match[3]!,
        pointer,
      };
    }
    case '$sourceDescriptions': {
      const at = rest.indexOf('.');
      if (at <= 0 || at === rest.length - 1) {
        return `'${text}' does not name a source and what in it: write $sourceDescriptions.<name>.<operationId>.`;
      }
      return { kind: 'sourceDescriptions', source: rest.slice(0, at), name: rest.slice(at + 1) };
    }
    case '$components': {
      const at = rest.indexOf('.');
      if (at <= 0 || at === rest.length - 1) {
        return `'${text}' does not name a component: write $components.<section>.<name>.`;
      }
      return { kind: 'components', section: rest.slice(0, at), name: rest.slice(at + 1) };
    }
    default:
      return `'${text}' is not a runtime expression: it must start with $url, $method, $statusCode, $request., $response., $inputs., $outputs., $steps., $workflows., $sourceDescriptions. or $components.`;
  }
}

function exchange(kind: Exchange, rest: string, text: string): RuntimeExpression | string {
  if (rest === 'body') return { kind, source: 'body', pointer: undefined };
  if (rest.startsWith('body#')) {
    const pointer = parsePointer(rest.slice(5));
    return typeof pointer === 'string' ? pointer : { kind, source: 'body', pointer };
  }
  const match = /^(header|query|path)\.(.+)$/.exec(rest);
  if (!match) {
    const hint = rest.startsWith('body.')
      ? ` (a part of the body is a JSON pointer: $${kind}.body#/a/b)`
      : '';
    return `'${text}' is not a ${kind} value: write $${kind}.header.<name>, .query.<name>, .path.<name> or .body#/<pointer>${hint}.`;
  }
  const source = match[1] as 'header' | 'query' | 'path';
  if (source === 'header' && !TOKEN.test(match[2]!)) return `'${match[2]}' is not a header name.`;
  return { kind, source, name: match[2]! };
}

/** `name#/json/pointer` → [name, pointer tokens]; the reason as the second element when it is not one. */
function withPointer(text: string): [string, string[] | undefined | string] {
  const hash = text.indexOf('#');
  if (hash < 0) return [text, undefined];
  return [text.slice(0, hash), parsePointer(text.slice(hash + 1))];
}

/** RFC 6901: `/a/b~1c` → ['a', 'b/c']; the empty pointer is the whole value. */
export function parsePointer(text: string): string[] | string {
  if (text === '') return [];
  if (!text.startsWith('/')) return `JSON pointer '${text}' must start with '/'.`;
  const tokens = text.slice(1).split('/');
  for (const token of tokens) {
    if (/~(?![01])/.test(token)) return `JSON pointer '${text}' has a '~' that is not ~0 or ~1.`;
  }
  return tokens.map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The value at a pointer, or undefined where the value has no such member (never the prototype's). */
export function resolvePointer(value: unknown, pointer: readonly string[] | undefined): unknown {
  let current = value;
  for (const token of pointer ?? []) {
    if (Array.isArray(current)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
      current = current[Number(token)];
    } else if (typeof current === 'object' && current !== null && Object.hasOwn(current, token)) {
      current = (current as Record<string, unknown>)[token];
    } else {
      return undefined;
    }
  }
  return current;
}

/** `{$expr}` embedded in a string (specification: "Expressions can be embedded into string values"). */
export const EMBEDDED = /\{(\$[^{}]+)\}/g;

/**
 * Whether a string is meant as a runtime expression: it starts with `$` and a letter. A literal
 * that merely starts with `$` ("$5") stays a literal; one that looks like an expression but does
 * not parse is an error, never sent as text.
 */
export function looksLikeExpression(text: string): boolean {
  return /^\$[A-Za-z]/.test(text);
}
