import { BoundedRegExp } from './safe-regex.ts';

/**
 * Guardrails on every evaluation (RELIABILITY G2): a runaway expression
 * otherwise starves the event loop, and no timer can stop it (finding M1).
 */
export const JSONATA_LIMITS = { timeout: 250, stack: 200, sequence: 10_000 } as const;

/** jsonata's guardrails; a field left out is off (only a test ever leaves one out). */
export interface JsonataLimits {
  timeout?: number;
  stack?: number;
  sequence?: number;
}

/**
 * The options every expression is compiled with, in process and in the worker pool
 * (`expression-worker.ts`), so both evaluate alike.
 */
export function jsonataOptions(limits: JsonataLimits = JSONATA_LIMITS) {
  return { ...limits, RegexEngine: BoundedRegExp as unknown as RegExpConstructor };
}
