import { RE2JS } from 're2js';
import { re2SyntaxProblem } from './re2-syntax.ts';

/**
 * Regular expressions in sculpt expressions run on RE2 (a pure-JS port, `re2js`): time
 * linear in the input whatever the pattern says (RELIABILITY G3), where the
 * backtracking engine took 59.5 s on 31 characters for `/^(\w+\s?){1,50}$/`.
 *
 * RE2 refuses what cannot run in linear time (backreferences, lookahead and lookbehind) and
 * some JavaScript syntax it spells differently (`\u0041`, `\cJ`, `[^]`…). Such a pattern is a
 * load error (`compile.unsafe_regex`) saying which, and what to write instead (`re2-syntax.ts`).
 */

/** A regex literal RE2 cannot run, or undefined: the message says what to write instead. */
export function linearRegexProblem(regex: RegExp): string | undefined {
  try {
    compile(regex);
    return undefined;
  } catch (err) {
    return re2SyntaxProblem(regex.source, (err as Error).message.replace(/^error parsing regexp: /, ''));
  }
}

/** Compiled patterns by flags and source: jsonata makes a RegexEngine at every evaluation. */
const compiled = new Map<string, RE2JS>();
const MAX_COMPILED = 1_000;

function compile(regex: RegExp): RE2JS {
  const key = `${regex.flags}/${regex.source}`;
  let re = compiled.get(key);
  if (re) return re;
  let flags = 0;
  if (regex.flags.includes('i')) flags |= RE2JS.CASE_INSENSITIVE;
  if (regex.flags.includes('m')) flags |= RE2JS.MULTILINE;
  if (regex.flags.includes('s')) flags |= RE2JS.DOTALL;
  re = RE2JS.compile(regex.source, flags);
  if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
  compiled.set(key, re);
  return re;
}

/**
 * JSONata's `RegexEngine`: constructed from the parsed regex literal, driven through
 * `lastIndex` and `exec` as JSONata drives a RegExp (every match from `lastIndex` on).
 */
export class LinearRegExp {
  lastIndex = 0;
  readonly source: string;
  /** RE2's instructions for the pattern: a search costs up to this many steps per character. */
  readonly programSize: number;
  readonly #re: RE2JS;

  constructor(regex: RegExp) {
    this.source = regex.source;
    this.#re = compile(regex);
    this.programSize = this.#re.programSize();
  }

  exec(text: string): RegExpExecArray | null {
    const matcher = this.#re.matcher(text);
    if (this.lastIndex > text.length || !matcher.find(this.lastIndex)) {
      this.lastIndex = 0;
      return null;
    }
    const groups: Array<string | undefined> = [];
    for (let i = 0; i <= matcher.groupCount(); i++) groups.push(matcher.group(i) ?? undefined);
    const match = Object.assign(groups, {
      index: matcher.start(),
      input: text,
    }) as unknown as RegExpExecArray;
    this.lastIndex = matcher.end();
    return match;
  }

  test(text: string): boolean {
    return this.#re.matcher(text).find();
  }
}
