import type { Alternative, ExpectedCall, Literal, Matcher } from './scenario-file.ts';

/** A tool call as the model made it: the raw text of its arguments kept for the report. */
export interface ModelCall {
  tool: string;
  /** The arguments exactly as the model wrote them (JSON text, or whatever it sent). */
  rawArguments: string;
  /** Parsed, when the text is a JSON object. */
  arguments?: Record<string, unknown>;
  /** Whether the arguments validate against the schema the tool was offered with. */
  valid: boolean;
  /** Schema problems, or why the text could not be read. */
  problems: string[];
}

export interface TurnScore {
  /** The expected tool(s) were called, in order (or, when no call is right, none was made). */
  toolChoice: boolean;
  /** …and with the expected arguments: the turn is right. */
  correct: boolean;
  /** What was wrong, for the report (empty when correct). */
  problems: string[];
}

/**
 * Scores one turn's calls against the answers a designer declared right for it. An answer that
 * is a sequence of calls matches the calls made as an ordered subsequence: a model may call
 * something else between them (each extra call shows in calls per task), but each expected call
 * is taken at the first call of its tool, after the previous one, whose arguments match — else
 * at the first call of its tool, whose arguments are then reported. The best answer counts.
 */
export function scoreTurn(expect: readonly Alternative[], calls: readonly ModelCall[]): TurnScore {
  const scores = expect.map((alternative) => scoreAlternative(alternative, calls));
  return (
    scores.find((s) => s.correct) ??
    scores.find((s) => s.toolChoice) ??
    scores[0] ?? { toolChoice: false, correct: false, problems: ['No expectation applies.'] }
  );
}

function scoreAlternative(alternative: Alternative, calls: readonly ModelCall[]): TurnScore {
  if ('none' in alternative) {
    const ok = calls.length === 0;
    return {
      toolChoice: ok,
      correct: ok,
      problems: ok
        ? []
        : [`No tool call was expected; the model called ${calls.map((c) => c.tool).join(', ')}.`],
    };
  }
  const problems: string[] = [];
  let toolChoice = true;
  let correct = true;
  let cursor = 0;
  for (const expected of alternative.calls) {
    const candidates = calls
      .map((c, i) => ({ c, i }))
      .filter(({ c, i }) => i >= cursor && c.tool === expected.tool);
    if (candidates.length === 0) {
      toolChoice = false;
      correct = false;
      const made = calls.length > 0 ? calls.map((c) => c.tool).join(', ') : 'no tool';
      problems.push(
        `Expected a call of ${expected.tool}${cursor > 0 ? ' after the previous one' : ''}; the model called ${made}.`,
      );
      continue;
    }
    const matching = candidates.find(({ c }) => argumentProblems(expected, c).length === 0);
    const taken = matching ?? candidates[0]!;
    if (!matching) {
      correct = false;
      problems.push(...argumentProblems(expected, taken.c).map((p) => `${expected.tool}: ${p}`));
    }
    cursor = taken.i + 1;
  }
  return { toolChoice, correct, problems };
}

/** Why a call's arguments are not the expected ones (empty: they are). Null means absent. */
export function argumentProblems(expected: ExpectedCall, call: ModelCall): string[] {
  if (!call.arguments) return [`its arguments are not a JSON object: ${call.problems.join('; ')}`];
  const given = Object.fromEntries(
    Object.entries(call.arguments).filter(([, v]) => v !== null && v !== undefined),
  );
  const problems: string[] = [];
  for (const [name, matcher] of Object.entries(expected.arguments)) {
    if (!(name in given)) {
      problems.push(`'${name}' is missing (expected ${describeMatcher(matcher)}).`);
    } else if (!matches(matcher, given[name])) {
      problems.push(`'${name}' is ${JSON.stringify(given[name])}, expected ${describeMatcher(matcher)}.`);
    }
  }
  for (const name of Object.keys(given)) {
    if (!(name in expected.arguments) && !expected.optional.includes(name)) {
      problems.push(`'${name}' was not expected (${JSON.stringify(given[name])}).`);
    }
  }
  return problems;
}

export function matches(matcher: Matcher, value: unknown): boolean {
  switch (matcher.kind) {
    case 'present':
      return true;
    case 'literal':
      return sameLiteral(matcher.value, value);
    case 'oneOf':
      return matcher.values.some((v) => sameLiteral(v, value));
    case 'pattern':
      return (
        (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') &&
        matcher.regex.test(String(value))
      );
  }
}

/** Text compares as people read it (case and spacing aside); numbers and booleans exactly, by type. */
function sameLiteral(expected: Literal, value: unknown): boolean {
  if (typeof expected === 'string') {
    return typeof value === 'string' && normalize(value) === normalize(expected);
  }
  return value === expected;
}

const normalize = (text: string) => text.normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase();

export function describeMatcher(matcher: Matcher): string {
  switch (matcher.kind) {
    case 'present':
      return 'any value';
    case 'literal':
      return JSON.stringify(matcher.value);
    case 'oneOf':
      return `one of ${matcher.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'pattern':
      return `a match of /${matcher.source}/i`;
  }
}
