import type jsonata from 'jsonata';
import type { JsonataLimits } from '../../config/jsonata-settings.ts';
import type { AstNode } from './ast.ts';
import { BUILTIN_ROWS } from './cost-model.ts';
import type { CostRow } from './cost-row.ts';
import { Budget, currentBudget } from './evaluation-budget.ts';
import {
  type Implementation,
  type JsonataBuiltin,
  type JsonataFunction,
  jsonataFunction,
  jsonataImplementation,
} from './jsonata-builtins.ts';
import { deepEqual } from './replaced-builtins.ts';
import { SCULPT_FUNCTIONS } from './sculpt-functions.ts';
import { isComposite, shallowSize } from './value-size.ts';

/**
 * jsonata's built-ins as the cost model (`cost-model.ts`) prices them: each is charged its
 * arguments' sizes and its row's `before` charge before it runs, runs as jsonata's
 * implementation or the row's own, and what it makes is refused past the limits on one value
 * (`maxString` characters, `maxItems` items). The operators that can do unbounded work in one
 * step — `&` (string doubling made a 2^28-character string whose `$length` exhausted the heap),
 * the deep comparisons `=` and `!=`, and `..` (a path of ranges made 800 MB in a quarter second)
 * — are rewritten in the AST into calls of bounded functions, since jsonata has no hook for them.
 * Within the limits the answers are jsonata's (`bounded-builtins-suite.test.ts`).
 *
 * Codes `D9001` (string), `D9002` (items), `D9003` (work) are Sculptor's; their messages
 * carry no data, so the engine passes them on in `projection.failed`.
 */

const isPromise = (value: unknown): value is Promise<unknown> =>
  typeof (value as { then?: unknown } | null)?.then === 'function';

function checkMade(budget: Budget, fn: string, value: unknown): unknown {
  if (typeof value === 'string') budget.string(fn, value.length);
  else if (Array.isArray(value)) budget.items(fn, value.length);
  return value;
}

/** `$name` bounded by its row: charged before, checked after, around jsonata's implementation or the row's. */
function bounded(row: CostRow, limits: JsonataLimits): [string, JsonataFunction] {
  const name = row.name.slice(1) as JsonataBuiltin;
  const fn = row.name;
  const original = jsonataFunction(name);
  const run = row.implementation ?? original.implementation;
  const before = row.before;
  const implementation: Implementation = function (this: unknown, ...args) {
    const budget = currentBudget() ?? new Budget(limits);
    let size = 0;
    for (const arg of args) size += shallowSize(arg);
    budget.charge(fn, size);
    const result = run.apply(this, before?.(budget, fn, args) ?? args);
    return isPromise(result)
      ? result.then((value) => checkMade(budget, fn, value))
      : checkMade(budget, fn, result);
  };
  // jsonata reads a native function's arity and parameter names from these (`$reduce`'s
  // check, partial application `$substring(?, 0, ?)`): they stay jsonata's.
  Object.defineProperty(implementation, 'length', { value: original.implementation.length });
  Object.defineProperty(implementation, 'toString', { value: () => original.implementation.toString() });
  return [name, { ...original, implementation }];
}

const STRING = jsonataImplementation('string');
/** The names the rewritten operators call: variables no expression can write (they have a space). */
const CONCAT = 'sculptor concat';
const EQUALS = 'sculptor equals';
const DIFFERS = 'sculptor differs';
const RANGE = 'sculptor range';

/** `&` as jsonata evaluates it (`$string` of each defined side), the result's length bounded. */
function concat(limits: JsonataLimits): JsonataFunction {
  const text = (value: unknown): string => (value === undefined ? '' : (STRING(value) as string));
  return {
    _jsonata_function: true,
    implementation(left, right) {
      const result = text(left) + text(right);
      // Not charged: V8 joins the two without copying; whatever reads the result pays for it.
      if (result.length > (limits.maxString ?? Infinity))
        (currentBudget() ?? new Budget(limits)).string('&', result.length);
      return result;
    },
  };
}

/**
 * `=` (or `!=`) as jsonata evaluates it — false when either side is undefined, else deep
 * equality — charged the smaller side's nested size before comparing two objects or arrays.
 */
function equality(limits: JsonataLimits, negate: boolean): JsonataFunction {
  const fn = negate ? '!=' : '=';
  return {
    _jsonata_function: true,
    implementation(left, right) {
      if (left === undefined || right === undefined) return false;
      if (isComposite(left) && isComposite(right)) {
        const budget = currentBudget() ?? new Budget(limits);
        // Equality stops at the first difference, so it never walks more than the smaller side.
        budget.chargeDeep(fn, shallowSize(left) <= shallowSize(right) ? left : right);
      }
      return deepEqual(left, right) !== negate;
    },
  };
}

/** jsonata's error for a range it refuses, in its own shape (code, value). */
function rangeError(code: string, value: unknown): { code: string; value: unknown; stack?: string } {
  return { code, value, stack: new Error().stack };
}

/**
 * `..` as jsonata evaluates it — integers only, undefined when a side is or when the range is
 * empty, refused past 10^7 (D2014) and the sequence limit (D2015) — its items charged before it
 * makes them: one range stays under the items limit, but a path makes ranges by the thousand.
 */
function range(limits: JsonataLimits): JsonataFunction {
  return {
    _jsonata_function: true,
    implementation(lhs, rhs) {
      if (lhs !== undefined && !Number.isInteger(lhs)) throw rangeError('T2003', lhs);
      if (rhs !== undefined && !Number.isInteger(rhs)) throw rangeError('T2004', rhs);
      if (lhs === undefined || rhs === undefined || (lhs as number) > (rhs as number)) return undefined;
      const size = (rhs as number) - (lhs as number) + 1;
      if (size > 1e7) throw rangeError('D2014', size);
      if (size > (limits.sequence ?? Infinity)) throw rangeError('D2015', size);
      (currentBudget() ?? new Budget(limits)).items('..', size);
      const result: number[] & { sequence?: boolean } = new Array<number>(size);
      for (let i = 0; i < size; i++) result[i] = (lhs as number) + i;
      // A sequence, as jsonata's own range: it flattens into the array or path around it.
      result.sequence = true;
      return result;
    },
  };
}

/** The functions of one set of limits, made once (the limits are the process's). */
const made = new WeakMap<JsonataLimits, Array<[string, JsonataFunction]>>();

function functionsFor(limits: JsonataLimits): Array<[string, JsonataFunction]> {
  let functions = made.get(limits);
  if (!functions) {
    functions = BUILTIN_ROWS.map((row) => bounded(row, limits));
    functions.push(
      [CONCAT, concat(limits)],
      [EQUALS, equality(limits, false)],
      [DIFFERS, equality(limits, true)],
      [RANGE, range(limits)],
    );
    for (const f of SCULPT_FUNCTIONS) functions.push([f.name, f.make(limits)]);
    made.set(limits, functions);
  }
  return functions;
}

/** The bounded function each rewritten operator calls. */
const REWRITTEN: Readonly<Record<string, string>> = {
  '&': CONCAT,
  '=': EQUALS,
  '!=': DIFFERS,
  '..': RANGE,
};

/**
 * Binds the bounded built-ins in one compiled expression and rewrites its `&`, `=`, `!=` and
 * `..` nodes into calls of the bounded functions, in place: jsonata evaluates the AST its `ast()`
 * returns. The rewritten nodes keep their operands, so readers of the AST (step references,
 * lint) see the same variables and paths, and their operator (`operatorOf` in `ast.ts`).
 */
export function boundBuiltins(expression: jsonata.Expression, limits: JsonataLimits): jsonata.Expression {
  for (const [name, fn] of functionsFor(limits)) expression.assign(name, fn);
  rewriteOperators(expression.ast() as unknown as AstNode);
  return expression;
}

function rewriteOperators(node: unknown): void {
  if (Array.isArray(node)) {
    for (const child of node) rewriteOperators(child);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  for (const [key, value] of Object.entries(node)) {
    if (key !== 'position' && value !== null && typeof value === 'object') rewriteOperators(value);
  }
  const n = node as AstNode;
  const target = n.type === 'binary' && typeof n.value === 'string' ? REWRITTEN[n.value] : undefined;
  if (target) {
    n.operator = n.value;
    n.type = 'function';
    n.value = '(';
    n.procedure = { type: 'variable', value: target, position: n.position };
    n.arguments = [n.lhs, n.rhs];
    delete n.lhs;
    delete n.rhs;
  }
}
