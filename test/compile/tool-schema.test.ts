/**
 * The one schema generator: every face and export reads a tool through it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { compileSculpts } from '../../src/compile/compile-sculpts.ts';
import type { CompiledTool } from '../../src/compile/compile-tool.ts';
import { inputSchema, toolSchema, toolTitle } from '../../src/compile/tool-schema.ts';

let tools: CompiledTool[];
const named = (name: string, version?: number) =>
  tools.find((t) => t.signature.name === name && (version === undefined || t.signature.version === version))!;

beforeAll(async () => {
  tools = await compileSculpts('sculpts', {});
});

describe('toolSchema', () => {
  it('is computed once per compiled tool', () => {
    const tool = named('describe_pet');
    expect(toolSchema(tool)).toBe(toolSchema(tool));
  });

  it('inputs: a closed object, no top-level composition, int bounds and enums kept', () => {
    for (const tool of tools) {
      const schema = toolSchema(tool).inputSchema;
      expect(schema.type).toBe('object');
      expect(schema.additionalProperties).toBe(false);
      for (const key of ['oneOf', 'anyOf', 'allOf', 'not']) expect(schema).not.toHaveProperty(key);
    }
    const pet = toolSchema(named('describe_pet')).inputSchema as {
      properties: Record<string, Record<string, unknown>>;
      required: string[];
    };
    expect(pet.properties.pet_number).toMatchObject({ type: 'integer', minimum: 1, maximum: 2147483647 });
    expect(pet.required).toEqual(['pet_number']);
  });

  it('enum values keep their descriptions in the text the model reads, defaults as `default`', () => {
    const tool = named('find_pets_by_status', 2);
    const status = (toolSchema(tool).inputSchema as { properties: Record<string, Record<string, unknown>> })
      .properties.status!;
    const values = tool.signature.input_parameters.find((p) => p.name === 'status')!['allowed-values']!;
    expect(status.enum).toEqual(values.map((v) => v.name));
    for (const v of values) expect(status.description).toContain(`${v.name} (`);
    const optional = tool.signature.input_parameters.filter((p) => !p.required);
    const properties = (
      toolSchema(tool).inputSchema as { properties: Record<string, Record<string, unknown>> }
    ).properties;
    for (const p of optional) expect(properties[p.name]!.default).toEqual(tool.defaults[p.name]);
  });

  it('outputs: declared outputs, optional ones not required', () => {
    const tool = named('describe_pet');
    const schema = toolSchema(tool).outputSchema as { properties: object; required: string[] };
    expect(Object.keys(schema.properties)).toEqual(tool.signature.output_parameters.map((p) => p.name));
    for (const name of tool.optionalOutputs) expect(schema.required).not.toContain(name);
  });

  it('annotations from the effects: GET-only tools are read-only and idempotent, never destructive', () => {
    for (const tool of tools) {
      const { annotations } = toolSchema(tool);
      expect(annotations).toEqual({
        title: toolTitle(tool.signature.name),
        readOnlyHint: tool.effects.readOnly,
        destructiveHint: tool.effects.destructive,
        idempotentHint: tool.effects.idempotent,
        openWorldHint: true,
      });
    }
    expect(toolSchema(named('describe_pet')).annotations.readOnlyHint).toBe(true);
    expect(toolSchema(named('describe_pet')).description).toMatch(/\[🔒 READ-ONLY\]$/);
  });

  it('OpenAI strict mode: every property required, optional ones nullable', () => {
    const tool = named('find_pets_by_status', 2);
    const schema = inputSchema(tool, 'openai-strict') as {
      properties: Record<string, { type: unknown }>;
      required: string[];
    };
    expect(schema.required).toEqual(tool.signature.input_parameters.map((p) => p.name));
    for (const p of tool.signature.input_parameters.filter((q) => !q.required)) {
      expect(schema.properties[p.name]!.type).toEqual(expect.arrayContaining(['null']));
    }
  });
});
