import jsonata from 'jsonata';
import { boundBuiltins } from './bounded-functions.ts';
import { JSONATA_LIMITS, type JsonataLimits } from '../../config/jsonata-settings.ts';
import { Budget, currentBudget, withBudget } from './evaluation-budget.ts';
import { BoundedRegExp } from './safe-regex.ts';

export { JSONATA_LIMITS, type JsonataLimits } from '../../config/jsonata-settings.ts';

/**
 * The options every expression is compiled with, in process and in the worker pool
 * (`expression-worker.ts`), so both evaluate alike. jsonata reads `timeout` at every guardrail
 * check: it is the running evaluation's, which ends at the invocation's deadline if that comes
 * before the guardrail's 250 ms.
 */
export function jsonataOptions(limits: JsonataLimits = JSONATA_LIMITS) {
  return {
    stack: limits.stack,
    sequence: limits.sequence,
    get timeout() {
      return currentBudget()?.timeout ?? limits.timeout;
    },
    RegexEngine: BoundedRegExp as unknown as RegExpConstructor,
  };
}

/** An expression compiled with those options and the bounded built-ins (`bounded-functions.ts`). */
export function compileJsonata(source: string, limits: JsonataLimits = JSONATA_LIMITS): jsonata.Expression {
  return boundBuiltins(jsonata(source, jsonataOptions(limits)), limits);
}

/** One evaluation with a budget of its own, ending by `deadlineAt` (epoch ms) at the latest. */
export function evaluateJsonata(
  expression: jsonata.Expression,
  input: unknown,
  bindings: Record<string, unknown> | undefined,
  limits: JsonataLimits = JSONATA_LIMITS,
  deadlineAt?: number,
): Promise<unknown> {
  return withBudget(new Budget(limits, deadlineAt), () => expression.evaluate(input, bindings));
}
