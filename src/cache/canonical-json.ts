/**
 * JSON with object keys sorted (by UTF-16 code units) and `undefined` members
 * dropped, so that two equal structures always serialize to the same bytes and
 * can be hashed into a cache key (RELIABILITY E1). Arrays keep their order:
 * order inside an array is meaning, not presentation.
 *
 * Accepts plain data only (null, booleans, finite numbers, strings, arrays,
 * plain objects); anything else throws a TypeError rather than hashing a
 * lossy rendering of it.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError('canonicalJson: non-finite number');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(',')}]`;
  if (typeof value === 'object') {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null)
      throw new TypeError('canonicalJson: not a plain object');
    const members: string[] = [];
    for (const name of Object.keys(value).sort()) {
      const member = (value as Record<string, unknown>)[name];
      if (member === undefined) continue;
      members.push(`${JSON.stringify(name)}:${canonicalJson(member)}`);
    }
    return `{${members.join(',')}}`;
  }
  throw new TypeError(`canonicalJson: cannot encode a ${typeof value}`);
}
