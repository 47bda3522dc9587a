import path from 'node:path';
import type { CompiledTool } from '../compile/compile-tool.ts';
import type { ToolEffects } from '../compile/tool-effects.ts';
import type { InputParameter, OutputParameter } from '../compile/tool-signature.ts';
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
/** A2T's output cap (see README, limits): what an agent may have to take inline. */
const MAX_OUTPUT_BYTES = 32 * 1024;
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

// --- descriptions -----------------------------------------------------------

/**
 * ATIP §8.2 rule 1: effects no provider carries natively are tunnelled into
 * the description as `[⚠️ DESTRUCTIVE | …]`. Read-only tools say so, since
 * that is what lets an agent call them without asking.
 */
export function safetySuffix(effects: ToolEffects): string {
  const flags: string[] = [];
  if (effects.destructive) flags.push('⚠️ DESTRUCTIVE');
  if (effects.reversible === false) flags.push('⚠️ NOT REVERSIBLE');
  if (!effects.idempotent) flags.push('⚠️ NOT IDEMPOTENT');
  if (effects.billable) flags.push('💰 BILLABLE');
  if (effects.readOnly) flags.push('🔒 READ-ONLY');
  return flags.length > 0 ? `[${flags.join(' | ')}]` : '';
}

/**
 * `{description} [{flags}]` within `max` characters: the flags are always
 * kept (ATIP: "Safety flags MUST fit"), the description is cut at the last
 * sentence that fits, else at a word, and marked with an ellipsis.
 */
export function describe(description: string, effects: ToolEffects, max = Infinity): string {
  const suffix = safetySuffix(effects);
  const text = description.replace(/\s+/g, ' ').trim();
  const full = suffix ? `${text} ${suffix}` : text;
  if (full.length <= max) return full;
  const budget = max - (suffix ? suffix.length + 1 : 0);
  return suffix ? `${truncate(text, budget)} ${suffix}` : truncate(text, budget);
}

/**
 * Cuts text to at most `max` characters: after the last whole sentence that
 * fits when that keeps most of it, else at a word boundary followed by '…'.
 */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 1) return text.slice(0, Math.max(0, max));
  const room = text.slice(0, max);
  const sentence = Math.max(room.lastIndexOf('. '), room.lastIndexOf('! '), room.lastIndexOf('? '));
  if (sentence >= max * 0.6) return room.slice(0, sentence + 1);
  const words = text.slice(0, max - 1);
  const space = words.lastIndexOf(' ');
  return `${(space >= max * 0.6 ? words.slice(0, space) : words).trimEnd()}…`;
}

interface ParamText {
  /** Fold enum value descriptions into the parameter description (JSON Schema `enum` cannot carry them). */
  enums: boolean;
  /** Say the maximum length in words, for dialects that cannot carry `maxLength`. */
  maxLength: boolean;
  /** Say the default in words, for dialects that cannot carry `default`. */
  defaults: unknown;
}

function parameterDescription(p: InputParameter, tool: CompiledTool, text: ParamText): string {
  const parts = [p.description.trim()];
  const values = p['allowed-values'];
  if (text.enums && values && values.length > 0) {
    parts.push(`One of: ${values.map((v) => `${v.name} (${v.description.replace(/\.$/, '')})`).join('; ')}.`);
  }
  if (text.maxLength && p.maxLength !== undefined) parts.push(`At most ${p.maxLength} characters.`);
  const fallback = tool.defaults[p.name];
  if (text.defaults && !p.required) {
    parts.push(
      fallback !== undefined ? `Optional: null means ${JSON.stringify(fallback)}.` : 'Optional: may be null.',
    );
  }
  return parts.join(' ');
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
  const properties: Record<string, Record<string, unknown>> = {};
  for (const p of s.input_parameters) {
    const base = jsonType(p.type);
    const prop: Record<string, unknown> = {
      type: p.required ? base : [base, 'null'],
      description: parameterDescription(p, tool, { enums: true, maxLength: true, defaults: true }),
    };
    if (p['allowed-values']) {
      const names: Array<string | null> = p['allowed-values'].map((v) => v.name);
      prop.enum = p.required ? names : [...names, null];
    }
    if (p.min !== undefined) prop.minimum = p.min;
    if (p.max !== undefined) prop.maximum = p.max;
    properties[p.name] = prop;
  }
  return {
    type: 'function',
    function: {
      name: s.name,
      description: describe(s.description, tool.effects, OPENAI_DESCRIPTION_MAX),
      strict: true,
      parameters: {
        type: 'object',
        properties,
        required: s.input_parameters.map((p) => p.name),
        additionalProperties: false,
      },
    },
  };
}

// --- Anthropic (Messages API tools) ------------------------------------------

function toAnthropic(tool: CompiledTool) {
  const s = tool.signature;
  return {
    name: s.name,
    description: describe(s.description, tool.effects),
    input_schema: jsonSchemaOfInputs(tool, false),
  };
}

/** A JSON Schema of the inputs (Anthropic `input_schema`, Agent Tool `model_input_schema`). */
function jsonSchemaOfInputs(tool: CompiledTool, closed: boolean) {
  const properties: Record<string, Record<string, unknown>> = {};
  for (const p of tool.signature.input_parameters) {
    const prop: Record<string, unknown> = {
      type: jsonType(p.type),
      description: parameterDescription(p, tool, { enums: true, maxLength: false, defaults: false }),
    };
    if (p['allowed-values']) prop.enum = p['allowed-values'].map((v) => v.name);
    if (p.min !== undefined) prop.minimum = p.min;
    if (p.max !== undefined) prop.maximum = p.max;
    if (p.maxLength !== undefined) prop.maxLength = p.maxLength;
    const fallback = tool.defaults[p.name];
    if (!p.required && fallback !== undefined) prop.default = fallback;
    properties[p.name] = prop;
  }
  return {
    type: 'object',
    properties,
    required: tool.signature.input_parameters.filter((p) => p.required).map((p) => p.name),
    ...(closed ? { additionalProperties: false } : {}),
  };
}

function jsonType(type: InputParameter['type']): 'string' | 'integer' | 'boolean' {
  return type === 'int' ? 'integer' : type === 'boolean' ? 'boolean' : 'string';
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
  if (s.input_parameters.length > 0) {
    const properties: Record<string, Record<string, unknown>> = {};
    for (const p of s.input_parameters) {
      const prop: Record<string, unknown> = {
        type: jsonType(p.type).toUpperCase(),
        description: parameterDescription(p, tool, { enums: true, maxLength: false, defaults: true }),
      };
      if (p['allowed-values']) {
        prop.format = 'enum';
        prop.enum = p['allowed-values'].map((v) => v.name);
      }
      if (p.min !== undefined) prop.minimum = p.min;
      if (p.max !== undefined) prop.maximum = p.max;
      if (p.maxLength !== undefined) prop.maxLength = String(p.maxLength);
      properties[p.name] = prop;
    }
    declaration.parameters = {
      type: 'OBJECT',
      properties,
      required: s.input_parameters.filter((p) => p.required).map((p) => p.name),
    };
  }
  return declaration;
}

// --- Agent Tool v0.2 tool_declaration -----------------------------------------

function toAgentTool(tool: CompiledTool, root: string | undefined) {
  const s = tool.signature;
  const e = tool.effects;
  const words = s.name.split('_');
  return {
    schema_version: AGENT_TOOL_SCHEMA_VERSION,
    tool_id: s.toolId,
    namespace: namespaceOf(tool, root),
    name: s.name,
    title: words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(' '),
    search_hint: words.slice(0, 10).join(' '),
    description: s.description,
    lifecycle: 'available',
    // One backend operation is an OpenAPI operation; a chain is a function the gateway runs.
    tool_kind: tool.steps.length === 1 ? 'openapi_operation' : 'function',
    input_contract: {
      strict: true,
      argument_mode: 'json',
      model_input_schema: jsonSchemaOfInputs(tool, true),
      ...(Object.keys(tool.defaults).length > 0 ? { defaults: { ...tool.defaults } } : {}),
    },
    output_contract: {
      structured_schema: outputSchema(tool),
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

function outputSchema(tool: CompiledTool) {
  const properties: Record<string, Record<string, unknown>> = {};
  for (const p of tool.signature.output_parameters) properties[p.name] = outputProperty(p);
  return {
    type: 'object',
    properties,
    required: tool.signature.output_parameters
      .filter((p) => !tool.optionalOutputs.has(p.name))
      .map((p) => p.name),
    additionalProperties: false,
  };
}

function outputProperty(p: OutputParameter): Record<string, unknown> {
  const description = p.description;
  switch (p.type) {
    case 'string':
      return { type: 'string', description };
    case 'int':
      return { type: 'integer', description };
    case 'enum':
      return { type: 'string', enum: (p['allowed-values'] ?? []).map((v) => v.name), description };
    case 'json':
      return { description };
  }
}

/** The sculpt's folder below the root, dotted (`petstore`, `crm.accounts`); `sculptor` at the root. */
function namespaceOf(tool: CompiledTool, root: string | undefined): string {
  if (root === undefined) return 'sculptor';
  const relative = path.relative(path.resolve(root), path.dirname(tool.file));
  if (!relative || relative.startsWith('..')) return 'sculptor';
  return relative.split(path.sep).join('.');
}
