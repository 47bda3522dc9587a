import path from 'node:path';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import agentToolSchema from './fixtures/provider-schemas/agent-tool-declaration.schema.json' with { type: 'json' };
import anthropicSchema from './fixtures/provider-schemas/anthropic-tools.schema.json' with { type: 'json' };
import geminiSchema from './fixtures/provider-schemas/gemini-tools.schema.json' with { type: 'json' };
import openAiSchema from './fixtures/provider-schemas/openai-tools.schema.json' with { type: 'json' };
import { REPO, runCli } from './run-cli.ts';

const SCULPTS = path.join(REPO, 'test/cli/fixtures/export-sculpts');
const ajv = new Ajv({ allErrors: true, strict: false });

async function exported(format: string, ...extra: string[]): Promise<unknown> {
  const result = await runCli(['export', '--format', format, SCULPTS, ...extra]);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

function valid(schema: object, value: unknown, draft2020 = false): void {
  const validate = (draft2020 ? new Ajv2020({ allErrors: true, strict: false }) : ajv).compile(schema);
  expect(validate(value), JSON.stringify(validate.errors, null, 2)).toBe(true);
}

interface OpenAiTool {
  function: {
    name: string;
    description: string;
    parameters: {
      properties: Record<string, { type: unknown; enum?: unknown[]; description: string }>;
      required: string[];
    };
  };
}

describe('sculptor export', () => {
  it('openai: strict mode shape, every property required, optional ones nullable, 1024-character descriptions', async () => {
    const tools = (await exported('openai')) as OpenAiTool[];
    valid(openAiSchema, tools);
    expect(tools.map((t) => t.function.name)).toEqual([
      'count_things',
      'create_thing',
      'delete_thing',
      'find_things',
    ]);
    for (const t of tools) {
      expect(t.function.parameters.required.sort()).toEqual(
        Object.keys(t.function.parameters.properties).sort(),
      );
      expect(t.function.description.length).toBeLessThanOrEqual(1024);
    }
    const find = tools.find((t) => t.function.name === 'find_things')!.function;
    const { distance, colour, limit } = find.parameters.properties;
    expect(distance!.type).toBe('string');
    expect(distance!.enum).toEqual(['NEAR', 'FAR']);
    expect(distance!.description).toBe(
      'How far to look. One of: NEAR (Within a kilometre); FAR (Within fifty kilometres).',
    );
    expect(colour!.description).toMatch(/At most 40 characters\.$/);
    expect(limit!.type).toEqual(['integer', 'null']);
    expect(limit!.description).toMatch(/Optional: null means 5\.$/);
    // The description is over 1024 characters: cut at a sentence, the safety flags kept.
    expect(find.description).toMatch(
      /what is around\. .*more; the answer lists each thing with its name and how far it is\. \[🔒 READ-ONLY\]$/,
    );
  });

  it('tunnels effects into descriptions as ATIP asks: destructive, not reversible, not idempotent, billable', async () => {
    const tools = (await exported('openai')) as OpenAiTool[];
    const description = (name: string) => tools.find((t) => t.function.name === name)!.function.description;
    expect(description('delete_thing')).toBe(
      'Delete one thing for good. Use it when the user asks to remove a thing they own. [⚠️ DESTRUCTIVE | ⚠️ NOT REVERSIBLE | 💰 BILLABLE]',
    );
    expect(description('create_thing')).toMatch(/\[⚠️ NOT IDEMPOTENT\]$/);
    expect(description('count_things')).toMatch(/\[🔒 READ-ONLY\]$/);
  });

  it('anthropic: name, description, input_schema with only the required inputs required', async () => {
    const tools = (await exported('anthropic')) as Array<{
      name: string;
      input_schema: { required: string[]; properties: Record<string, Record<string, unknown>> };
    }>;
    valid(anthropicSchema, tools);
    const find = tools.find((t) => t.name === 'find_things')!;
    expect(find.input_schema.required).toEqual(['distance', 'colour']);
    expect(find.input_schema.properties.limit).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 20,
      default: 5,
    });
    expect(find.input_schema.properties.colour).toMatchObject({ maxLength: 40 });
  });

  it('gemini: functionDeclarations with upper-case OpenAPI-subset types; no parameters when there are no inputs', async () => {
    const tool = (await exported('gemini')) as {
      functionDeclarations: Array<{
        name: string;
        parameters?: { type: string; properties: Record<string, Record<string, unknown>> };
      }>;
    };
    valid(geminiSchema, tool);
    const byName = new Map(tool.functionDeclarations.map((d) => [d.name, d]));
    expect(byName.get('count_things')!.parameters).toBeUndefined();
    const params = byName.get('find_things')!.parameters!;
    expect(params.type).toBe('OBJECT');
    expect(params.properties.distance).toMatchObject({
      type: 'STRING',
      format: 'enum',
      enum: ['NEAR', 'FAR'],
    });
    expect(params.properties.limit).toMatchObject({ type: 'INTEGER', minimum: 1, maximum: 20 });
    expect(params.properties.colour).toMatchObject({ type: 'STRING', maxLength: '40' });
  });

  it('agent-tool: v0.2 tool_declarations with external_mappings to the OpenAPI operation ids', async () => {
    const declarations = (await exported('agent-tool')) as Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(declarations).toHaveLength(4);
    for (const d of declarations) valid(agentToolSchema, d, true);
    const remove = declarations.find((d) => d.name === 'delete_thing')!;
    expect(remove.tool_kind).toBe('openapi_operation');
    expect(remove.external_mappings).toContainEqual(
      expect.objectContaining({
        source: 'openapi',
        operation_id: 'deleteThing',
        method: 'DELETE',
        path: '/things/{thingId}',
      }),
    );
    expect(remove.external_mappings).toContainEqual(
      expect.objectContaining({ source: 'a2t', tool_id: remove.tool_id, version: 1 }),
    );
    expect(remove.annotations).toMatchObject({
      is_destructive: true,
      is_read_only: false,
      is_reversible: false,
      is_billable: true,
    });
    const count = declarations.find((d) => d.name === 'count_things')!;
    // Named by route in its sculpt; the mapping still carries the document's operationId.
    expect(count.external_mappings).toContainEqual(expect.objectContaining({ operation_id: 'listThings' }));
    expect(count.input_contract.model_input_schema).toEqual({
      type: 'object',
      properties: {},
      required: [],
      additionalProperties: false,
    });
  });

  it('--tool limits the export to one tool; an unknown tool is an error naming the known ones', async () => {
    const one = (await exported('anthropic', '--tool', 'create_thing')) as Array<{ name: string }>;
    expect(one.map((t) => t.name)).toEqual(['create_thing']);
    const unknown = await runCli(['export', '--format', 'openai', SCULPTS, '--tool', 'nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(
      /no tool 'nope' \(tools: count_things, create_thing, delete_thing, find_things\)/,
    );
    const bad = await runCli(['export', '--format', 'mcp', SCULPTS]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--format must be one of openai, anthropic, gemini, agent-tool/);
  });

  it('exports the sample sculpts in every format', async () => {
    for (const [format, schema] of [
      ['openai', openAiSchema],
      ['anthropic', anthropicSchema],
      ['gemini', geminiSchema],
    ] as const) {
      const result = await runCli(['export', '--format', format, path.join(REPO, 'sculpts/petstore')]);
      expect(result.code).toBe(0);
      valid(schema, JSON.parse(result.stdout));
    }
  });
});
