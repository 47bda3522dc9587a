/**
 * JSON parsing for backend answers (RELIABILITY B6, B7, B8).
 *
 * Small texts are parsed natively and then checked by an iterative walk (see
 * parseJson). For larger ones, before JSON.parse, one linear scan over the text
 * checks nesting depth and array lengths with a counter per open level (no recursion, so a
 * 200 000-deep document costs a loop, not a stack overflow later in
 * JSON.stringify or JSONata). The same scan notes whether any run of 16+
 * digits exists: only then is a reviver needed to keep integers beyond 2^53
 * exact, because every integer of at most 15 digits is a safe integer.
 */
import { SculptorError } from '../errors/sculptor-error.ts';

export interface JsonLimits {
  /** Deepest nesting of arrays/objects allowed; `[]` is depth 1. */
  maxDepth: number;
  /** Most elements allowed in any one array. */
  maxArrayLength: number;
}

/** 16 digits is the shortest literal that can exceed Number.MAX_SAFE_INTEGER (9007199254740991). */
const LONG_DIGIT_RUN = 16;
const INTEGER_LITERAL = /^-?\d+$/;

function invalid(message: string, cause?: unknown): SculptorError {
  return new SculptorError('upstream.invalid_response', message, cause === undefined ? {} : { cause });
}

/** Index of the quote closing the string that opens at `open`, or text.length when unterminated. */
function endOfString(text: string, open: number): number {
  let from = open + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return text.length;
    let backslashes = 0;
    for (let i = quote - 1; i > open && text.charCodeAt(i) === 92; i--) backslashes++;
    if (backslashes % 2 === 0) return quote;
    from = quote + 1;
  }
}

/**
 * Checks depth and array lengths without parsing; malformed text is left
 * for JSON.parse to reject. Returns whether a reviver is needed for big integers.
 */
export function scanJson(text: string, limits: JsonLimits): { longDigitRun: boolean } {
  // Per open level: 1 when it is an array, and its comma count so far.
  const isArray = new Uint8Array(limits.maxDepth + 1);
  const commas = new Uint32Array(limits.maxDepth + 1);
  let depth = 0;
  let digitRun = 0;
  let longDigitRun = false;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      if (++digitRun >= LONG_DIGIT_RUN) longDigitRun = true;
      continue;
    }
    digitRun = 0;
    switch (c) {
      case 34: // "
        i = endOfString(text, i);
        break;
      case 91: // [
      case 123: // {
        depth++;
        if (depth > limits.maxDepth)
          throw invalid(`The backend answer nests deeper than ${limits.maxDepth} levels.`);
        isArray[depth] = c === 91 ? 1 : 0;
        commas[depth] = 0;
        break;
      case 93: // ]
      case 125: // }
        if (depth > 0) depth--;
        break;
      case 44: // ,
        // n commas separate n + 1 elements.
        if (depth > 0 && isArray[depth] === 1 && ++commas[depth]! >= limits.maxArrayLength) {
          throw invalid(`The backend answer has an array longer than ${limits.maxArrayLength} elements.`);
        }
        break;
    }
  }
  return { longDigitRun };
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
 * Texts up to this size are parsed natively first and checked after: V8's
 * JSON.parse is iterative (a deep nest cannot overflow its stack) and at this
 * size the worst document it builds before the check is small. Larger texts
 * are scanned first, so a hostile 5 MiB nest is refused before it is built.
 */
export const PARSE_FIRST_MAX = 64 * 1024;

/** Parses JSON text within the limits; any failure is upstream.invalid_response. */
export function parseJson(text: string, limits: JsonLimits): unknown {
  if (text.length <= PARSE_FIRST_MAX) {
    const value = parse(text, false);
    // An integer literal beyond 2^53 always parses to a non-safe integer
    // number; only then is the text parsed again with the reviver.
    return checkLimits(value, limits) ? parse(text, true) : value;
  }
  return parse(text, scanJson(text, limits).longDigitRun);
}

function parse(text: string, keepBig: boolean): unknown {
  try {
    return keepBig ? JSON.parse(text, keepBigIntegers) : JSON.parse(text);
  } catch (err) {
    throw invalid('The backend answer is not valid JSON.', err);
  }
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
 */
function checkLimits(root: unknown, limits: JsonLimits): boolean {
  if (typeof root !== 'object' || root === null) return isUnsafeInteger(root);
  let unsafeInteger = false;
  const values: object[] = [root];
  const depths: number[] = [1];
  while (values.length > 0) {
    const value = values.pop()!;
    const depth = depths.pop()!;
    if (depth > limits.maxDepth) {
      throw invalid(`The backend answer nests deeper than ${limits.maxDepth} levels.`);
    }
    if (Array.isArray(value)) {
      if (value.length > limits.maxArrayLength) {
        throw invalid(`The backend answer has an array longer than ${limits.maxArrayLength} elements.`);
      }
      for (let i = 0; i < value.length; i++) {
        const child: unknown = value[i];
        if (typeof child === 'object') {
          if (child !== null) {
            values.push(child);
            depths.push(depth + 1);
          }
        } else if (!unsafeInteger && isUnsafeInteger(child)) unsafeInteger = true;
      }
    } else {
      for (const key in value) {
        const child: unknown = (value as Record<string, unknown>)[key];
        if (typeof child === 'object') {
          if (child !== null) {
            values.push(child);
            depths.push(depth + 1);
          }
        } else if (!unsafeInteger && isUnsafeInteger(child)) unsafeInteger = true;
      }
    }
  }
  return unsafeInteger;
}

function isUnsafeInteger(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value);
}
