import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { parseScenarios } from '../../src/eval/scenario-file.ts';
import { type ModelCall, scoreTurn } from '../../src/eval/score-turn.ts';

interface Case {
  name: string;
  expect: unknown;
  calls: Array<[string, string]>;
  toolChoice: boolean;
  correct: boolean;
  problem?: string;
}

const CASES = parse(readFileSync('test/eval/scoring-cases.yaml', 'utf8')) as Case[];

/** The expectation read by the scenario loader itself, as a scenario file would give it. */
function expectation(raw: unknown) {
  const { file, errors } = parseScenarios(
    '/cases.eval.yaml',
    stringify({ scenarios: [{ name: 'case', request: 'x', expect: raw }] }),
  );
  expect(errors.map((e) => e.message)).toEqual([]);
  return file!.scenarios[0]!.turns[0]!.expect;
}

/** A call as the model made it; the schema check is offered-tools' (tested with the runs). */
function call([tool, raw]: [string, string]): ModelCall {
  try {
    const value: unknown = JSON.parse(raw);
    return {
      tool,
      rawArguments: raw,
      arguments: value as Record<string, unknown>,
      valid: true,
      problems: [],
    };
  } catch (err) {
    return { tool, rawArguments: raw, valid: false, problems: [`not JSON (${(err as Error).message})`] };
  }
}

describe('scoring a turn (test/eval/scoring-cases.yaml)', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const score = scoreTurn(expectation(c.expect), c.calls.map(call));
    expect({ toolChoice: score.toolChoice, correct: score.correct }).toEqual({
      toolChoice: c.toolChoice,
      correct: c.correct,
    });
    if (c.correct) expect(score.problems).toEqual([]);
    if (c.problem) expect(score.problems.join(' ')).toContain(c.problem);
    else if (!c.correct) expect(score.problems.length).toBeGreaterThan(0);
  });
});
