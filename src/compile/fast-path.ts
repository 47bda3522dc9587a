/**
 * The JSONata fast path (docs/PERFORMANCE.md, "JSONata fast path, precisely").
 *
 * Most sculpt expressions only pick fields and build objects:
 * `{ "wfo": $inputs.office }`, `results[0].{ "name": name }`. For those, jsonata's
 * generic asynchronous evaluator costs ≈ 12 µs; a plain function costs well under one.
 * `compileFastPath` turns such an AST into a function that answers exactly what jsonata
 * answers, or `BAIL` when the data leaves the cases it implements (then the caller
 * evaluates with jsonata). It returns `undefined` for any expression outside the subset.
 *
 * The subset, checked on the AST with an allowlist of node fields (an annotation jsonata's
 * parser adds that is not listed — group-by, predicates, focus, keep-array — keeps an
 * expression out):
 *
 * - literals: strings, finite numbers, `true`, `false`, `null`;
 * - the variables `$inputs`, `$steps` (bindings) and `$` (the context);
 * - paths whose first step is one of those variables or a name and whose other steps are
 *   names; a step may carry one index `[n]` (n a non-negative integer literal); the last step
 *   may be an object constructor;
 * - object constructors with distinct string-literal keys, array constructors, and `&`.
 *
 * Run-time rules (jsonata's own, restricted to single values):
 *
 * - a name reads an own property (jsonata's `lookup` uses `hasOwnProperty`); on `undefined`
 *   the path is `undefined`; on anything that is not an object → `BAIL`;
 * - any array met, other than as the input of an index → `BAIL` (jsonata maps over arrays,
 *   flattens them and unwraps singleton sequences);
 * - `[n]` on an array is element n (`BAIL` if that is an array); on a single value, `[0]` is
 *   the value and any other index `undefined` (a value is a one-item sequence);
 * - an object constructor leaves out keys whose value is `undefined` and builds a
 *   prototype-less object, as jsonata does; it bails on an array context (jsonata groups);
 * - an array constructor skips `undefined` items;
 * - `&` casts with jsonata's `$string`: strings as they are, booleans, `null`, finite numbers
 *   (non-integers to 15 significant digits); anything else → `BAIL` (objects, arrays and
 *   non-finite numbers: the last is an error in jsonata, which the fallback reports);
 * - values are returned by reference, as jsonata returns them.
 *
 * Evaluation is bounded by the size of the expression (no loops, no recursion on data), and
 * expressions are capped in size and depth, so jsonata's guardrails (time, stack, sequence
 * length) could not have stopped it. Anything unexpected that throws → `BAIL`.
 */

/** Returned when the fast path does not answer: evaluate with jsonata instead. */
export const BAIL: unique symbol = Symbol('jsonata fast path: bail');

type Bindings = Readonly<Record<string, unknown>> | undefined;

/** `(input, bindings)` → what jsonata would answer, or `BAIL`. Never throws. */
export type FastPath = (input: unknown, bindings: Bindings) => unknown;

type Eval = (context: unknown, bindings: Bindings) => unknown;

/** Far below jsonata's stack guardrail (200 nested evaluations). */
const MAX_DEPTH = 32;
/** Far below jsonata's sequence guardrail (10,000 items). */
const MAX_NODES = 1_000;

const VARIABLES = new Set(['inputs', 'steps', '']);
/** Keys jsonata refuses in an object constructor (D1013). */
const RESERVED_KEYS = new Set(['_jsonata_lambda', '_jsonata_function']);

interface Node {
  type: string;
  value?: unknown;
  [field: string]: unknown;
}

export function compileFastPath(ast: unknown): FastPath | undefined {
  const budget = { nodes: MAX_NODES };
  const run = compileNode(ast, 0, budget);
  if (!run) return undefined;
  return (input, bindings) => {
    try {
      return run(input, bindings);
    } catch {
      return BAIL;
    }
  };
}

function compileNode(node: unknown, depth: number, budget: { nodes: number }): Eval | undefined {
  if (!isNode(node) || depth > MAX_DEPTH || --budget.nodes < 0) return undefined;
  const value = node.value;
  switch (node.type) {
    case 'string':
      return has(node, LITERAL) && typeof value === 'string' ? () => value : undefined;
    case 'number':
      return has(node, LITERAL) && typeof value === 'number' && Number.isFinite(value)
        ? () => value
        : undefined;
    case 'value':
      return has(node, LITERAL) && (value === true || value === false || value === null)
        ? () => value
        : undefined;
    case 'variable':
      return compileVariable(node);
    case 'path':
      return has(node, PATH) ? compilePath(node.steps, depth, budget) : undefined;
    case 'unary':
      if (value === '{' && has(node, OBJECT)) return compileObject(node.lhs, depth, budget);
      if (value === '[' && has(node, ARRAY)) return compileArray(node.expressions, depth, budget);
      return undefined;
    case 'binary':
      return value === '&' && has(node, BINARY) ? compileConcat(node, depth, budget) : undefined;
    default:
      return undefined;
  }
}

// The fields each accepted node may carry; any other field is an annotation we do not implement.
const LITERAL = ['type', 'value', 'position'];
const VARIABLE = ['type', 'value', 'position', 'predicate'];
const NAME = ['type', 'value', 'position', 'stages'];
const PATH = ['type', 'steps', 'position'];
const OBJECT = ['type', 'value', 'position', 'lhs'];
const ARRAY = ['type', 'value', 'position', 'expressions'];
const BINARY = ['type', 'value', 'position', 'lhs', 'rhs'];
const FILTER = ['type', 'expr', 'position'];

/** `$inputs`, `$steps` or `$`, with at most one index: `$[0]`. */
function compileVariable(node: Node): Eval | undefined {
  const name = node.value;
  if (!has(node, VARIABLE) || typeof name !== 'string' || !VARIABLES.has(name)) return undefined;
  const index = indexOf(node.predicate);
  if (index === null) return undefined;
  const read: Eval =
    name === ''
      ? (context) => context
      : (_context, bindings) =>
          bindings !== undefined && Object.prototype.propertyIsEnumerable.call(bindings, name)
            ? bindings[name]
            : undefined;
  return index === undefined ? (c, b) => single(read(c, b)) : (c, b) => at(read(c, b), index);
}

/**
 * `[n]`: `undefined` when the field is absent, the index when it is exactly one
 * non-negative integer literal, `null` (not in the subset) otherwise.
 */
function indexOf(stages: unknown): number | undefined | null {
  if (stages === undefined) return undefined;
  if (!Array.isArray(stages) || stages.length !== 1) return null;
  const [stage] = stages as unknown[];
  if (!isNode(stage) || stage.type !== 'filter' || !has(stage, FILTER)) return null;
  const expr = stage.expr;
  if (!isNode(expr) || expr.type !== 'number' || !has(expr, LITERAL)) return null;
  const n = expr.value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : null;
}

function compilePath(steps: unknown, depth: number, budget: { nodes: number }): Eval | undefined {
  if (!Array.isArray(steps) || steps.length === 0) return undefined;
  const list = steps as unknown[];
  const [first] = list;
  let last = list.length;
  let project: Eval | undefined;
  const tail = list[list.length - 1];
  if (list.length > 1 && isNode(tail) && tail.type === 'unary' && tail.value === '{') {
    if (!has(tail, OBJECT)) return undefined;
    project = compileObject(tail.lhs, depth + 1, budget);
    if (!project) return undefined;
    last -= 1;
  }
  let head: Eval | undefined;
  if (isNode(first) && first.type === 'variable') head = compileVariable(first);
  else head = compileName(first, (context) => context);
  if (!head) return undefined;
  let run: Eval = head;
  for (let i = 1; i < last; i += 1) {
    if (--budget.nodes < 0) return undefined;
    const next = compileName(list[i], run);
    if (!next) return undefined;
    run = next;
  }
  if (!project) return run;
  const from = run;
  const build = project;
  return (context, bindings) => {
    const value = from(context, bindings);
    return value === BAIL || value === undefined ? value : build(value, bindings);
  };
}

/** A name step (with at most one index) applied to what `from` yields. */
function compileName(node: unknown, from: Eval): Eval | undefined {
  if (!isNode(node) || node.type !== 'name' || !has(node, NAME) || typeof node.value !== 'string')
    return undefined;
  const name = node.value;
  const index = indexOf(node.stages);
  if (index === null) return undefined;
  return (context, bindings) => {
    const object = from(context, bindings);
    if (object === BAIL || object === undefined) return object;
    if (!isRecord(object)) return BAIL;
    const value = Object.hasOwn(object, name) ? object[name] : undefined;
    return index === undefined ? single(value) : at(value, index);
  };
}

function compileObject(pairs: unknown, depth: number, budget: { nodes: number }): Eval | undefined {
  if (!Array.isArray(pairs)) return undefined;
  const keys: string[] = [];
  const values: Eval[] = [];
  for (const pair of pairs as unknown[]) {
    if (!Array.isArray(pair) || pair.length !== 2) return undefined;
    const [keyNode, valueNode] = pair as unknown[];
    if (!isNode(keyNode) || keyNode.type !== 'string' || !has(keyNode, LITERAL)) return undefined;
    const key = keyNode.value;
    // A repeated key is jsonata error D1009; reserved keys are D1013.
    if (typeof key !== 'string' || keys.includes(key) || RESERVED_KEYS.has(key)) return undefined;
    const value = compileNode(valueNode, depth + 1, budget);
    if (!value) return undefined;
    keys.push(key);
    values.push(value);
  }
  return (context, bindings) => {
    if (Array.isArray(context)) return BAIL;
    const result: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (let i = 0; i < keys.length; i += 1) {
      const value = values[i]!(context, bindings);
      if (value === BAIL) return BAIL;
      if (value !== undefined) result[keys[i]!] = value;
    }
    return result;
  };
}

function compileArray(items: unknown, depth: number, budget: { nodes: number }): Eval | undefined {
  if (!Array.isArray(items)) return undefined;
  const compiled: Array<{ run: Eval; nested: boolean }> = [];
  for (const item of items as unknown[]) {
    const run = compileNode(item, depth + 1, budget);
    if (!run) return undefined;
    // jsonata keeps the value of a nested array constructor as one item and flattens others.
    compiled.push({ run, nested: isNode(item) && item.type === 'unary' && item.value === '[' });
  }
  return (context, bindings) => {
    const result: unknown[] = [];
    for (const { run, nested } of compiled) {
      const value = run(context, bindings);
      if (value === BAIL) return BAIL;
      if (value === undefined) continue;
      if (!nested && Array.isArray(value)) return BAIL;
      result.push(value);
    }
    return result;
  };
}

function compileConcat(node: Node, depth: number, budget: { nodes: number }): Eval | undefined {
  const lhs = compileNode(node.lhs, depth + 1, budget);
  const rhs = compileNode(node.rhs, depth + 1, budget);
  if (!lhs || !rhs) return undefined;
  return (context, bindings) => {
    const left = toText(lhs(context, bindings));
    if (left === BAIL) return BAIL;
    const right = toText(rhs(context, bindings));
    if (right === BAIL) return BAIL;
    return left + right;
  };
}

/** jsonata's `$string` for the values `&` meets, with `undefined` as ''. */
function toText(value: unknown): string | typeof BAIL {
  switch (typeof value) {
    case 'undefined':
      return '';
    case 'string':
      return value;
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) return BAIL; // jsonata D3001
      return JSON.stringify(Number.isInteger(value) ? value : Number(value.toPrecision(15)));
    default:
      return value === null ? 'null' : BAIL;
  }
}

/** A value read by a step without an index: arrays are jsonata sequences → BAIL. */
function single(value: unknown): unknown {
  return Array.isArray(value) ? BAIL : value;
}

/** `value[index]` as jsonata's filter computes it for one value or one array. */
function at(value: unknown, index: number): unknown {
  if (value === BAIL || value === undefined) return value;
  if (!Array.isArray(value)) return index === 0 ? value : undefined;
  // A jsonata sequence (a result of an earlier evaluation) is unwrapped by jsonata: leave it.
  if ((value as { sequence?: unknown }).sequence === true) return BAIL;
  return single(value[index] as unknown);
}

/** An object jsonata's `lookup` reads fields of: not an array, not a jsonata function. */
function isRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const flags = value as { _jsonata_function?: unknown; _jsonata_lambda?: unknown };
  return flags._jsonata_function !== true && flags._jsonata_lambda !== true;
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && typeof (value as Node).type === 'string';
}

function has(node: Node, allowed: readonly string[]): boolean {
  for (const key of Object.keys(node)) if (!allowed.includes(key)) return false;
  return true;
}
