import path from 'node:path';
import type { CompiledTool } from '../compile/compile-tool.ts';
import { describe, inputSchema, MAX_OUTPUT_BYTES, toolSchema } from '../compile/tool-schema.ts';
import { PROVIDER_NAME_MAX } from './lint-tools.ts';

/**
 * Tool signatures in the function-calling formats of LLM providers, following
 * ATIP §8 (provider translation), and as Agent Tool v0.2 `tool_declaration`s.
 * The A2T signature stays the source of truth: these are views of it.
 */
export const EXPORT_FORMATS = ['openai', 'anthropic', 'gemini', 'agent-tool'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** OpenAI enforces 1024 characters per function description (ATIP §8.2 rule 1). */
export const OPENAI_DESCRIPTION_MAX = 1024;
export const AGENT_TOOL_SCHEMA_VERSION = '0.2.0';

export class ExportError extends Error {
  override readonly name = 'ExportError';
}

export interface ExportOptions {
  /** Only this tool (its latest version unless `version` is given). */
  tool?: string;
  version?: number;
  /** The sculpt folder, for Agent Tool namespaces (the sculpt's folder below it). */
  root?: string;
}

/** The tools an export covers: the latest version of each (or the one asked for), by name. */
export function selectTools(tools: readonly CompiledTool[], options: ExportOptions = {}): CompiledTool[] {
  let candidates = [...tools];
  if (options.tool !== undefined) {
    candidates = candidates.filter((t) => t.signature.name === options.tool);
    if (candidates.length === 0) {
      const names = [...new Set(tools.map((t) => t.signature.name))].sort().join(', ') || 'none';
      throw new ExportError(`There is no tool '${options.tool}' (tools: ${names}).`);
    }
  }
  if (options.version !== undefined) {
    const pinned = candidates.filter((t) => t.signature.version === options.version);
    if (pinned.length === 0) throw new ExportError(`No tool has version ${options.version}.`);
    candidates = pinned;
  }
  const latest = new Map<string, CompiledTool>();
  for (const t of candidates) {
    const seen = latest.get(t.signature.name);
    if (!seen || t.signature.version > seen.signature.version) latest.set(t.signature.name, t);
  }
  return [...latest.values()].sort((a, b) => (a.signature.name < b.signature.name ? -1 : 1));
}

export function exportTools(
  tools: readonly CompiledTool[],
  format: ExportFormat,
  options: ExportOptions = {},
): unknown {
  const selected = selectTools(tools, options);
  if (format !== 'agent-tool') {
    const long = selected.find((t) => t.signature.name.length > PROVIDER_NAME_MAX);
    if (long) {
      throw new ExportError(
        `Tool name '${long.signature.name}' is longer than ${PROVIDER_NAME_MAX} characters, the providers' limit; give the tool a shorter name.`,
      );
    }
  }
  switch (format) {
    case 'openai':
      return selected.map(toOpenAi);
    case 'anthropic':
      return selected.map(toAnthropic);
    case 'gemini':
      return { functionDeclarations: selected.map(toGemini) };
    case 'agent-tool':
      return selected.map((t) => toAgentTool(t, options.root));
  }
}

// --- OpenAI (Chat Completions tools, strict mode) -----------------------------

/**
 * ATIP §8.1, OpenAI strict mode: every property listed in `required`,
 * optional ones nullable (`["string", "null"]`), `additionalProperties: false`,
 * only the keywords strict mode supports (type, description, enum, minimum,
 * maximum); string lengths and defaults said in words instead.
 */
function toOpenAi(tool: CompiledTool) {
  const s = tool.signature;
  return {
    type: 'function',
    function: {
      name: s.name,
      description: describe(s.description, tool.effects, OPENAI_DESCRIPTION_MAX),
      strict: true,
      parameters: inputSchema(tool, 'openai-strict'),
    },
  };
}

// --- Anthropic (Messages API tools) ------------------------------------------

function toAnthropic(tool: CompiledTool) {
  const s = tool.signature;
  return {
    name: s.name,
    description: describe(s.description, tool.effects),
    input_schema: inputSchema(tool, 'open'),
  };
}

// --- Gemini (functionDeclarations, OpenAPI-subset Schema) ---------------------

/**
 * Gemini's `Schema` is a subset of OpenAPI 3.0 whose `type` is the API's
 * `Type` enum, written upper case (STRING, INTEGER, BOOLEAN, OBJECT) as the
 * Gemini REST reference documents it; ATIP §8.1's example writes JSON Schema
 * lower case, which the API also reads. Enums are `format: "enum"` strings;
 * `maxLength` is an int64, which the API's JSON writes as a string.
 */
function toGemini(tool: CompiledTool) {
  const s = tool.signature;
  const declaration: Record<string, unknown> = {
    name: s.name,
    description: describe(s.description, tool.effects),
  };
  if (s.input_parameters.length > 0) declaration.parameters = inputSchema(tool, 'gemini');
  return declaration;
}

// --- Agent Tool v0.2 tool_declaration -----------------------------------------

function toAgentTool(tool: CompiledTool, root: string | undefined) {
  const s = tool.signature;
  const e = tool.effects;
  const words = s.name.split('_');
  const schema = toolSchema(tool);
  return {
    schema_version: AGENT_TOOL_SCHEMA_VERSION,
    tool_id: s.toolId,
    namespace: namespaceOf(tool, root),
    name: s.name,
    title: schema.title,
    search_hint: words.slice(0, 10).join(' '),
    description: s.description,
    lifecycle: 'available',
    // One backend operation is an OpenAPI operation; a chain is a function the gateway runs.
    tool_kind: tool.steps.length === 1 ? 'openapi_operation' : 'function',
    input_contract: {
      strict: true,
      argument_mode: 'json',
      model_input_schema: schema.inputSchema,
      ...(Object.keys(tool.defaults).length > 0 ? { defaults: { ...tool.defaults } } : {}),
    },
    output_contract: {
      structured_schema: schema.outputSchema,
      content_types: ['structured_content'],
      max_inline_bytes: MAX_OUTPUT_BYTES,
    },
    external_mappings: [
      {
        source: 'a2t',
        tool_id: s.toolId,
        version: s.version,
        method: 'POST',
        path: `/tools/${s.toolId}/versions/${s.version}:invoke`,
      },
      ...tool.steps.map((step) => ({
        source: 'openapi',
        ...(step.operation.operationId !== undefined ? { operation_id: step.operation.operationId } : {}),
        method: step.operation.method,
        path: step.operation.path,
        backend: step.backend.name,
        step_id: step.id,
        ...(step.operation.security.length > 0
          ? { security_scheme_refs: [...new Set(step.operation.security.flatMap((r) => Object.keys(r)))] }
          : {}),
      })),
    ],
    annotations: {
      a2t_version: s.version,
      tags: s.tags,
      is_read_only: e.readOnly,
      is_destructive: e.destructive,
      is_idempotent: e.idempotent,
      ...(e.reversible !== undefined ? { is_reversible: e.reversible } : {}),
      is_billable: e.billable,
    },
  };
}

/** The sculpt's folder below the root, dotted (`petstore`, `crm.accounts`); `sculptor` at the root. */
function namespaceOf(tool: CompiledTool, root: string | undefined): string {
  if (root === undefined) return 'sculptor';
  const relative = path.relative(path.resolve(root), path.dirname(tool.file));
  if (!relative || relative.startsWith('..')) return 'sculptor';
  return relative.split(path.sep).join('.');
}
