/**
 * Regular expressions in sculpt expressions (RELIABILITY G3). JSONata's
 * guardrail timeout cannot interrupt a backtracking regex (finding M2: 9.5 s
 * for `/^(a+)+$/`), so the dangerous shape is refused at load and the input a
 * regex may scan is capped at run time.
 */

export const MAX_REGEX_INPUT = 4096;

/**
 * True when an unbounded quantifier applies to a group that itself contains an
 * unbounded quantifier — `(a+)+`, `(a*)*`, `(\w+\s?)*`, `(?:x+){2,}` — the
 * "star height above one" that makes backtracking exponential. Alternations of
 * overlapping branches (`(a|aa)+`) are not detected; the input cap bounds them.
 */
export function hasNestedQuantifier(source: string): boolean {
  const groups: boolean[] = []; // per open group: contains an unbounded quantifier
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const ch = source[i]!;
    if (ch === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (ch === ']') inClass = false;
      continue;
    }
    if (ch === '[') inClass = true;
    else if (ch === '(') groups.push(false);
    else if (ch === ')') {
      const inner = groups.pop() ?? false;
      const quantified = unboundedQuantifierAt(source, i + 1);
      if (inner && quantified) return true;
      if ((inner || quantified) && groups.length > 0) groups[groups.length - 1] = true;
    } else if (unboundedQuantifierAt(source, i) && groups.length > 0) {
      groups[groups.length - 1] = true;
    }
  }
  return false;
}

function unboundedQuantifierAt(source: string, i: number): boolean {
  const ch = source[i];
  if (ch === '+' || ch === '*') return true;
  return ch === '{' && /^\{\d*,\}/.test(source.slice(i));
}

/**
 * JSONata's RegexEngine: a RegExp that refuses to scan more than
 * MAX_REGEX_INPUT characters, with the error shape JSONata code uses.
 */
export class BoundedRegExp extends RegExp {
  override exec(text: string): RegExpExecArray | null {
    if (text.length > MAX_REGEX_INPUT) {
      throw { code: 'D3137', message: `Regular expressions may scan at most ${MAX_REGEX_INPUT} characters.` };
    }
    return super.exec(text);
  }
}
