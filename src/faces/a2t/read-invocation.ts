import type { CompiledTool } from '../../compile/compile-tool.ts';
import {
  checkArguments,
  invalidArguments,
  isDeclaredInput,
  type ToolArguments,
  unknownInput,
} from '../../engine/validate-arguments.ts';
import type { InputProblem } from '../../errors/sculptor-error.ts';

/**
 * The A2T envelope `{name, input_parameters: [{name, value}]}` (draft §6.4) → the engine's named
 * arguments. Envelope problems (extra keys, the wrong tool name, malformed items, a name given
 * twice) are reported together with the arguments' own, in the order A2T has always reported
 * them, so the LLM can fix its call in one retry; the arguments' checks are the engine's.
 */
export function readInvocation(tool: CompiledTool, body: unknown): ToolArguments {
  if (!isPlainObject(body)) {
    throw invalidArguments([
      { parameter: '(body)', reason: 'must be a JSON object {name, input_parameters}' },
    ]);
  }
  const problems: InputProblem[] = [];
  const problem = (parameter: string, reason: string) => problems.push({ parameter, reason });
  for (const key of Object.keys(body)) {
    if (key !== 'name' && key !== 'input_parameters') problem(key, 'is not part of an A2T invocation');
  }
  if (body.name !== tool.signature.name) {
    problem('name', `must be "${tool.signature.name}", the tool being invoked`);
  }
  const given = body.input_parameters ?? [];
  if (!Array.isArray(given)) {
    throw invalidArguments([...problems, { parameter: 'input_parameters', reason: 'must be an array' }]);
  }
  // Only declared names become keys, so no item can reach an object's prototype.
  const args: Record<string, unknown> = {};
  for (let i = 0; i < given.length; i++) {
    const item: unknown = given[i];
    if (!isPlainObject(item) || typeof item.name !== 'string' || !onlyNameAndValue(item)) {
      problem(`input_parameters[${i}]`, 'must be an object {name, value}');
    } else if (!isDeclaredInput(tool, item.name)) {
      problems.push(unknownInput(tool, item.name));
    } else if (Object.hasOwn(args, item.name)) {
      problem(item.name, 'is given more than once');
    } else {
      args[item.name] = item.value;
    }
  }
  if (problems.length === 0) return args;
  throw invalidArguments([...problems, ...checkArguments(tool, args).problems]);
}

/** Every own key is `name` or `value` (what `Object.keys(item).every(…)` said, without the array). */
function onlyNameAndValue(item: Record<string, unknown>): boolean {
  for (const key in item) {
    if (Object.hasOwn(item, key) && key !== 'name' && key !== 'value') return false;
  }
  return true;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
