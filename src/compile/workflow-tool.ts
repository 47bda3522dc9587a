import type { Workflow } from '../arazzo/arazzo-document.ts';
import { type ErrorCode, SculptorError, type SourcePosition } from '../errors/sculptor-error.ts';
import type {
  InputDeclaration,
  OutputDeclaration,
  SculptDocument,
  SculptSpec,
} from '../sculpt/parse-sculpt.ts';
import type { YamlPath, YamlSource } from '../sculpt/yaml-source.ts';
import { compileExpression } from './compile-expression.ts';
import { type CompiledStep, type CompiledTool, declaredDefaults } from './compile-tool.ts';
import { type BoundArazzo, createWorkflowCompiler, resolveInputsSchema } from './compile-workflow.ts';
import { parseDuration } from './parse-duration.ts';
import { toolEffects } from './tool-effects.ts';
import { buildSignature, DEFAULT_STRING_MAX_LENGTH } from './tool-signature.ts';
import type { WorkflowProgram } from './workflow-program.ts';

export const DEFAULT_WORKFLOW_TIMEOUT_MS = 10_000;

/** An Arazzo description as the compile stage holds it: bound to its backends, its workflows compiled on demand. */
export interface WorkflowSource {
  bound: BoundArazzo;
  compiler: ReturnType<typeof createWorkflowCompiler>;
}

export function workflowSource(bound: BoundArazzo): WorkflowSource {
  return { bound, compiler: createWorkflowCompiler(bound) };
}

const SNAKE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

/** `explore-file-relationships`, `createUser`, `X-Api-Key` → `explore_file_relationships`, `create_user`, `x_api_key`. */
export function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase();
}

/** A JSONata name for a workflow's input or output (backticks take any characters but a backtick). */
function jsonataName(name: string): string {
  return `\`${name}\``;
}

/**
 * One workflow of a description, served as it is: a tool named after its workflowId (snake case),
 * whose inputs are the workflow's inputs and whose outputs are its outputs. What A2T cannot carry
 * — an object, array or fractional input; no outputs — is refused with the fix (wrap it in a
 * sculpt that builds or picks the values).
 */
export function workflowTool(
  source: WorkflowSource,
  workflowId: string,
): { tool?: CompiledTool; errors: SculptorError[] } {
  const { bound, compiler } = source;
  const { doc, source: yaml, file } = bound.arazzo;
  const index = doc.workflows.findIndex((w) => w.workflowId === workflowId);
  const workflow = doc.workflows[index]!;
  const at = (...path: Array<string | number>) => yaml.at(['workflows', index, ...path]);
  const errors: SculptorError[] = [];
  const fail = (code: ErrorCode, message: string, where: SourcePosition) =>
    errors.push(new SculptorError(code, `Workflow '${workflowId}': ${message}`, { at: where }));
  const wrap = `wrap it in a sculpt (workflow: ${bound.name}#${workflowId}) whose inputs are strings, integers, booleans or enums, and build the workflow's inputs from them in 'arguments'`;

  const { program, errors: programErrors } = compiler.compile(workflowId);
  errors.push(...programErrors);

  const tool = snakeCase(workflowId);
  if (!SNAKE.test(tool) || tool.length > 254) {
    fail(
      'compile.a2t_limit',
      `its id does not make a tool name (snake case, under 255 characters): ${wrap}.`,
      at('workflowId'),
    );
  }
  const description = (workflow.description ?? workflow.summary ?? '').trim();
  if (description === '') {
    fail(
      'compile.a2t_limit',
      'it has no description or summary, which tells an agent what the tool does and when to use it: add one.',
      at('workflowId'),
    );
  } else if (description.length > 1999) {
    fail(
      'compile.a2t_limit',
      `its description is ${description.length} characters; A2T allows 1,999: shorten it, or ${wrap}.`,
      at(workflow.description ? 'description' : 'summary'),
    );
  }

  const inputs = workflowInputs(workflow, bound, program, (message, path) =>
    fail('compile.input_type', `${message} ${wrap}.`, at('inputs', ...path)),
  );
  const outputNames = Object.keys(workflow.outputs ?? {});
  if (outputNames.length === 0) {
    fail(
      'compile.output_type',
      'it declares no outputs, so the tool would answer nothing: declare the outputs an agent needs.',
      at('workflowId'),
    );
  } else if (outputNames.length > 32) {
    fail(
      'compile.a2t_limit',
      `it has ${outputNames.length} outputs; a tool has at most 32: wrap it in a sculpt that projects the ones an agent needs.`,
      at('outputs'),
    );
  }
  const outputs: Record<string, OutputDeclaration> = {};
  for (const name of outputNames) {
    const snake = snakeCase(name);
    if (!SNAKE.test(snake) || name.includes('`') || outputs[snake]) {
      fail(
        'compile.output_type',
        `output '${name}' does not make a distinct snake-case output name: wrap it in a sculpt that names its outputs.`,
        at('outputs', name),
      );
      continue;
    }
    outputs[snake] = { type: 'json', description: `The workflow's '${name}' output.`, required: false };
  }
  if (errors.length > 0 || !program) return { errors };

  const output = `{ ${outputNames.map((n) => `"${snakeCase(n)}": $outputs.${jsonataName(n)}`).join(', ')} }`;
  const args = `{ ${Object.entries(inputs.names)
    .map(([toolName, wfName]) => `"${wfName.replace(/["\\]/g, '\\$&')}": $inputs.${toolName}`)
    .join(', ')} }`;
  const pinned = pinnedSource(yaml, at());
  const sculptDoc: SculptDocument = {
    tool,
    version: 1,
    description,
    inputs: inputs.declarations,
    outputs,
    steps: [],
    output,
  };
  return {
    tool: finishTool({
      file,
      versionAt: at('workflowId'),
      doc: sculptDoc,
      sculpt: { file, source: pinned, doc: sculptDoc },
      program,
      output: compileExpression(output, () => at('outputs')),
      args: compileExpression(args, () => at('inputs')),
      wrapped: false,
      inputNames: new Map(Object.entries(inputs.names).map(([toolName, wfName]) => [wfName, toolName])),
      timeoutMs: DEFAULT_WORKFLOW_TIMEOUT_MS,
    }),
    errors: [],
  };
}

/** The workflow's inputs as A2T inputs: string, integer, boolean; each by its snake-case name. */
function workflowInputs(
  workflow: Workflow,
  bound: BoundArazzo,
  program: WorkflowProgram | undefined,
  problem: (message: string, path: Array<string | number>) => void,
): { declarations: Record<string, InputDeclaration>; names: Record<string, string> } {
  const declarations: Record<string, InputDeclaration> = {};
  const names: Record<string, string> = {};
  const schema = resolveInputsSchema(workflow.inputs, bound.arazzo.doc.components);
  if (typeof schema === 'string') return { declarations, names };
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const offered = Object.keys(properties).filter((n) => !program?.credentialInputs.has(n)).length;
  if (offered > 32) problem(`it has ${offered} inputs; a tool has at most 32:`, []);
  for (const [name, property] of Object.entries(properties)) {
    // A credential the backend sends in its place: never the agent's to give.
    if (program?.credentialInputs.has(name)) continue;
    const snake = snakeCase(name);
    const path = ['properties', name];
    if (!SNAKE.test(snake) || snake.length > 64 || names[snake] !== undefined) {
      problem(`input '${name}' does not make a distinct snake-case input name:`, path);
      continue;
    }
    const types = (Array.isArray(property.type) ? property.type : [property.type]).filter(
      (t) => t !== 'null',
    );
    const type = types.length === 1 ? types[0] : undefined;
    const description =
      (typeof property.description === 'string' && property.description.trim()) ||
      (typeof property.title === 'string' && property.title.trim()) ||
      `The workflow's '${name}' input.`;
    const declaration: InputDeclaration = {
      type: 'string',
      description: description.slice(0, 1999),
      required: required.has(name) || (program?.requiredInputs.has(name) ?? false),
    };
    if (type === 'string') {
      const max = typeof property.maxLength === 'number' ? property.maxLength : DEFAULT_STRING_MAX_LENGTH;
      declaration.maxLength = Math.min(Math.max(1, max), 4096);
      if (Array.isArray(property.enum))
        declaration.description =
          `${declaration.description} One of: ${property.enum.map((v) => JSON.stringify(v)).join(', ')}.`.slice(
            0,
            1999,
          );
    } else if (type === 'integer') {
      declaration.type = 'int';
      const min = typeof property.minimum === 'number' ? property.minimum : Number.MIN_SAFE_INTEGER;
      const max = typeof property.maximum === 'number' ? property.maximum : Number.MAX_SAFE_INTEGER;
      declaration.min = Math.max(min, Number.MIN_SAFE_INTEGER);
      declaration.max = Math.min(max, Number.MAX_SAFE_INTEGER);
    } else if (type === 'boolean') {
      declaration.type = 'boolean';
    } else {
      const what =
        type === 'number' ? 'a fractional number' : type === undefined ? 'of no single type' : `an ${type}`;
      problem(`input '${name}' is ${what}; A2T inputs are strings, integers, booleans or enums:`, path);
      continue;
    }
    if (!declaration.required && property.default !== undefined && typeof property.default !== 'object') {
      declaration.default = property.default as string | number | boolean;
    }
    declarations[snake] = declaration;
    names[snake] = name;
  }
  return { declarations, names };
}

/** Every operation step a program runs, its called workflows' included (effects, telemetry, designer views). */
export function programSteps(program: WorkflowProgram, seen = new Set<WorkflowProgram>()): CompiledStep[] {
  if (seen.has(program)) return [];
  seen.add(program);
  return program.steps
    .flatMap((s) => [
      ...(s.call ? [s.call.step] : []),
      ...(s.workflow ? programSteps(s.workflow.program(), seen) : []),
    ])
    .concat(program.dependsOn.flatMap((d) => programSteps(d(), seen)));
}

export function finishTool(parts: {
  file: string;
  versionAt: SourcePosition;
  doc: SculptDocument;
  sculpt: SculptSpec;
  program: WorkflowProgram;
  output: CompiledTool['output'];
  args: CompiledTool['output'];
  wrapped: boolean;
  inputNames?: ReadonlyMap<string, string>;
  timeoutMs: number;
}): CompiledTool {
  const { doc } = parts;
  const steps = programSteps(parts.program);
  return {
    file: parts.file,
    versionAt: parts.versionAt,
    signature: buildSignature(doc),
    ...declaredDefaults(doc),
    steps,
    output: parts.output,
    timeoutMs: parts.timeoutMs,
    sculpt: parts.sculpt,
    effects: toolEffects(
      steps.map((s) => ({ method: s.operation.method })),
      doc.effects,
    ),
    workflow: {
      program: parts.program,
      arguments: parts.args,
      wrapped: parts.wrapped,
      ...(parts.inputNames ? { inputNames: parts.inputNames } : {}),
    },
  };
}

/** A source whose every position is one place: a tool made from a description, not from a sculpt file. */
function pinnedSource(source: YamlSource, at: SourcePosition): YamlSource {
  return { file: source.file, value: source.value, at: () => at, keyAt: () => at, inScalar: () => at };
}

/**
 * A sculpt that wraps a workflow (`workflow: <arazzo>#<workflowId>`): its own name, inputs,
 * outputs, timeout and description; `arguments` builds the workflow's inputs from the tool's,
 * `output` projects the workflow's outputs (`$outputs`), `cache` sets the cache of its steps.
 */
export function wrappedWorkflowTool(
  sculpt: SculptSpec,
  workflows: ReadonlyMap<string, WorkflowSource>,
  expression: (path: YamlPath, text: string | undefined) => CompiledTool['output'] | undefined,
  timeoutMs: number,
): { tool?: CompiledTool; errors: SculptorError[] } {
  const { doc, source } = sculpt;
  const errors: SculptorError[] = [];
  const hash = doc.workflow!.indexOf('#');
  const name = doc.workflow!.slice(0, hash);
  const workflowId = doc.workflow!.slice(hash + 1);
  const found = workflows.get(name);
  if (!found) {
    const known = [...workflows.keys()].join(', ') || 'none';
    const message = `No Arazzo description '${name}' in the backends file of this folder (declared: ${known}).`;
    return { errors: [new SculptorError('compile.arazzo', message, { at: source.at(['workflow']) })] };
  }
  const workflow = found.bound.arazzo.doc.workflows.find((w) => w.workflowId === workflowId);
  if (!workflow) {
    const known = found.bound.arazzo.doc.workflows.map((w) => w.workflowId).join(', ');
    const message = `Arazzo '${name}' has no workflow '${workflowId}' (it has: ${known}).`;
    return { errors: [new SculptorError('compile.arazzo', message, { at: source.at(['workflow']) })] };
  }

  const policy = new Map<string, { ttlMs: number; scope: 'shared' | 'caller'; at: SourcePosition }>();
  for (const [key, cache] of Object.entries(doc.cache ?? {})) {
    const [owner, stepId] = key.includes('/') ? (key.split('/', 2) as [string, string]) : [workflowId, key];
    const target = found.bound.arazzo.doc.workflows.find((w) => w.workflowId === owner);
    if (!target?.steps.some((s) => s.stepId === stepId)) {
      errors.push(
        new SculptorError(
          'compile.step_reference',
          `cache names step '${key}', which workflow '${owner}' does not have (write stepId, or workflowId/stepId for a workflow it calls).`,
          { at: source.keyAt(['cache', key]) },
        ),
      );
      continue;
    }
    policy.set(key, {
      ttlMs: parseDuration(cache.ttl),
      scope: cache.scope ?? 'caller',
      at: source.at(['cache', key]),
    });
  }
  const { program, errors: programErrors } = found.compiler.compile(workflowId, policy);
  errors.push(...programErrors);

  let argumentsText = doc.arguments;
  if (argumentsText === undefined) {
    // Each tool input to the workflow input of the same name, or whose snake case it is.
    const schema = resolveInputsSchema(workflow.inputs, found.bound.arazzo.doc.components);
    const names = typeof schema === 'string' ? [] : Object.keys((schema.properties ?? {}) as object);
    const pairs: string[] = [];
    for (const input of Object.keys(doc.inputs ?? {})) {
      const target = names.find((n) => n === input) ?? names.find((n) => snakeCase(n) === input);
      if (target === undefined) {
        errors.push(
          new SculptorError(
            'compile.input_type',
            `Input '${input}' is no input of workflow '${workflowId}' (it has: ${names.join(', ') || 'none'}): rename it, or build the workflow's inputs in 'arguments'.`,
            { at: source.keyAt(['inputs', input]) },
          ),
        );
        continue;
      }
      pairs.push(`"${target.replace(/["\\]/g, '\\$&')}": $inputs.${input}`);
    }
    argumentsText = `{ ${pairs.join(', ')} }`;
  }
  const args =
    doc.arguments !== undefined
      ? expression(['arguments'], doc.arguments)
      : expression(['workflow'], argumentsText);
  const output = expression(['output'], doc.output);
  if (errors.length > 0 || !program || !args || !output) return { errors };
  return {
    tool: finishTool({
      file: sculpt.file,
      versionAt: source.at(['version']),
      doc,
      sculpt,
      program,
      output,
      args,
      wrapped: true,
      timeoutMs,
    }),
    errors: [],
  };
}
