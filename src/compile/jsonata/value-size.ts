/**
 * Sizes of values, as the cost model (`cost-model.ts`) prices them: a string is its UTF-16
 * units, an array its items, an object its keys. `deepSize` walks nested values and stops as
 * soon as it passes `cap` — the evaluation's remaining work — so measuring a value can never
 * cost more than the budget it is measured against.
 */

/** Characters, items or keys of one value, not looking inside. */
export function shallowSize(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (Array.isArray(value)) return value.length;
  if (value !== null && typeof value === 'object') {
    let keys = 0;
    for (const key in value) if (Object.hasOwn(value, key)) keys++;
    return keys;
  }
  return 1;
}

/**
 * Every node (1 each), string character and object key of a value, nested; `cap + 1` as soon as
 * the count passes `cap`. Iterative: a value nested deeper than the call stack is measured too.
 */
export function deepSize(value: unknown, cap = Infinity): number {
  let size = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    size += 1;
    if (typeof item === 'string') size += item.length;
    else if (Array.isArray(item)) {
      for (let i = 0; i < item.length; i++) stack.push(item[i]);
    } else if (item !== null && typeof item === 'object' && !isJsonataFunction(item)) {
      for (const key in item) {
        if (!Object.hasOwn(item, key)) continue;
        size += 1 + key.length;
        stack.push((item as Record<string, unknown>)[key]);
      }
    }
    if (size > cap) return cap + 1;
  }
  return size;
}

/**
 * A jsonata function or lambda: data treats it as one value (`$string` writes it as ""), and
 * what it holds (its environment, the input it closed over) is not data to walk.
 */
function isJsonataFunction(value: object): boolean {
  const flags = value as { _jsonata_function?: unknown; _jsonata_lambda?: unknown };
  return flags._jsonata_function === true || flags._jsonata_lambda === true;
}

/** Whether a value holds objects or arrays (what makes a comparison deep). */
export const isComposite = (value: unknown): value is object => value !== null && typeof value === 'object';
