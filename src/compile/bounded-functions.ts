import jsonata from 'jsonata';
import type { AstNode } from './compile-expression.ts';
import { Budget, currentBudget, type JsonataLimits } from './evaluation-budget.ts';

/**
 * JSONata's built-ins, bounded (issue #13 F2–F4): every built-in that takes or makes strings or
 * arrays charges them to the evaluation's budget (`evaluation-budget.ts`) — what it is given
 * before it runs, what it makes after — and refuses a string longer than `maxString` or an
 * array longer than `maxItems`. Those whose output can dwarf their input are checked before
 * they allocate: `$pad` (width), `$join` (total), `$split` (run with a limit one past the
 * cap), `$replace` with a string pattern (its matches counted first: jsonata loops over them
 * with no guardrail check). `$sort`, `$distinct` and `$length` are re-implemented (below), and string
 * concatenation `&` is turned into a call of a bounded function, since jsonata has no hook
 * for it: doubling a string 28 times made a 2^28-character string whose `$length` exhausted
 * the heap. Within the limits the answers are jsonata's (`bounded-builtins-suite.test.ts`).
 *
 * Codes `D9001` (string), `D9002` (items), `D9003` (work) are Sculptor's; their messages
 * carry no data, so the engine passes them on in `projection.failed`.
 */

type Implementation = (this: unknown, ...args: unknown[]) => unknown;
interface JsonataFunction {
  _jsonata_function: true;
  implementation: Implementation;
  signature?: unknown;
}

/** What a jsonata loop iteration costs next to one character handled natively (measured: ≈ 64×). */
const ITERATION = 64;

/** The built-ins that take or make strings or arrays; the others handle numbers only. */
const SIZED = [
  'sum', 'count', 'max', 'min', 'average', 'string', 'substring', 'substringBefore', 'substringAfter',
  'lowercase', 'uppercase', 'length', 'trim', 'pad', 'match', 'contains', 'replace', 'split', 'join',
  'formatNumber', 'formatBase', 'formatInteger', 'parseInteger', 'number', 'map', 'zip', 'filter',
  'single', 'reduce', 'sift', 'keys', 'lookup', 'append', 'spread', 'merge', 'reverse', 'each', 'sort',
  'shuffle', 'distinct', 'base64encode', 'base64decode', 'encodeUrlComponent', 'encodeUrl',
  'decodeUrlComponent', 'decodeUrl', 'toMillis', 'fromMillis',
] as const; // prettier-ignore

/** jsonata's own `$name`, read once. */
async function builtin(name: string): Promise<JsonataFunction> {
  return (await jsonata(`$${name}`).evaluate({})) as JsonataFunction;
}
const original = new Map<string, JsonataFunction>(
  await Promise.all(SIZED.map(async (name) => [name, await builtin(name)] as const)),
);
const impl = (name: string): Implementation => original.get(name)!.implementation;

const isPromise = (value: unknown): value is Promise<unknown> =>
  typeof (value as { then?: unknown } | null)?.then === 'function';

/** Characters or items in a value, shallowly: what a built-in has to walk. */
function sizeOf(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (Array.isArray(value)) return value.length;
  return 1;
}

function checkMade(budget: Budget, fn: string, value: unknown): unknown {
  if (typeof value === 'string') budget.string(fn, value.length);
  else if (Array.isArray(value)) budget.items(fn, value.length);
  return value;
}

/** Checks run before jsonata's own implementation, for outputs that can dwarf the input. */
type Before = (budget: Budget, fn: string, args: unknown[]) => unknown[] | void;

const BEFORE: Partial<Record<(typeof SIZED)[number], Before>> = {
  sort(budget, fn, [items]) {
    if (Array.isArray(items)) budget.items(fn, items.length);
  },
  pad(budget, fn, [, width]) {
    if (typeof width === 'number') budget.string(fn, Math.abs(Math.trunc(width)));
  },
  join(budget, fn, [strings, separator]) {
    const items = Array.isArray(strings) ? strings : [strings];
    const total = items.reduce((sum: number, s) => sum + sizeOf(s), 0);
    budget.string(fn, total + Math.max(0, items.length - 1) * sizeOf(separator ?? ''));
  },
  split(budget, fn, [text, separator, limit]) {
    // One item past the cap is enough to know it is past the cap.
    const cap = budget.limits.maxItems + 1;
    return [text, separator, typeof limit === 'number' ? Math.min(limit, cap) : cap];
  },
  replace(budget, fn, [text, pattern, replacement, limit]) {
    if (typeof text !== 'string' || typeof pattern !== 'string' || pattern === '') return;
    const most = typeof limit === 'number' ? limit : Infinity;
    const cap = Math.floor(budget.limits.maxWork / ITERATION) + 1;
    let matches = 0;
    for (let at = text.indexOf(pattern); at >= 0 && matches < most && matches < cap; matches++) {
      at = text.indexOf(pattern, at + pattern.length);
    }
    budget.charge(fn, matches * ITERATION);
    if (typeof replacement === 'string') {
      budget.string(fn, text.length + matches * (replacement.length - pattern.length));
    }
  },
};

/**
 * `$sort` as jsonata defines it — stable, ascending, a comparator returning true when its
 * first argument goes after its second — without jsonata's merge, which copies the rest of
 * the array at every element: 10,000 items took 390 ms and more than a worker's 128 MiB heap
 * (issue #13 F4), where this takes a few milliseconds and no more memory than the array.
 */
async function sortItems(
  items: unknown[],
  comparator?: (a: unknown, b: unknown) => unknown,
): Promise<unknown[]> {
  if (comparator === undefined) {
    const numbers = items.every((v) => typeof v === 'number');
    if (!numbers && !items.every((v) => typeof v === 'string')) {
      throw { code: 'D3070', index: 1, stack: new Error().stack };
    }
    return [...items].sort((a, b) =>
      (a as number) > (b as number) ? 1 : (a as number) < (b as number) ? -1 : 0,
    );
  }
  if (items.length <= 1) return items;
  const middle = Math.floor(items.length / 2);
  const left = await sortItems(items.slice(0, middle), comparator);
  const right = await sortItems(items.slice(middle), comparator);
  const merged: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length && j < right.length) {
    if (await comparator(left[i], right[j])) merged.push(right[j++]);
    else merged.push(left[i++]);
  }
  while (i < left.length) merged.push(left[i++]);
  while (j < right.length) merged.push(right[j++]);
  return merged;
}

/** Characters encoded at a time: one slice holds the event loop for a millisecond or so. */
const ENCODE_SLICE = 65_536;

/**
 * `$encodeUrlComponent` and `$encodeUrl` a slice at a time, the output counted as it grows: a
 * text whose encoding outgrows the string limit (up to 9 characters per "€") is refused as
 * soon as it does, and the end time is checked between slices. jsonata's one native call over
 * all of it held the event loop 160–320 ms for 5,000,000 "€" and made 45 M characters before
 * the limit could refuse them (issue #13). The same result: slices never split a surrogate pair.
 */
function encodeInSlices(
  name: 'encodeUrlComponent' | 'encodeUrl',
  encode: (s: string) => string,
): Implementation {
  const fn = `$${name}`;
  const whole = impl(name);
  return function (this: unknown, text) {
    const budget = currentBudget();
    if (typeof text !== 'string' || text.length <= ENCODE_SLICE || !budget) return whole.call(this, text);
    let encoded = '';
    for (let at = 0; at < text.length;) {
      let end = Math.min(text.length, at + ENCODE_SLICE);
      const last = text.charCodeAt(end - 1);
      if (last >= 0xd800 && last <= 0xdbff && end < text.length) end++;
      try {
        encoded += encode(text.slice(at, end));
      } catch {
        throw { code: 'D3140', stack: new Error().stack, value: text, functionName: name };
      }
      at = end;
      if (encoded.length > budget.limits.maxString) budget.string(fn, encoded.length); // throws
      budget.charge(fn, 0); // the end time
    }
    return encoded;
  };
}

/** Replaces jsonata's implementation for these; `this` is jsonata's focus. */
const REPLACED: Partial<Record<(typeof SIZED)[number], Implementation>> = {
  /**
   * Code points, as jsonata counts them, without jsonata's array of every character: its
   * `$length` of 2 Mi characters took ≈ 0.6 s on a loaded machine, this a few milliseconds.
   */
  length(text) {
    if (typeof text !== 'string') return undefined;
    let count = 0;
    for (let i = 0; i < text.length; i++, count++) {
      const unit = text.charCodeAt(i);
      if (unit >= 0xd800 && unit <= 0xdbff) {
        const next = text.charCodeAt(i + 1);
        if (next >= 0xdc00 && next <= 0xdfff) i++;
      }
    }
    return count;
  },
  encodeUrlComponent: encodeInSlices('encodeUrlComponent', encodeURIComponent),
  encodeUrl: encodeInSlices('encodeUrl', encodeURI),
  sort(items, comparator) {
    if (items === undefined) return undefined;
    if (!Array.isArray(items) || items.length <= 1) return items;
    return sortItems(items, comparator as ((a: unknown, b: unknown) => unknown) | undefined);
  },
  /**
   * jsonata compares every item with every distinct one so far (10,000 numbers: 50 million
   * comparisons in one call, no guardrail check): numbers, strings, booleans and null go
   * through a Set, in the same order; objects and arrays are compared as jsonata does, their
   * comparisons charged to the budget.
   */
  distinct(this: unknown, items) {
    if (!Array.isArray(items) || items.length <= 1) return items;
    if (items.some((v) => typeof v === 'object' && v !== null)) {
      currentBudget()?.charge('$distinct', (items.length * items.length) / 2);
      return impl('distinct').call(this, items);
    }
    const seen = new Set<unknown>();
    const result = (this as { createSequence(): unknown[] }).createSequence();
    for (const item of items) {
      if (!seen.has(item)) {
        seen.add(item);
        result.push(item);
      }
    }
    return (items as { sequence?: boolean }).sequence ? result : [...result];
  },
};

/** `$name` bounded: charged and checked around jsonata's implementation (or ours). */
function bounded(name: (typeof SIZED)[number], limits: JsonataLimits): JsonataFunction {
  const fn = `$${name}`;
  const run = REPLACED[name] ?? impl(name);
  const before = BEFORE[name];
  const implementation: Implementation = function (this: unknown, ...args) {
    const budget = currentBudget() ?? new Budget(limits);
    budget.charge(
      fn,
      args.reduce((sum: number, a) => sum + sizeOf(a), 0),
    );
    const result = run.apply(this, before?.(budget, fn, args) ?? args);
    return isPromise(result)
      ? result.then((value) => checkMade(budget, fn, value))
      : checkMade(budget, fn, result);
  };
  // jsonata reads a native function's arity and parameter names from these (`$reduce`'s
  // check, partial application `$substring(?, 0, ?)`): they stay jsonata's.
  Object.defineProperty(implementation, 'length', { value: impl(name).length });
  Object.defineProperty(implementation, 'toString', { value: () => impl(name).toString() });
  return { ...original.get(name)!, implementation };
}

const STRING = impl('string');
/** The name `&` is rewritten to call: a variable no expression can write (it has a space). */
const CONCAT = 'sculptor concat';

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

/** The functions of one set of limits, made once (the limits are the process's). */
const made = new WeakMap<JsonataLimits, Array<[string, JsonataFunction]>>();

function functionsFor(limits: JsonataLimits): Array<[string, JsonataFunction]> {
  let functions = made.get(limits);
  if (!functions) {
    functions = SIZED.map((name) => [name, bounded(name, limits)]);
    functions.push([CONCAT, concat(limits)]);
    made.set(limits, functions);
  }
  return functions;
}

/**
 * Binds the bounded built-ins in one compiled expression and rewrites its `&` nodes into
 * calls of the bounded concatenation, in place: jsonata evaluates the AST its `ast()` returns.
 * The rewritten nodes keep their operands, so readers of the AST (step references, lint) see
 * the same variables and paths.
 */
export function boundBuiltins(expression: jsonata.Expression, limits: JsonataLimits): jsonata.Expression {
  for (const [name, fn] of functionsFor(limits)) expression.assign(name, fn);
  rewriteConcat(expression.ast() as unknown as AstNode);
  return expression;
}

function rewriteConcat(node: unknown): void {
  if (Array.isArray(node)) {
    for (const child of node) rewriteConcat(child);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  for (const [key, value] of Object.entries(node)) {
    if (key !== 'position' && value !== null && typeof value === 'object') rewriteConcat(value);
  }
  const n = node as AstNode;
  if (n.type === 'binary' && n.value === '&') {
    n.type = 'function';
    n.value = '(';
    n.procedure = { type: 'variable', value: CONCAT, position: n.position };
    n.arguments = [n.lhs, n.rhs];
    delete n.lhs;
    delete n.rhs;
  }
}
