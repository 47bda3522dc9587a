import { currentBudget } from './evaluation-budget.ts';
import { LinearRegExp } from './linear-regex.ts';

/**
 * Regular expressions in sculpt expressions (RELIABILITY G3) run on RE2 (`linear-regex.ts`):
 * linear in the text, but a search can still cost up to (characters scanned) × (the pattern's
 * program size) steps, ≈ 40–100 ns each in re2js — `/^(\w+\s?){1,50}$/` (353 instructions) on
 * 50,000 characters took 1.6 s in one call, with nothing to stop it. So one search may take at
 * most MAX_REGEX_STEPS steps: ≈ 100 ms at most on a loaded machine; a 3-instruction `/\s/`
 * still scans 350,000 characters, that pattern about 3,000.
 */
export const MAX_REGEX_STEPS = 1024 * 1024;

/** What one match costs next to one character scanned (jsonata builds an object per match). */
const MATCH = 64;

/**
 * JSONata's RegexEngine: RE2, each search refused past MAX_REGEX_STEPS before it runs, and
 * charged to the evaluation's budget (`evaluation-budget.ts`) after, which also stops a
 * `$replace` or `$match` looping over many matches at the evaluation's end time.
 */
export class BoundedRegExp extends LinearRegExp {
  override exec(text: string): RegExpExecArray | null {
    const from = this.lastIndex;
    if ((text.length - from) * this.programSize > MAX_REGEX_STEPS) {
      throw {
        code: 'D9004',
        message: `A regular expression would take more than ${MAX_REGEX_STEPS} steps (characters scanned × the pattern's size); search a shorter text or use a simpler pattern.`,
      };
    }
    const match = super.exec(text);
    // What RE2 scanned: up to the match's end, or to the end of the text.
    const scanned = (match ? this.lastIndex : text.length) - from;
    currentBudget()?.charge('a regular expression', Math.max(0, scanned) + MATCH);
    return match;
  }
}
