import type { Budget } from './evaluation-budget.ts';
import type { Implementation } from './jsonata-builtins.ts';

/** Charges beyond the arguments' sizes, before the work; may narrow the arguments (`$split`'s limit). */
export type Before = (budget: Budget, fn: string, args: unknown[]) => unknown[] | void;

/** One row of the cost model (`cost-model.ts`). */
export interface CostRow {
  /** `$pad`, or an operator as written: `=`, `&`, `..`. */
  name: string;
  kind: 'built-in' | 'operator';
  /** What it costs, in terms of its inputs (the docs table's second column). */
  cost: string;
  /** How the budget is charged, and when (the third column). */
  charged: string;
  before?: Before;
  implementation?: Implementation;
}
