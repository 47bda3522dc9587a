/**
 * JSON parsing for backend answers (RELIABILITY B6, B7, B8).
 *
 * Parsed natively, then checked by a walk (checkLimits) before anything else
 * sees the value: V8's JSON.parse is iterative, so a 200 000-deep document costs
 * a loop, not a stack overflow, and the walk, which goes no deeper than the
 * limit, refuses it before JSON.stringify or JSONata could recurse into it. Integers beyond 2^53 are
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
 * Walks a parsed value enforcing depth and array length; returns whether it holds an integer a
 * double cannot keep. It recurses, but never deeper than `maxDepth` levels: a container past the
 * limit is refused before the walk goes into it, so the stack it uses is bounded by the limit,
 * not by the answer (a 200 000-deep answer is refused at its 65th level by default).
 *
 * `for…in` over objects (no Object.values array per object): JSON.parse builds plain objects
 * whose keys are all own and enumerable, so `for…in` visits exactly what Object.values would (an
 * enumerable property added to Object.prototype would also be visited: only a stricter check).
 * Nothing is allocated: an explicit stack of values and depths, kept between walks, cost ≈ 1.3×
 * this recursion on a 13 KB forecast.
 */
function checkLimits(root: unknown, limits: JsonLimits): boolean {
  return typeof root === 'object' && root !== null ? walk(root, 1, limits) : isUnsafeInteger(root);
}

function walk(container: object, depth: number, limits: JsonLimits): boolean {
  if (depth > limits.maxDepth) {
    throw invalid(`The backend answer nests deeper than ${limits.maxDepth} levels.`);
  }
  let unsafeInteger = false;
  if (Array.isArray(container)) {
    if (container.length > limits.maxArrayLength) {
      throw invalid(`The backend answer has an array longer than ${limits.maxArrayLength} elements.`);
    }
    for (let i = 0; i < container.length; i++) {
      if (walkChild(container[i], depth, limits)) unsafeInteger = true;
    }
  } else {
    for (const key in container) {
      if (walkChild((container as Record<string, unknown>)[key], depth, limits)) unsafeInteger = true;
    }
  }
  return unsafeInteger;
}

/** A child met by the walk: an object or array is walked one level down, a number checked. */
function walkChild(child: unknown, depth: number, limits: JsonLimits): boolean {
  if (typeof child === 'object') return child !== null && walk(child, depth + 1, limits);
  return isUnsafeInteger(child);
}

function isUnsafeInteger(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value);
}
