/**
 * Why RE2 refused a sculpt's regular expression, in words a designer can act on.
 * A pattern that is valid JavaScript reaches RE2 (jsonata has already parsed it with
 * `new RegExp`), and RE2 refuses two kinds of it:
 *
 * - what cannot run in linear time: backreferences (`\1`, `\k<name>`), lookahead and
 *   lookbehind (`(?=…)`, `(?!…)`, `(?<=…)`, `(?<!…)`);
 * - JavaScript syntax RE2 spells differently or lacks: `\u0041` and `\u{41}` (RE2: `\x{41}`),
 *   `\cJ` (RE2: `\x{0A}`), `[^]` (RE2: `[\s\S]`), `[\b]` (RE2: `\x{08}`), escapes of letters
 *   that mean nothing in RE2 (`\e`, `\h`, `\Z`…), more than 1000 repeats.
 *
 * re2js names the offending token (`invalid escape sequence: \u`); this maps it to the place
 * in the pattern and to what to write instead.
 */
export function re2SyntaxProblem(source: string, reason: string): string {
  const pattern = `The regular expression /${source}/`;
  const escape = /invalid escape sequence: `\\(.)/.exec(reason)?.[1];
  const lookaround = /unsupported Perl syntax: `\(\?[=!>]|invalid named capture: `\(\?<[=!]/.test(reason);
  if (lookaround || (escape !== undefined && /[1-9k]/.test(escape))) {
    return `${pattern} cannot run in linear time (${reason}). Sculpts use RE2 syntax: no backreferences, lookahead or lookbehind; match the parts separately, or post-process the result in the expression.`;
  }
  const token = escape !== undefined ? findEscape(source, escape) : undefined;
  const instead = token ? rewrite(token) : undefined;
  if (instead)
    return `${pattern} uses ${instead}. Sculpts use RE2 syntax (docs/SCULPT-FORMAT.md, "Expressions").`;
  if (/missing closing \]: `\[\^\]/.test(reason)) {
    return `${pattern} uses \`[^]\` (any character), which is JavaScript's: RE2 writes \`[\\s\\S]\`, or \`(?s:.)\`. Sculpts use RE2 syntax (docs/SCULPT-FORMAT.md, "Expressions").`;
  }
  if (/invalid repeat count/.test(reason)) {
    return `${pattern} repeats more than RE2's 1000 times (${reason}): use a count of at most 1000, or \`+\` / \`*\`. Sculpts use RE2 syntax (docs/SCULPT-FORMAT.md, "Expressions").`;
  }
  return `${pattern} is not RE2 syntax (${reason}). Sculpts use RE2 syntax (docs/SCULPT-FORMAT.md, "Expressions"): write the character itself, or \`\\x{…}\` for its code point.`;
}

interface Escape {
  /** The escape as written, e.g. `\u0041`. */
  text: string;
  /** Written inside a character class `[…]`. */
  inClass: boolean;
}

/** The first `\<letter>` escape in the pattern, read as RE2 reads it (`\\` is one escaped backslash). */
function findEscape(source: string, letter: string): Escape | undefined {
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      if (source[i + 1] === letter) {
        const rest = source.slice(i);
        const text =
          /^\\u\{[0-9a-fA-F]+\}|^\\u[0-9a-fA-F]{4}|^\\c[A-Za-z]/.exec(rest)?.[0] ?? rest.slice(0, 2);
        return { text, inClass };
      }
      i++; // the escaped character is not syntax
    } else if (c === '[' && !inClass) inClass = true;
    else if (c === ']' && inClass) inClass = false;
  }
  return undefined;
}

/** What the escape is in JavaScript, and how RE2 writes it. */
function rewrite({ text, inClass }: Escape): string | undefined {
  const unicode = /^\\u\{?([0-9a-fA-F]+)\}?$/.exec(text);
  if (unicode) {
    const code = unicode[1]!.toUpperCase();
    return `\`${text}\`, JavaScript's code point escape: RE2 writes \`\\x{${code}}\`, or the character itself`;
  }
  const control = /^\\c([A-Za-z])$/.exec(text);
  if (control) {
    const code = (control[1]!.charCodeAt(0) & 0x1f).toString(16).toUpperCase().padStart(2, '0');
    return `\`${text}\`, JavaScript's control character escape: RE2 writes \`\\x{${code}}\``;
  }
  if (text === '\\b' && inClass) return "`[\\b]` (a backspace), which is JavaScript's: RE2 writes `\\x{08}`";
  if (/^\\[A-Za-z]$/.test(text) && !inClass) {
    return `\`${text}\`, which is not an escape in RE2: write the character it stands for, or \`\\x{…}\` for its code point (RE2 escapes only punctuation, and \`\\d \\w \\s \\b \\A \\z \\p{…} \\x{…} \\t \\n \\r \\f \\v\`)`;
  }
  return undefined;
}
