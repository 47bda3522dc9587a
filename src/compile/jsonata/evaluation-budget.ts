import { AsyncLocalStorage } from 'node:async_hooks';
import type { JsonataLimits } from '../../config/jsonata-settings.ts';
import { deepSize } from './value-size.ts';

export type { JsonataLimits } from '../../config/jsonata-settings.ts';

/**
 * What one JSONata evaluation may spend. jsonata's own guardrails (time,
 * stack, sequence length) are checked between its evaluation steps only; inside one built-in
 * nothing stopped `$pad("x", 100000000)` allocating 1.1 GB or `$length` of a 2^28-character
 * string exhausting the heap. The bounded built-ins (`bounded-functions.ts`) and the regex
 * engine charge every value they are given or make against the evaluation's budget, refuse a
 * value past the limits before making it where they can, and stop at the evaluation's end
 * time (jsonata's timeout, or the invocation's deadline if it comes first).
 *
 * The budget travels with the evaluation through AsyncLocalStorage: jsonata calls built-ins
 * with its own arguments only, and evaluations of concurrent invocations interleave.
 */
/** A budget's limits: a field left out of `JsonataLimits` is off (only a test leaves one out). */
interface Limits {
  maxString: number;
  maxItems: number;
  maxWork: number;
}

/** The error jsonata code expects: a `code` and a message that quotes no data (G9). */
export interface JsonataLimitError {
  code: 'D9001' | 'D9002' | 'D9003' | 'D9004' | 'D9005';
  message: string;
}

export function isLimitError(err: unknown): err is JsonataLimitError {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'D9001' || code === 'D9002' || code === 'D9003' || code === 'D9004' || code === 'D9005';
}

export class Budget {
  readonly limits: Limits;
  /** When the evaluation must end (epoch ms), or Infinity. */
  readonly endsAt: number;
  /** jsonata's timeout for this evaluation: until `endsAt`. */
  readonly timeout: number | undefined;
  #work: number;

  constructor(limits: JsonataLimits, deadlineAt = Infinity) {
    const now = Date.now();
    this.limits = {
      maxString: limits.maxString ?? Infinity,
      maxItems: limits.sequence ?? Infinity,
      maxWork: limits.maxWork ?? Infinity,
    };
    this.endsAt = Math.min(now + (limits.timeout ?? Infinity), deadlineAt);
    // jsonata reads 0 as "no timeout": an evaluation started at its deadline gets 1 ms.
    this.timeout = Number.isFinite(this.endsAt) ? Math.max(1, this.endsAt - now) : undefined;
    this.#work = this.limits.maxWork;
  }

  /** Counts `units` of work by `$fn`; throws past the work budget or the end time. */
  charge(fn: string, units: number): void {
    this.#work -= units;
    if (this.#work < 0) {
      throw limitError(
        'D9003',
        `${fn} would take the evaluation past ${this.limits.maxWork} characters and items handled (the work limit per sculpt expression); narrow the data first.`,
      );
    }
    if (Date.now() > this.endsAt) {
      // jsonata's own timeout code: the same thing, noticed inside a built-in.
      throw { code: 'D1012', value: this.timeout, message: 'The expression ran out of time.' };
    }
  }

  /** Work left before the work limit. */
  get remaining(): number {
    return Math.max(0, this.#work);
  }

  /** Charges the nested size of `value` (`value-size.ts`), measured no further than the budget goes. */
  chargeDeep(fn: string, value: unknown): void {
    this.charge(fn, deepSize(value, this.remaining));
  }

  /** A string of `length` characters made by `fn`: refused past the limit, else charged. */
  string(fn: string, length: number): void {
    if (length > this.limits.maxString) {
      throw limitError(
        'D9001',
        `${fn} would make a string of more than ${this.limits.maxString} characters (the limit per value in a sculpt expression); narrow the data first.`,
      );
    }
    this.charge(fn, length);
  }

  /**
   * An array of `count` items made or handled by `fn`: refused past the limit, else charged
   * `ITEM_UNITS` an item, so that the work limit bounds the memory arrays hold as it does strings.
   */
  items(fn: string, count: number): void {
    if (count > this.limits.maxItems) {
      throw limitError(
        'D9002',
        `${fn} would handle more than ${this.limits.maxItems} items (the limit per array in a sculpt expression); filter or slice the data first.`,
      );
    }
    this.charge(fn, count * ITEM_UNITS);
  }
}

/**
 * The work one array item counts: the 8 bytes its slot holds, where a character counts 1 for its
 * 1 or 2. Counted as 1, a path making ten thousand arrays of ten thousand (each within the items
 * limit, `$split` of a long text in a `$map`, a range in a path) filled an evaluator's 128 MiB
 * before the work limit stopped it.
 */
const ITEM_UNITS = 8;

function limitError(
  code: JsonataLimitError['code'],
  message: string,
): JsonataLimitError & { stack?: string } {
  return { code, message, stack: new Error().stack };
}

const running = new AsyncLocalStorage<Budget>();

/** Runs one evaluation with a budget of its own. */
export function withBudget<T>(budget: Budget, evaluate: () => Promise<T>): Promise<T> {
  return running.run(budget, evaluate);
}

/** The running evaluation's budget; `undefined` outside `withBudget`. */
export function currentBudget(): Budget | undefined {
  return running.getStore();
}
