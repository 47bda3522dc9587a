import type { ArazzoDocument, Parameter, Step, Workflow } from '../arazzo/arazzo-document.ts';
import { type AstNode, literalObjectPairs } from '../compile/compile-expression.ts';
import type { CompiledStep, CompiledTool } from '../compile/compile-tool.ts';
import { inputSchema } from '../compile/tool-schema.ts';
import { parametersByKey } from '../openapi/build-request.ts';
import { ExportError } from './provider-exports.ts';

/**
 * Native chain sculpts written out as one Arazzo 1.0.1 description: each tool a workflow (its
 * inputs as JSON Schema, its outputs), each step an operation call with its parameters and
 * body, the chain's own success rule (a 2xx answer) as success criteria, a declared outcome
 * (`on: {404: …}`) as an `end` failure action, the step cache as an `x-sculptor-cache`
 * extension (which other tools ignore, as the specification allows). Each backend's OpenAPI
 * document is a source description, its url relative to where the description is written.
 *
 * Arazzo's runtime expressions select values; they do not compute them. So what a sculpt's
 * JSONata selects — `$inputs.x`, `$steps.s.a.b`, constants, objects of those — is written as
 * Arazzo, and a tool whose JSONata computes (`$lowercase`, `&`, conditions, `when`) is refused
 * with the expression named: an export that approximated it would run differently elsewhere.
 * Tools that run a workflow are already Arazzo: export their description itself.
 */
export function exportArazzo(
  tools: readonly CompiledTool[],
  /** Each backend's source url, from its name and its OpenAPI document's path. */
  sourceUrl: (backend: string, file: string) => string,
): ArazzoDocument {
  const chains = tools.filter((t) => !t.workflow);
  if (chains.length === 0)
    throw new ExportError('No native chain to export (tools that run a workflow are Arazzo already).');
  const backends = new Map<string, string>();
  for (const tool of chains)
    for (const step of tool.steps) backends.set(step.backend.name, step.backend.document.file);
  const sources = [...backends].map(([name, file]) => ({
    name,
    url: sourceUrl(name, file),
    type: 'openapi' as const,
  }));
  return {
    arazzo: '1.0.1',
    info: {
      title: 'Sculptor chains',
      summary: `${chains.length} sculpted tool chain(s) as Arazzo workflows.`,
      version: '1.0.0',
      description: 'Sculpted tool chains exported by `sculptor export --format arazzo`.',
    },
    sourceDescriptions: sources,
    workflows: chains.map((tool) => workflowOf(tool, backends.size > 1)),
  };
}

function workflowOf(tool: CompiledTool, qualify: boolean): Workflow {
  const name = tool.signature.name;
  const fail = (what: string, source: string): never => {
    throw new ExportError(
      `${name}: ${what} '${source}' computes its value in JSONata, which an Arazzo runtime expression cannot (it only selects values): simplify it to $inputs / $steps paths and constants, or leave this tool out (--tool).`,
    );
  };
  const results = new Map<string, Map<string, string> | undefined>();
  const steps: Step[] = tool.steps.map((step) => {
    const decl = tool.sculpt.doc.steps.find((d) => d.id === step.id);
    if (step.when) fail(`step '${step.id}' when`, step.when.source);
    const value = (ast: AstNode, field: string, source: string) =>
      translate(ast, results) ?? fail(`step '${step.id}' ${field}`, source);
    const parameters: Parameter[] = [];
    if (step.params) {
      const pairs =
        literalObjectPairs(step.params.ast) ?? fail(`step '${step.id}' params`, step.params.source);
      const byKey = parametersByKey(step.operation);
      for (const [key, ast] of pairs) {
        const p = byKey.get(key)!;
        parameters.push({ name: p.name, in: p.in, value: value(ast, 'params', step.params.source) });
      }
    }
    const outputs = stepOutputs(step, results) ?? fail(`step '${step.id}' result`, step.result!.source);
    const out: Step = {
      stepId: step.id,
      description:
        step.operation.summary?.trim() ||
        `Calls ${step.operation.method} ${step.operation.path} of ${step.backend.name}.`,
      ...operationRef(step, qualify),
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(step.body
        ? {
            requestBody: {
              contentType: 'application/json',
              payload: value(step.body.ast, 'body', step.body.source),
            },
          }
        : {}),
      successCriteria: [{ condition: '$statusCode >= 200 && $statusCode < 300' }],
      ...(step.on.size > 0 ? { onFailure: failureActions(step) } : {}),
      outputs,
      ...(decl?.cache ? { 'x-sculptor-cache': decl.cache } : {}),
    };
    return out;
  });
  const pairs = literalObjectPairs(tool.output.ast) ?? fail('output', tool.output.source);
  const outputs: Record<string, string> = {};
  for (const [key, ast] of pairs) {
    const v = translate(ast, results);
    if (typeof v !== 'string' || !v.startsWith('$')) fail(`output '${key}'`, tool.output.source);
    outputs[key] = v as string;
  }
  return {
    workflowId: name,
    summary: tool.signature.description.split(/(?<=\.)\s/)[0]!,
    description: tool.signature.description,
    inputs: inputSchema(tool, 'json-schema'),
    steps,
    outputs,
  };
}

function operationRef(step: CompiledStep, qualify: boolean): Pick<Step, 'operationId' | 'operationPath'> {
  const { operation, backend } = step;
  if (operation.operationId) {
    return {
      operationId: qualify
        ? `$sourceDescriptions.${backend.name}.${operation.operationId}`
        : operation.operationId,
    };
  }
  const pointer = `/paths/${operation.path.replace(/~/g, '~0').replace(/\//g, '~1')}/${operation.method.toLowerCase()}`;
  return { operationPath: `{$sourceDescriptions.${backend.name}.url}#${pointer}` };
}

/** A declared outcome (`on: {404: …}`) ends the workflow as failed, as the chain does. */
function failureActions(step: CompiledStep): NonNullable<Step['onFailure']> {
  return [...step.on.keys()]
    .filter((k) => k !== 'empty')
    .map((k) => ({
      name: `outcome-${k}`,
      type: 'end' as const,
      criteria: [
        {
          condition: /xx$/.test(k)
            ? `$statusCode >= ${k[0]}00 && $statusCode < ${Number(k[0]) + 1}00`
            : `$statusCode == ${k}`,
        },
      ],
    }));
}

/**
 * A step's outputs: its whole answer as `body` without a `result`; the member a `result` path
 * selects as `result`; each member of a `result` object of paths under its key. Recorded for the
 * expressions of later steps, which read `$steps.<id>…` through them.
 */
function stepOutputs(
  step: CompiledStep,
  results: Map<string, Map<string, string> | undefined>,
): Record<string, string> | undefined {
  if (!step.result) {
    results.set(step.id, undefined);
    return { body: '$response.body' };
  }
  const single = relativePointer(step.result.ast);
  if (single !== undefined) {
    results.set(step.id, new Map([['', 'result']]));
    return { result: `$response.body${single === '' ? '' : `#${single}`}` };
  }
  const pairs = literalObjectPairs(step.result.ast);
  if (!pairs) return undefined;
  const outputs: Record<string, string> = {};
  const names = new Map<string, string>();
  for (const [key, ast] of pairs) {
    const pointer = relativePointer(ast);
    if (pointer === undefined || !/^[a-zA-Z0-9.\-_]+$/.test(key)) return undefined;
    outputs[key] = `$response.body${pointer === '' ? '' : `#${pointer}`}`;
    names.set(key, key);
  }
  results.set(step.id, names);
  return outputs;
}

/** `a.b`, `$.a.b` (the answer's members) → `/a/b`; anything else: undefined. */
function relativePointer(ast: AstNode): string | undefined {
  const names = pathNames(ast, (head) => head.type === 'variable' && head.value === '');
  return names && names.map((n) => `/${escapeToken(n)}`).join('');
}

/** The member names of a path, after a head `isHead` accepts (or none); undefined unless every step is a plain name. */
function pathNames(ast: AstNode, isHead: (head: AstNode) => boolean): string[] | undefined {
  if (ast.type === 'name' && typeof ast.value === 'string') return [ast.value];
  if (ast.type === 'variable' && isHead(ast)) return [];
  if (ast.type !== 'path' || !Array.isArray(ast.steps)) return undefined;
  const steps = ast.steps as AstNode[];
  const from = isHead(steps[0]!) ? 1 : 0;
  const names: string[] = [];
  for (const s of steps.slice(from)) {
    if (s.type !== 'name' || typeof s.value !== 'string' || s.stages || s.predicate || s.group)
      return undefined;
    names.push(s.value);
  }
  return names;
}

function escapeToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** A JSONata value as Arazzo: a runtime expression, a constant, or an object or array of those. */
function translate(ast: AstNode, results: Map<string, Map<string, string> | undefined>): unknown {
  if (ast.type === 'string' || ast.type === 'number' || ast.type === 'value') return ast.value;
  if (ast.type === 'unary' && ast.value === '{') {
    const pairs = literalObjectPairs(ast);
    if (!pairs) return undefined;
    const out: Record<string, unknown> = {};
    for (const [key, value] of pairs) {
      const v = translate(value, results);
      if (v === undefined) return undefined;
      out[key] = v;
    }
    return out;
  }
  if (ast.type === 'unary' && ast.value === '[' && Array.isArray(ast.expressions)) {
    const items = (ast.expressions as AstNode[]).map((e) => translate(e, results));
    return items.includes(undefined) ? undefined : items;
  }
  const inputs = pathNames(ast, (h) => h.type === 'variable' && h.value === 'inputs');
  if (inputs && inputs.length > 0 && ast.type === 'path' && (ast.steps as AstNode[])[0]!.value === 'inputs') {
    const [name, ...rest] = inputs;
    return `$inputs.${name}${rest.length > 0 ? `#${rest.map((n) => `/${escapeToken(n)}`).join('')}` : ''}`;
  }
  const steps = pathNames(ast, (h) => h.type === 'variable' && h.value === 'steps');
  if (steps && steps.length > 0 && ast.type === 'path' && (ast.steps as AstNode[])[0]!.value === 'steps') {
    const [stepId, ...members] = steps as [string, ...string[]];
    if (!results.has(stepId)) return undefined;
    const outputs = results.get(stepId);
    let output = 'body';
    let rest = members;
    if (outputs?.has('')) output = 'result';
    else if (outputs) {
      if (members.length === 0 || !outputs.has(members[0]!)) return undefined;
      output = members[0]!;
      rest = members.slice(1);
    }
    return `$steps.${stepId}.outputs.${output}${rest.length > 0 ? `#${rest.map((n) => `/${escapeToken(n)}`).join('')}` : ''}`;
  }
  return undefined;
}
