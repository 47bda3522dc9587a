import type { CompiledTool } from '../compile/compile-tool.ts';
import type { InputParameter } from '../compile/tool-signature.ts';
import { type InputProblem, SculptorError } from '../errors/sculptor-error.ts';

export type ToolInputs = Record<string, string | number | boolean>;

/**
 * Checks an A2T invocation body `{name, input_parameters: [{name, value}]}`
 * against the tool's signature before anything runs, and reports every
 * problem at once so the LLM can fix its call in one retry. Returns the
 * inputs by name, defaults applied; only declared names ever become keys.
 */
export function validateInvocation(tool: CompiledTool, body: unknown): ToolInputs {
  const problems: InputProblem[] = [];
  const problem = (parameter: string, reason: string) => problems.push({ parameter, reason });
  if (!isPlainObject(body)) {
    throw invalid([{ parameter: '(body)', reason: 'must be a JSON object {name, input_parameters}' }]);
  }
  for (const key of Object.keys(body)) {
    if (key !== 'name' && key !== 'input_parameters') problem(key, 'is not part of an A2T invocation');
  }
  if (body.name !== tool.signature.name) {
    problem('name', `must be "${tool.signature.name}", the tool being invoked`);
  }
  const given = body.input_parameters ?? [];
  if (!Array.isArray(given))
    throw invalid([...problems, { parameter: 'input_parameters', reason: 'must be an array' }]);

  const declared = declaredInputs(tool);
  const values = new Map<string, unknown>();
  for (let i = 0; i < given.length; i++) {
    const item: unknown = given[i];
    if (!isPlainObject(item) || typeof item.name !== 'string' || !onlyNameAndValue(item)) {
      problem(`input_parameters[${i}]`, 'must be an object {name, value}');
      continue;
    }
    const name = item.name;
    if (!declared.has(name)) {
      problem(
        name.slice(0, 64),
        `is not an input of this tool (inputs: ${[...declared.keys()].join(', ') || 'none'})`,
      );
    } else if (values.has(name)) {
      problem(name, 'is given more than once');
    } else {
      values.set(name, item.value);
    }
  }

  const inputs: ToolInputs = {};
  for (const [name, param] of declared) {
    const value = values.get(name);
    if (value === undefined || value === null) {
      // Absent and null both mean "not given": provider formats such as
      // OpenAI's strict mode send null for optional parameters.
      if (param.required) problem(name, 'is required');
      else if (tool.defaults[name] !== undefined) inputs[name] = tool.defaults[name];
      continue;
    }
    const reason = typeProblem(param, value);
    if (reason) problem(name, reason);
    else inputs[name] = value as string | number | boolean;
  }
  if (problems.length > 0) throw invalid(problems);
  return inputs;
}

/** A tool's inputs by name, in signature order: built once per compiled tool, not per call. */
const declaredByTool = new WeakMap<CompiledTool, ReadonlyMap<string, InputParameter>>();

function declaredInputs(tool: CompiledTool): ReadonlyMap<string, InputParameter> {
  let declared = declaredByTool.get(tool);
  if (!declared) {
    declared = new Map(tool.signature.input_parameters.map((p) => [p.name, p]));
    declaredByTool.set(tool, declared);
  }
  return declared;
}

/** Every own key is `name` or `value` (what `Object.keys(item).every(…)` said, without the array). */
function onlyNameAndValue(item: Record<string, unknown>): boolean {
  for (const key in item) {
    if (Object.hasOwn(item, key) && key !== 'name' && key !== 'value') return false;
  }
  return true;
}

function typeProblem(param: InputParameter, value: unknown): string | undefined {
  switch (param.type) {
    case 'string': {
      if (typeof value !== 'string') return 'must be a string';
      const max = param.maxLength ?? 1024;
      return codePoints(value) > max ? `must be at most ${max} characters` : undefined;
    }
    case 'int': {
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) return 'must be an integer';
      if (param.min !== undefined && value < param.min) return `must be at least ${param.min}`;
      if (param.max !== undefined && value > param.max) return `must be at most ${param.max}`;
      return undefined;
    }
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'enum': {
      const allowed = (param['allowed-values'] ?? []).map((v) => v.name);
      return typeof value === 'string' && allowed.includes(value)
        ? undefined
        : `must be one of ${allowed.join(', ')}`;
    }
  }
}

function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(problems: InputProblem[]): SculptorError {
  const summary = problems.map((p) => `${p.parameter} ${p.reason}`).join('; ');
  return new SculptorError('input.invalid', `Invalid tool call: ${summary}.`, { problems });
}
