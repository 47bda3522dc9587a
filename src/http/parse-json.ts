/**
 * JSON parsing for backend answers (RELIABILITY B6, B7, B8).
 *
 * Parsed natively, then checked by an iterative walk (checkLimits) before
 * anything else sees the value: V8's JSON.parse is iterative, so a 200 000-deep
 * document costs a loop, not a stack overflow, and the walk refuses it before
 * JSON.stringify or JSONata could recurse into it. Integers beyond 2^53 are
 * found by the same walk, and only then is the text parsed again with a reviver.
 *
 * There is no scan before the parse: a character loop over the text cost 1.3× the
 * parse itself on every large answer (5 ms for a 1.3 MB forecast), and what it
 * saved was small beside what a legal answer may already cost. Measured here: a
 * hostile 5 MiB nest builds 152 MB in 0.9 s before being refused; a 5 MiB answer
 * within every limit (arrays of empty objects) builds 111 MB in 0.34 s. The body
 * cap (B6) is what bounds both.
 */
import { SculptorError } from '../errors/sculptor-error.ts';

export interface JsonLimits {
  /** Deepest nesting of arrays/objects allowed; `[]` is depth 1. */
  maxDepth: number;
  /** Most elements allowed in any one array. */
  maxArrayLength: number;
}

const INTEGER_LITERAL = /^-?\d+$/;

function invalid(message: string, cause?: unknown): SculptorError {
  return new SculptorError('upstream.invalid_response', message, cause === undefined ? {} : { cause });
}

/** Parses JSON text within the limits; any failure is upstream.invalid_response. */
export function parseJson(text: string, limits: JsonLimits): unknown {
  const value = parse(text, false);
  // An integer literal beyond 2^53 always parses to a non-safe integer
  // number; only then is the text parsed again with the reviver.
  return checkLimits(value, limits) ? parse(text, true) : value;
}

function parse(text: string, keepBig: boolean): unknown {
  try {
    return keepBig ? JSON.parse(text, keepBigIntegers) : JSON.parse(text);
  } catch (err) {
    throw invalid('The backend answer is not valid JSON.', err);
  }
}

/**
 * Keeps integer literals that a double cannot hold as their exact decimal
 * text ("9007199254740993"), instead of silently rounding them (…992).
 * Non-integer literals (1.5, 1e400) keep the usual number semantics.
 */
function keepBigIntegers(_key: string, value: unknown, context?: { source?: string }): unknown {
  if (
    typeof value === 'number' &&
    !Number.isSafeInteger(value) &&
    context?.source !== undefined &&
    INTEGER_LITERAL.test(context.source)
  ) {
    return context.source;
  }
  return value;
}

/**
 * Walks a parsed value with an explicit stack (no recursion) enforcing depth
 * and array length; returns whether it holds an integer a double cannot keep.
 *
 * Two parallel stacks of values and depths (no [value, depth] pair allocated
 * per node) and `for…in` over objects (no Object.values array per object):
 * 13 KB of forecast costs ≈ 1.5 µs instead of ≈ 8.5 µs. JSON.parse builds
 * plain objects whose keys are all own and enumerable, so `for…in` visits
 * exactly what Object.values would (an enumerable property added to
 * Object.prototype would also be visited: only a stricter check).
 *
 * The stacks are kept from one walk to the next (a walk is synchronous, so one runs at a
 * time): growing two arrays for every answer allocated ≈ 1 KiB per 13 KB forecast. Each walk
 * empties the slots it used, so no answer outlives its call; a stack grown past
 * KEPT_STACK_SLOTS by a large answer is let go.
 */
const values: Array<object | undefined> = [];
const depths: number[] = [];
const KEPT_STACK_SLOTS = 4096;
/** The current walk's state beside its stacks: the slots it used, and whether it met an unsafe integer. */
const walk = { used: 0, unsafeInteger: false };

function checkLimits(root: unknown, limits: JsonLimits): boolean {
  if (typeof root !== 'object' || root === null) return isUnsafeInteger(root);
  walk.used = 0;
  walk.unsafeInteger = false;
  let top = place(root, 1, 0);
  try {
    while (top > 0) {
      top--;
      const value = values[top]!;
      const depth = depths[top]!;
      if (depth > limits.maxDepth) {
        throw invalid(`The backend answer nests deeper than ${limits.maxDepth} levels.`);
      }
      if (Array.isArray(value)) {
        if (value.length > limits.maxArrayLength) {
          throw invalid(`The backend answer has an array longer than ${limits.maxArrayLength} elements.`);
        }
        for (let i = 0; i < value.length; i++) top = place(value[i], depth + 1, top);
      } else {
        for (const key in value) top = place((value as Record<string, unknown>)[key], depth + 1, top);
      }
    }
  } finally {
    if (walk.used > KEPT_STACK_SLOTS) values.length = depths.length = 0;
    else values.fill(undefined, 0, walk.used);
  }
  return walk.unsafeInteger;
}

/** A child met by the walk: an object goes on the stacks (the new top is returned), a number is checked. */
function place(child: unknown, depth: number, top: number): number {
  if (typeof child === 'object') {
    if (child === null) return top;
    values[top] = child;
    depths[top] = depth;
    if (top + 1 > walk.used) walk.used = top + 1;
    return top + 1;
  }
  if (!walk.unsafeInteger && isUnsafeInteger(child)) walk.unsafeInteger = true;
  return top;
}

function isUnsafeInteger(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value);
}
