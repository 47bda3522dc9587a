import { Ajv, type ValidateFunction } from 'ajv';
import type { CompiledTool } from '../compile/compile-tool.ts';
import { toolSchema } from '../compile/tool-schema.ts';
import { exportTools, selectTools } from '../designer/provider-exports.ts';
import type { ModelCall } from './score-turn.ts';

/**
 * How the tools reach the model, as a face would list them:
 * - `mcp`: each tool as MCP `tools/list` shows it (name, description with its safety flags,
 *   JSON Schema input), handed to chat completions as an MCP client does (a function whose
 *   `parameters` is the `inputSchema`);
 * - `openai`: `sculptor export --format openai`, strict mode (optional inputs nullable).
 * Both come from the one generator (compile/tool-schema.ts, designer/provider-exports.ts).
 */
export const FACES = ['mcp', 'openai'] as const;
export type Face = (typeof FACES)[number];

/** A chat-completions tool definition. */
export interface ChatTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown>; strict?: boolean };
}

export interface OfferedCatalog {
  /** What reports call it: the folder, or a name given. */
  label: string;
  face: Face;
  /** The tool versions offered (the latest of each, as faces list them), by name. */
  tools: Map<string, CompiledTool>;
  /** Exactly what is sent as `tools` with every request. */
  chatTools: ChatTool[];
  /** The `tools` array as JSON text: its size is what the model reads on every request. */
  characters: number;
}

const ajv = new Ajv({ allErrors: true, strict: false });
const validators = new WeakMap<object, ValidateFunction>();

export function offerCatalog(label: string, compiled: readonly CompiledTool[], face: Face): OfferedCatalog {
  const selected = selectTools(compiled);
  const chatTools: ChatTool[] =
    face === 'openai'
      ? (exportTools(selected, 'openai') as ChatTool[])
      : selected.map((tool) => {
          const s = toolSchema(tool);
          return {
            type: 'function',
            function: { name: s.name, description: s.description, parameters: s.inputSchema },
          };
        });
  return {
    label,
    face,
    tools: new Map(selected.map((t) => [t.signature.name, t])),
    chatTools,
    characters: JSON.stringify(chatTools).length,
  };
}

/**
 * A call as the model made it, read against the schema its tool was offered with (ajv, as the
 * rest of Sculptor validates): the raw text is kept whatever happens, so a report can show it.
 */
export function readCall(catalog: OfferedCatalog, name: string, rawArguments: string): ModelCall {
  const base = { tool: name, rawArguments };
  const offered = catalog.chatTools.find((t) => t.function.name === name);
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawArguments === '' ? '{}' : rawArguments);
  } catch (err) {
    return { ...base, valid: false, problems: [`not JSON (${(err as Error).message})`] };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { ...base, valid: false, problems: ['not a JSON object'] };
  }
  const args = parsed as Record<string, unknown>;
  if (!offered) {
    return {
      ...base,
      arguments: args,
      valid: false,
      problems: [`there is no tool named '${name}' in the catalog`],
    };
  }
  let validate = validators.get(offered);
  if (!validate) {
    validate = ajv.compile(offered.function.parameters);
    validators.set(offered, validate);
  }
  if (validate(args)) return { ...base, arguments: args, valid: true, problems: [] };
  const problems = (validate.errors ?? []).map((e) => {
    const where = e.instancePath ? `'${e.instancePath.slice(1).replace(/\//g, '.')}'` : 'the arguments';
    const extra = e.keyword === 'additionalProperties' ? ` ('${String(e.params.additionalProperty)}')` : '';
    return `${where} ${e.message ?? 'is invalid'}${extra}`;
  });
  return { ...base, arguments: args, valid: false, problems };
}

/**
 * The arguments a face would hand the engine: under OpenAI strict mode an optional input the
 * model leaves out comes as null, which the export documents as "use the default".
 */
export function engineArguments(catalog: OfferedCatalog, call: ModelCall): Record<string, unknown> {
  const args = call.arguments ?? {};
  if (catalog.face !== 'openai') return args;
  return Object.fromEntries(Object.entries(args).filter(([, v]) => v !== null));
}
