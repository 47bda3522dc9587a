import { query } from 'jsonpath-rfc9535';
import parseJsonPath from 'jsonpath-rfc9535/parser';
import type { Criterion } from './arazzo-document.ts';
import { type BindContext, bindExpression, type ExpressionScope } from './bind-expression.ts';

/** A criterion compiled once: whether it holds for one step's outcome. */
export type Condition = (scope: ExpressionScope) => boolean;

/**
 * How a `regex` criterion's pattern is run. The compile stage gives one that runs on RE2 with a
 * bound on its steps, so a pattern over a backend's answer stays linear-time.
 */
export type RegexFactory = (pattern: string) => ((text: string) => boolean) | string;

/** The longest condition or pattern read: conditions are one line of logic, not programs. */
const MAX_CONDITION_LENGTH = 4096;

/**
 * Compiles one Criterion Object (specification § Criterion Object): `simple` conditions by the
 * grammar of its Literals and Operators tables, `regex` by the given factory, `jsonpath` by RFC
 * 9535 (jsonpath-rfc9535, which passes the JSONPath compliance suite) — a non-empty result
 * holds. `xpath` is refused: Sculptor's answers are JSON. The reason is a string when it cannot
 * be compiled.
 */
export function compileCriterion(
  criterion: Criterion,
  context: BindContext,
  regex: RegexFactory,
): Condition | string {
  const { condition } = criterion;
  if (condition.length > MAX_CONDITION_LENGTH)
    return `The condition is longer than ${MAX_CONDITION_LENGTH} characters.`;
  const type = typeof criterion.type === 'object' ? criterion.type : { type: criterion.type ?? 'simple' };
  if ('version' in type) {
    return `Criterion type ${type.type} version '${type.version}' is not supported: Sculptor runs ${type.type === 'jsonpath' ? 'RFC 9535 JSONPath — write type: jsonpath' : 'no XPath'}.`;
  }
  if (type.type === 'simple') return compileSimple(condition, context);
  if (type.type === 'xpath') {
    return 'XPath criteria are not supported: Sculptor reads JSON answers only (an XML answer cannot reach a step yet); test the answer with a jsonpath, regex or simple criterion.';
  }
  if (criterion.context === undefined)
    return `A ${type.type} criterion needs a context (e.g. context: $response.body).`;
  const bound = bindExpression(criterion.context, context);
  if (typeof bound === 'string') return bound;
  const read = bound.get;
  if (type.type === 'regex') {
    const test = regex(condition);
    if (typeof test === 'string') return test;
    return (scope) => {
      const value = read(scope);
      if (value === undefined || value === null) return false;
      return test(typeof value === 'string' ? value : JSON.stringify(value));
    };
  }
  let ast: unknown;
  try {
    ast = parseJsonPath(condition);
  } catch (err) {
    return `'${condition}' is not an RFC 9535 JSONPath query: ${(err as Error).message}`;
  }
  if (callsRegex(ast)) {
    return `JSONPath match() and search() run their pattern with JavaScript's backtracking regular expressions on the backend's answer, which a pattern can make take forever; test the value with a regex criterion instead (RE2, linear time).`;
  }
  return (scope) => {
    const value = read(scope);
    return value !== undefined && query(value as Parameters<typeof query>[0], condition).length > 0;
  };
}

function callsRegex(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(callsRegex);
  if (typeof node !== 'object' || node === null) return false;
  const record = node as Record<string, unknown>;
  if (record.type === 'FunctionExpr' && (record.name === 'match' || record.name === 'search')) return true;
  return Object.values(record).some(callsRegex);
}

// --- simple conditions --------------------------------------------------------------------

type Value = unknown;
type Node = (scope: ExpressionScope) => Value;

interface Token {
  kind: 'expr' | 'number' | 'string' | 'word' | 'op';
  text: string;
  at: number;
}

/** Operators, longest first (the specification's table: < <= > >= == != ! && || ( ) [ ] .). */
const OPERATORS = ['<=', '>=', '==', '!=', '&&', '||', '<', '>', '!', '(', ')', '[', ']', '.'];

function tokenize(text: string): Token[] | string {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '$') {
      // A runtime expression runs to the next space or operator character; a JSON pointer
      // (after `#`) may hold more, but not a space, parenthesis or bracket.
      const rest = text.slice(i);
      const match = /^\$[A-Za-z0-9_.-]*(#[^\s()[\]]*)?/.exec(rest)!;
      let end = match[0].length;
      // `$steps.a.outputs.b[0]` and `$inputs.x.y`: the name stops where an operator starts.
      if (!match[1]) end = /^\$[A-Za-z0-9_.-]*/.exec(rest)![0].replace(/\.+$/, '').length;
      tokens.push({ kind: 'expr', text: rest.slice(0, end), at: i });
      i += end;
    } else if (c === "'") {
      let value = '';
      let j = i + 1;
      for (;;) {
        if (j >= text.length) return `Unterminated string at column ${i + 1}.`;
        if (text[j] === "'") {
          if (text[j + 1] === "'") {
            value += "'";
            j += 2;
            continue;
          }
          break;
        }
        value += text[j++];
      }
      tokens.push({ kind: 'string', text: value, at: i });
      i = j + 1;
    } else if (/[-0-9]/.test(c) && /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/.test(text.slice(i))) {
      const number = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/.exec(text.slice(i))![0];
      tokens.push({ kind: 'number', text: number, at: i });
      i += number.length;
    } else if (/[A-Za-z_]/.test(c)) {
      const word = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(text.slice(i))![0];
      tokens.push({ kind: 'word', text: word, at: i });
      i += word.length;
    } else {
      const op = OPERATORS.find((o) => text.startsWith(o, i));
      if (!op) return `Unexpected '${c}' at column ${i + 1}.`;
      tokens.push({ kind: 'op', text: op, at: i });
      i += op.length;
    }
  }
  return tokens;
}

class ConditionError extends Error {}

/**
 * A recursive-descent parser of the specification's simple conditions:
 *   or := and ('||' and)*;  and := not ('&&' not)*;  not := '!' not | comparison
 *   comparison := operand (('=='|'!='|'<'|'<='|'>'|'>=') operand)?
 *   operand := '(' or ')' | literal | runtime-expression ('[' index ']' | '.' name)*
 */
function compileSimple(condition: string, context: BindContext): Condition | string {
  const tokens = tokenize(condition);
  if (typeof tokens === 'string') return `Condition '${condition}': ${tokens}`;
  let pos = 0;
  const peek = () => tokens[pos];
  const fail = (message: string): never => {
    throw new ConditionError(message);
  };
  const expect = (op: string) => {
    const t = tokens[pos];
    if (t?.kind !== 'op' || t.text !== op)
      fail(`expected '${op}' ${t ? `at column ${t.at + 1}` : 'at the end'}`);
    pos++;
  };
  const isOp = (op: string) => peek()?.kind === 'op' && peek()!.text === op;

  const or = (): Node => {
    let left = and();
    while (isOp('||')) {
      pos++;
      const l = left;
      const r = and();
      left = (s) => truthy(l(s)) || truthy(r(s));
    }
    return left;
  };
  const and = (): Node => {
    let left = not();
    while (isOp('&&')) {
      pos++;
      const l = left;
      const r = not();
      left = (s) => truthy(l(s)) && truthy(r(s));
    }
    return left;
  };
  const not = (): Node => {
    if (isOp('!')) {
      pos++;
      const inner = not();
      return (s) => !truthy(inner(s));
    }
    return comparison();
  };
  const comparison = (): Node => {
    const left = operand();
    const t = peek();
    if (t?.kind === 'op' && ['==', '!=', '<', '<=', '>', '>='].includes(t.text)) {
      pos++;
      const right = operand();
      const compare = COMPARE[t.text]!;
      return (s) => compare(left(s), right(s));
    }
    return left;
  };
  const operand = (): Node => {
    const t = peek();
    if (!t) return fail('a value is missing at the end');
    pos++;
    if (t.kind === 'op' && t.text === '(') {
      const inner = or();
      expect(')');
      return inner;
    }
    if (t.kind === 'number') {
      const n = Number(t.text);
      return () => n;
    }
    if (t.kind === 'string') return () => t.text;
    if (t.kind === 'word') {
      if (t.text === 'true') return () => true;
      if (t.text === 'false') return () => false;
      if (t.text === 'null') return () => null;
      return fail(
        `'${t.text}' at column ${t.at + 1} is neither a literal nor a runtime expression (strings are written in single quotes)`,
      );
    }
    if (t.kind === 'expr') {
      const bound = bindExpression(t.text, context);
      if (typeof bound === 'string') return fail(bound);
      let node: Node = bound.get;
      // The Index and Property de-reference operators, after a runtime expression.
      for (;;) {
        if (isOp('[')) {
          pos++;
          const index = peek();
          if (index?.kind !== 'number' || !/^(0|[1-9][0-9]*)$/.test(index.text))
            fail('an index must be a number');
          pos++;
          expect(']');
          const inner = node;
          const i = Number(index!.text);
          node = (s) => {
            const v = inner(s);
            return Array.isArray(v) ? v[i] : undefined;
          };
        } else if (isOp('.') && tokens[pos + 1]?.kind === 'word') {
          const name = tokens[pos + 1]!.text;
          pos += 2;
          const inner = node;
          node = (s) => {
            const v = inner(s);
            return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.hasOwn(v, name)
              ? (v as Record<string, unknown>)[name]
              : undefined;
          };
        } else {
          return node;
        }
      }
    }
    return fail(`unexpected '${t.text}' at column ${t.at + 1}`);
  };

  try {
    const root = or();
    if (pos < tokens.length) fail(`unexpected '${tokens[pos]!.text}' at column ${tokens[pos]!.at + 1}`);
    return (scope) => truthy(root(scope));
  } catch (err) {
    if (err instanceof ConditionError) return `Condition '${condition}': ${err.message}.`;
    throw err;
  }
}

function truthy(value: Value): boolean {
  return value !== undefined && value !== null && value !== false && value !== 0 && value !== '';
}

/**
 * Loose comparison, as the specification asks: a number and a numeric string compare as numbers,
 * strings compare case-insensitively, `null` equals a missing value.
 */
function loose(a: Value, b: Value): [Value, Value] {
  if (typeof a === 'number' && typeof b === 'string' && b.trim() !== '' && !Number.isNaN(Number(b)))
    return [a, Number(b)];
  if (typeof b === 'number' && typeof a === 'string' && a.trim() !== '' && !Number.isNaN(Number(a)))
    return [Number(a), b];
  if (typeof a === 'string' && typeof b === 'string') return [a.toLowerCase(), b.toLowerCase()];
  return [a ?? null, b ?? null];
}

function equal(a: Value, b: Value): boolean {
  const [x, y] = loose(a, b);
  if (typeof x === 'object' && x !== null && typeof y === 'object' && y !== null) {
    return JSON.stringify(x) === JSON.stringify(y);
  }
  return x === y;
}

function ordered(test: (x: number | string, y: number | string) => boolean) {
  return (a: Value, b: Value): boolean => {
    const [x, y] = loose(a, b);
    if (typeof x === 'number' && typeof y === 'number') return test(x, y);
    if (typeof x === 'string' && typeof y === 'string') return test(x, y);
    return false;
  };
}

const COMPARE: Record<string, (a: Value, b: Value) => boolean> = {
  '==': equal,
  '!=': (a, b) => !equal(a, b),
  '<': ordered((x, y) => x < y),
  '<=': ordered((x, y) => x <= y),
  '>': ordered((x, y) => x > y),
  '>=': ordered((x, y) => x >= y),
};
