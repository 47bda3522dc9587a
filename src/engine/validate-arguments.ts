import type { CompiledTool } from '../compile/compile-tool.ts';
import type { InputParameter } from '../compile/tool-signature.ts';
import { type InputProblem, SculptorError } from '../errors/sculptor-error.ts';

export type ToolInputs = Record<string, string | number | boolean>;

/** A tool's arguments by name, as every face hands them to the engine (protocol-neutral). */
export type ToolArguments = Readonly<Record<string, unknown>>;

/**
 * Checks named arguments against the tool's signature before anything runs, and reports every
 * problem at once so the LLM can fix its call in one retry. Returns the inputs by name, defaults
 * applied; only declared names ever become keys. Each face turns its own envelope (A2T's
 * `input_parameters`, MCP's `arguments`, a2t-lite's plain object) into these arguments first.
 */
export function validateArguments(tool: CompiledTool, args: unknown): ToolInputs {
  if (!isPlainObject(args)) {
    throw invalidArguments([{ parameter: '(arguments)', reason: 'must be a JSON object of named inputs' }]);
  }
  const { inputs, problems } = checkArguments(tool, args);
  if (problems.length > 0) throw invalidArguments(problems);
  return inputs;
}

/**
 * The problems of named arguments, without throwing: unknown names first (in the order given),
 * then each declared input (missing, wrong type, out of bounds), in signature order. A face whose
 * envelope has problems of its own reports them together with these.
 */
export function checkArguments(
  tool: CompiledTool,
  args: Readonly<Record<string, unknown>>,
): { inputs: ToolInputs; problems: InputProblem[] } {
  const problems: InputProblem[] = [];
  const declared = declaredInputs(tool);
  for (const name in args) {
    if (Object.hasOwn(args, name) && !declared.has(name)) problems.push(unknownInput(tool, name));
  }
  const inputs: ToolInputs = {};
  // Indexed over the signature's list (the map's order): no iterator nor entry pair per input.
  const params = tool.signature.input_parameters;
  for (let i = 0; i < params.length; i++) {
    const param = params[i]!;
    const name = param.name;
    const value = Object.hasOwn(args, name) ? args[name] : undefined;
    if (value === undefined || value === null) {
      // Absent and null both mean "not given": provider formats such as
      // OpenAI's strict mode send null for optional parameters.
      if (param.required) problems.push({ parameter: name, reason: 'is required' });
      else if (tool.defaults[name] !== undefined) inputs[name] = tool.defaults[name];
      continue;
    }
    const reason = typeProblem(param, value);
    if (reason) problems.push({ parameter: name, reason });
    else inputs[name] = value as string | number | boolean;
  }
  return { inputs, problems };
}

/** Whether `name` is one of the tool's inputs. */
export function isDeclaredInput(tool: CompiledTool, name: string): boolean {
  return declaredInputs(tool).has(name);
}

/** The problem of a name that is not an input of the tool, worded the same on every face. */
export function unknownInput(tool: CompiledTool, name: string): InputProblem {
  const names = [...declaredInputs(tool).keys()].join(', ') || 'none';
  return { parameter: name.slice(0, 64), reason: `is not an input of this tool (inputs: ${names})` };
}

/** `input.invalid` carrying every problem, summarised in its detail. */
export function invalidArguments(problems: InputProblem[]): SculptorError {
  const summary = problems.map((p) => `${p.parameter} ${p.reason}`).join('; ');
  return new SculptorError('input.invalid', `Invalid tool call: ${summary}.`, { problems });
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
