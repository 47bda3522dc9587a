import { currentBudget } from './evaluation-budget.ts';
import { type Implementation, jsonataImplementation } from './jsonata-builtins.ts';
import { isComposite } from './value-size.ts';

/**
 * Built-ins Sculptor implements itself, with jsonata's answers (`bounded-builtins-suite.test.ts`
 * runs jsonata's own cases through them) but without jsonata's hidden costs: jsonata turns a
 * string into an array of one-character strings to count, cut or pad it (tens of bytes per
 * character), builds `$pad`'s padding as width × pad-length characters before cutting it, copies
 * the rest of an array at every step of `$sort`, and compares every pair of items in `$distinct`.
 * Each here costs what its row in the cost model (`cost-model.ts`) says, which is charged
 * before it runs.
 */

const isHigh = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;
const isLow = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff;

/** Code points in `text`, as jsonata counts them (a lone surrogate is one). */
export function codePoints(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++, count++) {
    if (isHigh(text.charCodeAt(i)) && isLow(text.charCodeAt(i + 1))) i++;
  }
  return count;
}

/** The UTF-16 offset of code point `index` (≤ its code points), scanning from `from` (a code point boundary). */
function unitOffset(text: string, index: number, from = 0): number {
  let at = from;
  for (let n = 0; n < index && at < text.length; n++) {
    at += isHigh(text.charCodeAt(at)) && isLow(text.charCodeAt(at + 1)) ? 2 : 1;
  }
  return at;
}

/** `$length`: code points, without jsonata's array of every character. */
export function length(text: unknown): unknown {
  return typeof text === 'string' ? codePoints(text) : undefined;
}

/** `$substring(str, start[, length])` by code points, as jsonata's, without its array. */
export function substring(text: unknown, start: unknown, count?: unknown): unknown {
  if (typeof text !== 'string') return undefined;
  const n = codePoints(text);
  // Array.prototype.slice's rules, which jsonata's implementation applies to its array.
  const index = (x: number) => {
    const t = Math.trunc(x) || 0;
    return t < 0 ? Math.max(n + t, 0) : Math.min(t, n);
  };
  let first = start as number;
  if (n + first < 0) first = 0;
  let end = n;
  if (count !== undefined) {
    const c = count as number;
    if (c <= 0) return '';
    end = first >= 0 ? first + c : n + first + c;
  }
  const from = index(first);
  const to = index(end);
  if (to <= from) return '';
  const startUnit = unitOffset(text, from);
  return text.slice(startUnit, unitOffset(text, to - from, startUnit));
}

/**
 * What `$pad(str, width, char)` makes, measured without making it: the padding is the first
 * `padLength` code points of `char` repeated. `undefined` when nothing is added.
 */
export function padPlan(
  text: string,
  width: number,
  char: string | undefined,
): { padLength: number; pad: string; units: number } | undefined {
  const pad = char === undefined || char.length === 0 ? ' ' : char;
  const padLength = Math.abs(Math.trunc(width)) - codePoints(text);
  if (!(padLength > 0)) return undefined;
  const per = codePoints(pad);
  const whole = Math.floor(padLength / per);
  const rest = padLength - whole * per;
  return { padLength, pad, units: text.length + whole * pad.length + unitOffset(pad, rest) };
}

/** `$pad`: the padding built to its final length once, never as an array of characters. */
export function pad(text: unknown, width: unknown, char?: unknown): unknown {
  if (typeof text !== 'string') return undefined;
  const plan = padPlan(text, width as number, char as string | undefined);
  if (!plan) return text;
  const per = codePoints(plan.pad);
  const whole = Math.floor(plan.padLength / per);
  const padding =
    plan.pad.repeat(whole) + plan.pad.slice(0, unitOffset(plan.pad, plan.padLength - whole * per));
  return (width as number) > 0 ? text + padding : padding + text;
}

/**
 * `$sort` as jsonata defines it — stable, ascending, a comparator returning true when its
 * first argument goes after its second — without jsonata's merge, which copies the rest of
 * the array at every element: 10,000 items took 390 ms and more than a worker's 128 MiB heap,
 * where this takes a few milliseconds and no more memory than the array.
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

export function sort(items: unknown, comparator?: unknown): unknown {
  if (items === undefined) return undefined;
  if (!Array.isArray(items) || items.length <= 1) return items;
  return sortItems(items, comparator as ((a: unknown, b: unknown) => unknown) | undefined);
}

/**
 * jsonata's deep equality (`=`, `!=`, `$distinct`): arrays and sequences item by item, objects
 * by their own property names and values, anything else by `===`.
 */
export function deepEqual(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (!isComposite(left) || !isComposite(right)) return false;
  if (Array.isArray(left) && Array.isArray(right)) {
    if (left.length !== right.length) return false;
    for (let i = 0; i < left.length; i++) if (!deepEqual(left[i], right[i])) return false;
    return true;
  }
  const lkeys = Object.getOwnPropertyNames(left).sort();
  const rkeys = Object.getOwnPropertyNames(right).sort();
  if (lkeys.length !== rkeys.length) return false;
  for (let i = 0; i < lkeys.length; i++) if (lkeys[i] !== rkeys[i]) return false;
  for (const key of lkeys) {
    if (!deepEqual((left as Record<string, unknown>)[key], (right as Record<string, unknown>)[key]))
      return false;
  }
  return true;
}

/**
 * A string equal for two values exactly when `deepEqual` holds, or `undefined` for a value
 * holding something only identity compares (a function) or nothing equals (NaN).
 */
function canonicalKey(value: unknown): string | undefined {
  // JSON's own text is canonical for arrays of strings, finite numbers, booleans and null
  // (no keys to order), and native: a backend's array of 4,000 numbers keys in microseconds.
  if (Array.isArray(value) && isPlainArray(value)) return `J${JSON.stringify(value)}`;
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isNaN(value) ? undefined : `n${value}`;
    case 'boolean':
      return value ? 't' : 'f';
    case 'undefined':
      return 'u';
    case 'object': {
      if (value === null) return 'z';
      const parts: string[] = [];
      if (Array.isArray(value)) {
        for (const item of value) {
          const key = canonicalKey(item);
          if (key === undefined) return undefined;
          parts.push(key);
        }
        return `[${parts.join(',')}]`;
      }
      for (const name of Object.getOwnPropertyNames(value).sort()) {
        const key = canonicalKey((value as Record<string, unknown>)[name]);
        if (key === undefined) return undefined;
        parts.push(`${JSON.stringify(name)}:${key}`);
      }
      return `{${parts.join(',')}}`;
    }
    default:
      return undefined;
  }
}

function isPlainArray(items: unknown[]): boolean {
  for (const item of items) {
    const type = typeof item;
    if (type === 'string' || type === 'boolean' || item === null) continue;
    if (type === 'number' && Number.isFinite(item)) continue;
    if (!Array.isArray(item) || !isPlainArray(item)) return false;
  }
  return true;
}

/**
 * `$distinct`: each item keyed by its canonical form and kept the first time its key is seen —
 * linear in the items' total size, where jsonata compared each with every distinct one so far
 * (a backend answer of 600 arrays of 4,000 numbers held the event loop 9–18 s). Items only
 * identity can compare fall back to jsonata's pairwise comparison, charged as such.
 */
export function distinct(this: unknown, items: unknown): unknown {
  if (!Array.isArray(items) || items.length <= 1) return items;
  const keys: string[] = [];
  const budget = currentBudget();
  for (const item of items) {
    budget?.charge('$distinct', 0); // the end time, between items
    const key = canonicalKey(item);
    if (key === undefined) {
      currentBudget()?.charge('$distinct', (items.length * items.length) / 2);
      return jsonataImplementation('distinct').call(this, items);
    }
    keys.push(key);
  }
  const seen = new Set<string>();
  const result = (this as { createSequence(): unknown[] }).createSequence();
  items.forEach((item, i) => {
    if (!seen.has(keys[i]!)) {
      seen.add(keys[i]!);
      result.push(item);
    }
  });
  return (items as { sequence?: boolean }).sequence ? result : [...result];
}

const ARRAY_INDEX = /^(0|[1-9]\d{0,9})$/;
const isArrayIndex = (key: string) => ARRAY_INDEX.test(key) && Number(key) < 2 ** 32 - 1;

/**
 * `$keys`: the own keys of an object, or of every object in an array, nested arrays included,
 * each once — in the order jsonata gives them (it merges them into an object, whose keys list
 * array indexes first, ascending) — walked without jsonata's sequence per nested item: its
 * `$keys` of 120 arrays of 4,000 numbers took 3.9 s and 125 MiB.
 */
export function keys(this: unknown, value: unknown): unknown {
  const result = (this as { createSequence(): unknown[] }).createSequence();
  if (!Array.isArray(value)) {
    if (value !== null && typeof value === 'object' && !isJsonataFunction(value)) {
      for (const key of Object.keys(value)) result.push(key);
    }
    return result;
  }
  const seen = new Set<string>();
  const stack: unknown[] = [value];
  const budget = currentBudget();
  while (stack.length > 0) {
    const item = stack.pop();
    if (Array.isArray(item)) {
      budget?.charge('$keys', item.length);
      for (let i = item.length - 1; i >= 0; i--) stack.push(item[i]);
    } else if (item !== null && typeof item === 'object' && !isJsonataFunction(item)) {
      for (const key of Object.keys(item)) if (key !== '__proto__') seen.add(key);
    }
  }
  const indexes = [...seen].filter(isArrayIndex).sort((a, b) => Number(a) - Number(b));
  for (const key of indexes) result.push(key);
  for (const key of seen) if (!isArrayIndex(key)) result.push(key);
  return result;
}

/**
 * `$spread` of an array: jsonata appends each item's spread to a copy of everything so far
 * (10,000 objects: 2.5 s and 53 MiB before its sequence limit stopped it); here each is pushed
 * once, with the same answer — a plain array once anything was appended, as jsonata's `concat`
 * makes — and the same refusal past the sequence limit (`D2015`).
 */
export function spread(this: unknown, value: unknown): unknown {
  const env = this as { createSequence(): unknown[]; options?: { sequence?: number } };
  if (!Array.isArray(value)) return jsonataImplementation('spread').call(this, value);
  const limit = env.options?.sequence ?? Infinity;
  let result = env.createSequence();
  let appended = false;
  for (const item of value) {
    const part = item !== null && typeof item === 'object' ? spread.call(this, item) : item;
    if (part === undefined) continue;
    if (!appended) {
      result = [...result];
      appended = true;
    }
    if (Array.isArray(part)) for (const p of part) result.push(p);
    else result.push(part);
    if (result.length > limit) throw { code: 'D2015', stack: new Error().stack, value: result.length };
  }
  return result;
}

function isJsonataFunction(value: object): boolean {
  const flags = value as { _jsonata_function?: unknown; _jsonata_lambda?: unknown };
  return flags._jsonata_function === true || flags._jsonata_lambda === true;
}

/** Characters encoded at a time: one slice holds the event loop for a millisecond or so. */
const ENCODE_SLICE = 65_536;

/**
 * `$encodeUrlComponent` and `$encodeUrl` a slice at a time, the output counted as it grows: a
 * text whose encoding outgrows the string limit (up to 9 characters per "€") is refused as
 * soon as it does, and the end time is checked between slices. jsonata's one native call over
 * all of it held the event loop 160–320 ms for 5,000,000 "€" and made 45 M characters before
 * the limit could refuse them. The same result: slices never split a surrogate pair.
 */
export function encodeInSlices(
  name: 'encodeUrlComponent' | 'encodeUrl',
  encode: (s: string) => string,
): Implementation {
  const fn = `$${name}`;
  const whole = jsonataImplementation(name);
  return function (this: unknown, text) {
    const budget = currentBudget();
    if (typeof text !== 'string' || text.length <= ENCODE_SLICE || !budget) return whole.call(this, text);
    let encoded = '';
    for (let at = 0; at < text.length;) {
      let end = Math.min(text.length, at + ENCODE_SLICE);
      if (isHigh(text.charCodeAt(end - 1)) && end < text.length) end++;
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
