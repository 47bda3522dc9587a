import path from 'node:path';
import { Ajv } from 'ajv';
import { LinearRegExp, linearRegexProblem } from '../compile/jsonata/linear-regex.ts';
import { SculptorError, type SourcePosition } from '../errors/sculptor-error.ts';
import { schemaErrors } from '../sculpt/validate-schema.ts';
import { findFilesBySuffix } from '../testing/index.ts';
import { parseYamlSource, readYamlSource, type YamlPath, type YamlSource } from '../sculpt/yaml-source.ts';
import scenarioSchema from './eval-scenarios.schema.json' with { type: 'json' };

/** Scenario files end in this; `sculptor eval` finds them below folders. */
export const EVAL_SUFFIX = '.eval.yaml';

export type Literal = string | number | boolean;

/** What one argument's value must be. */
export type Matcher =
  | { kind: 'literal'; value: Literal }
  | { kind: 'pattern'; source: string; regex: LinearRegExp }
  | { kind: 'oneOf'; values: Literal[] }
  | { kind: 'present' };

export interface ExpectedCall {
  tool: string;
  /** Arguments that must appear, with what their value must be. */
  arguments: Record<string, Matcher>;
  /** Arguments that may appear with any value. */
  optional: string[];
}

/** One acceptable answer: these calls in this order (none: no call at all). */
export type Alternative = { calls: ExpectedCall[] } | { none: true };

export interface Turn {
  request: string;
  /** Any of these answers is right; a catalog is scored against those whose tools it has. */
  expect: Alternative[];
  at: SourcePosition;
}

export interface Scenario {
  name: string;
  /** The first request, then each follow-up. */
  turns: Turn[];
  at: SourcePosition;
}

export interface ScenarioFile {
  file: string;
  system?: string;
  scenarios: Scenario[];
}

const ajv = new Ajv({ allErrors: true, strict: false });
const validate = ajv.compile(scenarioSchema);

interface RawCall {
  tool: string;
  arguments?: Record<string, unknown>;
  optional?: string[];
}
type RawAlternative = RawCall | { calls: RawCall[] } | { none: true };
type RawExpectation = RawAlternative | { any: RawAlternative[] };
interface RawTurn {
  request: string;
  expect: RawExpectation;
}
interface RawFile {
  system?: string;
  scenarios: Array<RawTurn & { name: string; then?: RawTurn[] }>;
}

/**
 * Reads one scenario file: strict YAML, its JSON Schema, then what the schema cannot say (a
 * pattern RE2 cannot run, an argument both required and optional, two scenarios of one name).
 * Every problem is returned at once with its file:line:col.
 */
export async function loadScenarioFile(
  file: string,
): Promise<{ file?: ScenarioFile; errors: SculptorError[] }> {
  const parsed = await readYamlSource(path.resolve(file), 'the scenario file');
  return parsed.source ? scenariosOf(parsed.source) : { errors: parsed.errors };
}

/** The same from text (the Studio checks what it is about to save). */
export function parseScenarios(file: string, text: string): { file?: ScenarioFile; errors: SculptorError[] } {
  const parsed = parseYamlSource(file, text);
  return parsed.source ? scenariosOf(parsed.source) : { errors: parsed.errors };
}

function scenariosOf(source: YamlSource): { file?: ScenarioFile; errors: SculptorError[] } {
  const invalid = schemaErrors(validate, source);
  if (invalid.length > 0) return { errors: invalid };
  const raw = source.value as RawFile;
  const errors: SculptorError[] = [];
  const names = new Map<string, SourcePosition>();
  const scenarios = raw.scenarios.map((s, i): Scenario => {
    const at = source.at(['scenarios', i]);
    const seen = names.get(s.name);
    if (seen) {
      errors.push(
        new SculptorError(
          'eval.scenario',
          `Two scenarios are named '${s.name}' (the other at line ${seen.line}): reports pair scenarios by name, so give each its own.`,
          { at: source.at(['scenarios', i, 'name']) },
        ),
      );
    }
    names.set(s.name, at);
    const turns = [s, ...(s.then ?? [])].map((t, j) => {
      const where: YamlPath = j === 0 ? ['scenarios', i] : ['scenarios', i, 'then', j - 1];
      return {
        request: t.request,
        expect: alternatives(t.expect, [...where, 'expect'], source, errors),
        at: source.at(where),
      };
    });
    return { name: s.name, turns, at };
  });
  if (errors.length > 0) return { errors };
  return {
    file: { file: source.file, ...(raw.system !== undefined ? { system: raw.system } : {}), scenarios },
    errors: [],
  };
}

function alternatives(
  raw: RawExpectation,
  at: YamlPath,
  source: YamlSource,
  errors: SculptorError[],
): Alternative[] {
  const list = 'any' in raw ? raw.any.map((a, k) => [a, [...at, 'any', k]] as const) : [[raw, at] as const];
  return list.map(([alt, where]): Alternative => {
    if ('none' in alt) return { none: true };
    const calls =
      'calls' in alt
        ? alt.calls.map((c, k) => [c, [...where, 'calls', k]] as const)
        : [[alt, where] as const];
    return { calls: calls.map(([c, w]) => expectedCall(c, w, source, errors)) };
  });
}

function expectedCall(raw: RawCall, at: YamlPath, source: YamlSource, errors: SculptorError[]): ExpectedCall {
  const args: Record<string, Matcher> = {};
  for (const [name, value] of Object.entries(raw.arguments ?? {})) {
    const where = [...at, 'arguments', name];
    if (typeof value === 'object' && value !== null && 'pattern' in value) {
      const pattern = String((value as { pattern: string }).pattern);
      let problem: string | undefined;
      try {
        problem = linearRegexProblem(new RegExp(pattern, 'i'));
      } catch (err) {
        problem = (err as Error).message;
      }
      if (problem) {
        errors.push(
          new SculptorError('eval.scenario', `The pattern of '${name}' cannot be used: ${problem}`, {
            at: source.at([...where, 'pattern']),
          }),
        );
        continue;
      }
      args[name] = { kind: 'pattern', source: pattern, regex: new LinearRegExp(new RegExp(pattern, 'i')) };
    } else if (typeof value === 'object' && value !== null && 'oneOf' in value) {
      args[name] = { kind: 'oneOf', values: (value as { oneOf: Literal[] }).oneOf };
    } else if (typeof value === 'object' && value !== null) {
      args[name] = { kind: 'present' };
    } else {
      args[name] = { kind: 'literal', value: value as Literal };
    }
  }
  const optional = raw.optional ?? [];
  for (const [k, name] of optional.entries()) {
    if (name in args) {
      errors.push(
        new SculptorError(
          'eval.scenario',
          `'${name}' is both an argument that must appear and an optional one: keep it in one of the two.`,
          { at: source.at([...at, 'optional', k]) },
        ),
      );
    }
  }
  return { tool: raw.tool, arguments: args, optional };
}

/** Scenario files named directly, or found below folders (name order, so runs are repeatable). */
export async function findScenarioFiles(paths: readonly string[]): Promise<string[]> {
  try {
    return await findFilesBySuffix(paths, EVAL_SUFFIX);
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).path ?? paths.join(', ');
    throw new SculptorError(
      'load.io',
      `There is no file or folder ${missing}: name scenario files (*${EVAL_SUFFIX}) or folders holding them.`,
      { cause: err },
    );
  }
}

/** Every tool an expectation names, for checking a scenario against a catalog. */
export function toolsNamed(alternative: Alternative): string[] {
  return 'calls' in alternative ? alternative.calls.map((c) => c.tool) : [];
}
