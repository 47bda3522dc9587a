import jsonata from 'jsonata';
import { SculptorError, type SourcePosition } from '../errors/sculptor-error.ts';
import { processJsonataSettings } from '../config/jsonata-settings.ts';
import { type AstNode, walkAst } from './jsonata/ast.ts';
import { boundBuiltins } from './jsonata/bounded-functions.ts';
import { unpricedBuiltin } from './jsonata/cost-model.ts';
import { sharedExpressionPool } from './jsonata/expression-pool.ts';
import { compileJsonata, evaluateJsonata, jsonataOptions } from './jsonata/jsonata-options.ts';
import { linearRegexProblem } from './jsonata/linear-regex.ts';
import { BAIL, compileFastPath } from './fast-path.ts';

export { JSONATA_LIMITS } from '../config/jsonata-settings.ts';
export { type AstNode, operatorOf, walkAst } from './jsonata/ast.ts';

/*
 * Two switches, read once per process (`config/jsonata-settings.ts`):
 * - the JSONata fast path (docs/PERFORMANCE.md): expressions in its subset are evaluated by a
 *   plain function, jsonata only when it bails; `SCULPTOR_JSONATA_FAST_PATH=false` turns it off.
 * - `SCULPTOR_JSONATA_ISOLATION`: where jsonata runs. `process` (the default) evaluates in a pool
 *   of evaluator processes whose death the gateway absorbs (`jsonata/expression-pool.ts`,
 *   RELIABILITY G6; docs/SECURITY.md, "The boundary"); `worker` in worker threads, which a heap
 *   exhausted inside can still take down; `off` in the gateway's own thread, guarded by the cost
 *   model and jsonata's limits only. The fast path stays in process either way: it is linear in
 *   the expression's size, which is capped, so there is nothing to kill, and a round trip to an
 *   evaluator would cost far more than it does.
 */

export interface CompiledExpression {
  source: string;
  ast: AstNode;
  /** Step ids read through `$steps.<id>`; `'*'` when `$steps` is used as a whole. */
  stepRefs: Set<string>;
  /** Whether the fast path (`fast-path.ts`) is tried before jsonata; false when it is switched off. */
  fastPath?: boolean;
  /**
   * `signal`: the invocation's; isolated in an evaluator, the evaluation is killed when it aborts.
   * `deadlineAt` (epoch ms): in process, the evaluation ends by then at the latest (its
   * guardrail timeout and budget, `evaluation-budget.ts`, stop it).
   */
  evaluate(
    input: unknown,
    bindings: Record<string, unknown>,
    options?: { signal?: AbortSignal | undefined; deadlineAt?: number | undefined },
  ): Promise<unknown>;
  /**
   * The fast path alone, synchronously: jsonata's answer, or `BAIL` when only `evaluate`
   * can give it (always `BAIL` without a fast path). The engine tries this first and awaits
   * only when it bails: most invocations then never create a promise for an expression.
   */
  evaluateSync(input: unknown, bindings: Record<string, unknown>): unknown;
}

export { BAIL };

/**
 * Compiles once at load; `at` maps an offset in the expression to the file.
 * Throws a SculptorError('compile.jsonata' | 'compile.forbidden_function').
 */
export function compileExpression(
  source: string,
  at: (offset: number) => SourcePosition,
): CompiledExpression {
  const { limits, fastPath } = processJsonataSettings();
  let expression: jsonata.Expression;
  try {
    // Parsed as written for the checks and the fast path; bounded below if it is evaluated.
    expression = jsonata(source, jsonataOptions(limits));
  } catch (err) {
    const e = err as { code?: string; message?: string; position?: number };
    throw new SculptorError('compile.jsonata', `JSONata ${e.code ?? 'error'}: ${e.message ?? String(err)}`, {
      at: at(Math.max(0, (e.position ?? 1) - 1)),
      cause: err,
    });
  }
  const ast = expression.ast() as unknown as AstNode;
  walkAst(ast, (node) => {
    const unpriced =
      node.type === 'variable' && typeof node.value === 'string' && unpricedBuiltin(node.value);
    if (unpriced) {
      // `$eval` turns data into code (G7); any other built-in without a row could cost anything.
      throw new SculptorError(
        'compile.forbidden_function',
        `$${unpriced} is not allowed in sculpts: the cost model (docs/SECURITY.md, "Expressions") has no row for it, so what it costs could not be charged before it runs.`,
        { at: at(Math.max(0, (node.position ?? 1) - unpriced.length - 1)) },
      );
    }
    const problem = node.type === 'regex' && node.value instanceof RegExp && linearRegexProblem(node.value);
    if (problem) {
      throw new SculptorError('compile.unsafe_regex', problem, {
        at: at(Math.max(0, (node.position ?? 1) - (node.value as RegExp).source.length - 2)),
      });
    }
  });
  const fast = fastPath ? compileFastPath(ast) : undefined;
  // A fast-path expression keeps a plain copy of its AST and no jsonata instance until it
  // first bails: jsonata's AST nodes inherit from the per-parse symbol table, so each instance
  // kept ≈ 16 KB alive (33 MB for 1,000 sculpts).
  if (!fast) return evaluator(source, ast, undefined, boundBuiltins(expression, limits));
  const plain = plainAst(ast);
  return evaluator(source, plain, compileFastPath(plain), undefined);
}

const alwaysBail = (): typeof BAIL => BAIL;

/**
 * The compiled expression, from a function of its own so that its closures do not share a
 * context with `compileExpression`'s (which holds `at`, and through it the sculpt's YAML).
 */
function evaluator(
  source: string,
  ast: AstNode,
  fast: ReturnType<typeof compileFastPath>,
  compiled: jsonata.Expression | undefined,
): CompiledExpression {
  let expression = compiled;
  const { limits } = processJsonataSettings();
  let slow: CompiledExpression['evaluate'] = (input, bindings, options) =>
    evaluateJsonata(
      (expression ??= compileJsonata(source, limits)),
      input,
      bindings,
      limits,
      options?.deadlineAt,
    );
  if (processJsonataSettings().isolation !== 'off') {
    // An expression outside the fast path will need an evaluator: loading them now spares the
    // first invocations their start-up. One on the fast path starts them only if its data ever
    // makes it bail, so a catalog the fast path answers does not keep their memory (≈ 60 MB each).
    if (!fast) sharedExpressionPool().warm();
    slow = (input, bindings, options) =>
      sharedExpressionPool().evaluate(source, input, bindings, options?.signal);
  }
  return {
    source,
    ast,
    stepRefs: stepReferences(ast),
    fastPath: fast !== undefined,
    evaluateSync: fast ?? alwaysBail,
    evaluate: fast
      ? async (input, bindings, options) => {
          const value = fast(input, bindings);
          return value === BAIL ? slow(input, bindings, options) : value;
        }
      : slow,
  };
}

/** The AST as plain objects (own properties only; shared nodes stay shared). */
function plainAst(ast: AstNode): AstNode {
  const copies = new Map<object, unknown>();
  const copy = (node: unknown): unknown => {
    if (node === null || typeof node !== 'object' || node instanceof RegExp) return node;
    const done = copies.get(node);
    if (done !== undefined) return done;
    const out: unknown[] | Record<string, unknown> = Array.isArray(node) ? [] : {};
    copies.set(node, out);
    for (const key of Object.keys(node)) {
      (out as Record<string, unknown>)[key] = copy((node as Record<string, unknown>)[key]);
    }
    return out;
  };
  return copy(ast) as AstNode;
}

function isVariable(node: unknown, test: (name: string) => boolean): boolean {
  const n = node as AstNode | undefined;
  return n?.type === 'variable' && typeof n.value === 'string' && test(n.value);
}

function stepReferences(ast: AstNode): Set<string> {
  const refs = new Set<string>();
  const pathHeads = new WeakSet<object>();
  walkAst(ast, (node) => {
    if (node.type !== 'path' || !Array.isArray(node.steps)) return;
    const [head, next] = node.steps as AstNode[];
    if (!isVariable(head, (n) => n === 'steps')) return;
    pathHeads.add(head as object);
    if (next?.type === 'name' && typeof next.value === 'string') refs.add(next.value);
    else refs.add('*');
  });
  walkAst(ast, (node) => {
    if (isVariable(node, (n) => n === 'steps') && !pathHeads.has(node)) refs.add('*');
  });
  return refs;
}

/**
 * The keys of an expression that is (or ends in) an object constructor with
 * literal keys — enough to check backend parameters at load. `undefined` when
 * the keys are only known at run time.
 */
export function literalObjectKeys(ast: AstNode): Set<string> | undefined {
  const pairs = literalObjectPairs(ast);
  return pairs && new Set(pairs.keys());
}

/** Like `literalObjectKeys`, with the expression of each key's value. */
export function literalObjectPairs(ast: AstNode): Map<string, AstNode> | undefined {
  let node: AstNode | undefined = ast;
  while (node?.type === 'block' && Array.isArray(node.expressions)) {
    node = node.expressions[node.expressions.length - 1] as AstNode | undefined;
  }
  if (node?.type !== 'unary' || node.value !== '{' || !Array.isArray(node.lhs)) return undefined;
  const pairs = new Map<string, AstNode>();
  for (const pair of node.lhs as unknown as Array<[AstNode, AstNode]>) {
    if (pair[0]?.type !== 'string') return undefined;
    pairs.set(String(pair[0].value), pair[1]);
  }
  return pairs;
}
