import type { CompiledTool } from './compile-tool.ts';
import type { ToolEffects } from './tool-effects.ts';
import type { InputParameter, OutputParameter } from './tool-signature.ts';

/**
 * One generator turns a tool's A2T signature into what every other consumer reads: JSON Schema
 * for its inputs and outputs, its description with the safety flags, a title and the MCP-style
 * annotations. The faces (MCP, a2t-lite, the OpenAPI document), the provider exports and the
 * Studio all use it; the A2T signature stays the source of truth and these are views of it.
 */

/** Serialized tool output cap (RELIABILITY B10/G5): an LLM context is not a dump. */
export const MAX_OUTPUT_BYTES = 32 * 1024;

/**
 * How an input schema is written:
 * - `json-schema`: JSON Schema 2020-12, closed (`additionalProperties: false`), no top-level
 *   composition — what MCP `inputSchema`, a2t-lite, the OpenAPI document and Agent Tool read;
 * - `open`: the same without `additionalProperties` (Anthropic's `input_schema`);
 * - `openai-strict`: OpenAI strict mode — every property required, optional ones nullable, only
 *   the keywords strict mode supports (lengths and defaults said in words);
 * - `gemini`: Gemini's OpenAPI-subset `Schema` (upper-case types, `format: "enum"`, int64 as text).
 */
export type SchemaDialect = 'json-schema' | 'open' | 'openai-strict' | 'gemini';

/** MCP tool annotations (2025-03-26 onwards), from the effects ATIP already computes. */
export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  /** A sculpted tool always reaches a backend outside the gateway. */
  openWorldHint: true;
}

/** What a face shows of one tool version: computed once per compiled tool (see toolSchema). */
export interface ToolSchema {
  name: string;
  title: string;
  /** The description with its safety flags (ATIP §8.2), uncut. */
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  annotations: ToolAnnotations;
}

const memo = new WeakMap<CompiledTool, ToolSchema>();

/** The standard view of a tool (dialect `json-schema`), built on first use and kept with the tool. */
export function toolSchema(tool: CompiledTool): ToolSchema {
  let schema = memo.get(tool);
  if (!schema) {
    const title = toolTitle(tool.signature.name);
    const e = tool.effects;
    schema = {
      name: tool.signature.name,
      title,
      description: describe(tool.signature.description, e),
      inputSchema: inputSchema(tool, 'json-schema'),
      outputSchema: outputSchema(tool),
      annotations: {
        title,
        readOnlyHint: e.readOnly,
        destructiveHint: e.destructive,
        idempotentHint: e.idempotent,
        openWorldHint: true,
      },
    };
    memo.set(tool, schema);
  }
  return schema;
}

/** `lookup_weather_by_city` → `Lookup Weather By City`. */
export function toolTitle(name: string): string {
  return name
    .split('_')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ');
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
  defaults: boolean;
}

const TEXT: Record<SchemaDialect, ParamText> = {
  'json-schema': { enums: true, maxLength: false, defaults: false },
  open: { enums: true, maxLength: false, defaults: false },
  'openai-strict': { enums: true, maxLength: true, defaults: true },
  gemini: { enums: true, maxLength: false, defaults: true },
};

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

// --- inputs -------------------------------------------------------------------

/** The tool's inputs as one object schema, written in `dialect`. */
export function inputSchema(tool: CompiledTool, dialect: SchemaDialect): Record<string, unknown> {
  const params = tool.signature.input_parameters;
  const properties: Record<string, Record<string, unknown>> = {};
  for (const p of params) properties[p.name] = inputProperty(p, tool, dialect);
  switch (dialect) {
    case 'openai-strict':
      return {
        type: 'object',
        properties,
        required: params.map((p) => p.name),
        additionalProperties: false,
      };
    case 'gemini':
      return { type: 'OBJECT', properties, required: requiredOf(params) };
    case 'open':
      return { type: 'object', properties, required: requiredOf(params) };
    case 'json-schema':
      return { type: 'object', properties, required: requiredOf(params), additionalProperties: false };
  }
}

function inputProperty(
  p: InputParameter,
  tool: CompiledTool,
  dialect: SchemaDialect,
): Record<string, unknown> {
  const base = jsonType(p.type);
  const description = parameterDescription(p, tool, TEXT[dialect]);
  const names = p['allowed-values']?.map((v) => v.name);
  if (dialect === 'openai-strict') {
    const prop: Record<string, unknown> = { type: p.required ? base : [base, 'null'], description };
    if (names) prop.enum = p.required ? names : [...names, null];
    if (p.min !== undefined) prop.minimum = p.min;
    if (p.max !== undefined) prop.maximum = p.max;
    return prop;
  }
  if (dialect === 'gemini') {
    const prop: Record<string, unknown> = { type: base.toUpperCase(), description };
    if (names) {
      prop.format = 'enum';
      prop.enum = names;
    }
    if (p.min !== undefined) prop.minimum = p.min;
    if (p.max !== undefined) prop.maximum = p.max;
    if (p.maxLength !== undefined) prop.maxLength = String(p.maxLength);
    return prop;
  }
  const prop: Record<string, unknown> = { type: base, description };
  if (names) prop.enum = names;
  if (p.min !== undefined) prop.minimum = p.min;
  if (p.max !== undefined) prop.maximum = p.max;
  if (p.maxLength !== undefined) prop.maxLength = p.maxLength;
  const fallback = tool.defaults[p.name];
  if (!p.required && fallback !== undefined) prop.default = fallback;
  return prop;
}

function requiredOf(params: readonly InputParameter[]): string[] {
  return params.filter((p) => p.required).map((p) => p.name);
}

function jsonType(type: InputParameter['type']): 'string' | 'integer' | 'boolean' {
  return type === 'int' ? 'integer' : type === 'boolean' ? 'boolean' : 'string';
}

// --- outputs ------------------------------------------------------------------

/** The tool's outputs as one closed object schema: declared outputs, optional ones not required. */
export function outputSchema(tool: CompiledTool): Record<string, unknown> {
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
