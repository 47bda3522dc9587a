/**
 * Schemas are lazy views: references followed when read, recursion kept as the
 * same object, serialization bounded by `$ref`s, limits counting what is
 * materialized and naming the operation and the setting.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SculptorError } from '../../src/errors/sculptor-error.ts';
import { loadOpenApi } from '../../src/openapi/load-openapi.ts';
import { openApiLimitProblems, openApiLimits } from '../../src/openapi/openapi-limits.ts';

type Schema = Record<string, unknown>;

/** An "expandable" field: the id, or the object it names (Stripe's shape). */
const expandable = (name: string) => ({
  anyOf: [{ type: 'string', maxLength: 5000 }, { $ref: `#/components/schemas/${name}` }],
  'x-expansionResources': { oneOf: [{ $ref: `#/components/schemas/${name}` }] },
});

/** `n` objects, each with expandable fields naming every other: inlined, it never ends. */
function expandableDocument(n: number): object {
  const names = Array.from({ length: n }, (_, i) => `thing_${i}`);
  const schemas: Record<string, unknown> = {};
  for (const name of names) {
    const properties: Record<string, unknown> = { id: { type: 'string' } };
    for (const other of names) properties[other] = expandable(other);
    schemas[name] = { type: 'object', required: ['id'], properties };
  }
  const paths: Record<string, unknown> = {};
  for (const name of names) {
    paths[`/v1/${name}/{id}`] = {
      get: {
        operationId: `Get${name}`,
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '200': {
            description: 'ok',
            content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } },
          },
        },
      },
    };
  }
  return { openapi: '3.0.0', info: { title: 'Expandable', version: '1' }, paths, components: { schemas } };
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'schema-views-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function write(name: string, doc: object): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, JSON.stringify(doc));
  return file;
}

describe('schema views', () => {
  it('load a document whose expandable fields would inline without end, and read through them', async () => {
    // 12 objects each naming all 12: inlined, 12^depth values (the old loader refused it).
    const doc = await loadOpenApi(await write('expandable.json', expandableDocument(12)));
    expect(doc.operations).toHaveLength(12);
    const thing0 = doc.operations[0]!.responses['200']!.schema as Schema;
    const props = thing0.properties as Record<string, Schema>;
    const toThing1 = (props.thing_1!.anyOf as Schema[])[1] as Schema;
    expect(toThing1.type).toBe('object');
    // Recursion is represented: the way back is the very same object.
    const back = ((toThing1.properties as Record<string, Schema>).thing_0!.anyOf as Schema[])[1];
    expect(back).toBe(thing0);
    // Serialized, a referenced part is its reference: the model stays the document's size.
    expect(JSON.parse(JSON.stringify(thing0))).toEqual({ $ref: '#/components/schemas/thing_0' });
    expect(JSON.stringify(doc).length).toBeLessThan(20_000);
  });

  it('materialize only what is read', async () => {
    const file = await write('expandable-60.json', expandableDocument(60));
    const limits = { maxSchemaNodes: 1_000 };
    // 60 × 60 expandable fields: more than 1,000 nodes if all were read, but loading reads none.
    const doc = await loadOpenApi(file, { limits });
    const thing = doc.operations[5]!.responses['200']!.schema as Schema;
    expect(thing.type).toBe('object');
    // Reading every field of every object goes past the limit, which names the operation and the setting.
    let error: unknown;
    try {
      for (const op of doc.operations) {
        const schema = op.responses['200']!.schema as Schema;
        for (const field of Object.values(schema.properties as Record<string, Schema>)) {
          for (const option of (field.anyOf as Schema[] | undefined) ?? []) void option.type;
        }
      }
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SculptorError);
    expect((error as SculptorError).code).toBe('load.openapi');
    expect((error as Error).message).toMatch(/GET \/v1\/thing_\d+\/\{id\}/);
    expect((error as Error).message).toContain(
      'SCULPTOR_OPENAPI_MAX_SCHEMA_NODES (now 1000, default 2000000)',
    );
  });

  it('refuse schemas nesting deeper than the depth limit between references, naming the operation', async () => {
    let deep: Schema = { type: 'string' };
    for (let i = 0; i < 40; i++) deep = { type: 'object', properties: { inner: deep } };
    const file = await write('deep.json', {
      openapi: '3.0.0',
      info: { title: 'Deep', version: '1' },
      paths: {
        '/deep': {
          post: {
            requestBody: { content: { 'application/json': { schema: deep } } },
            responses: { '204': { description: 'none' } },
          },
        },
      },
    });
    const doc = await loadOpenApi(file, { limits: { maxDepth: 20 } });
    let schema = doc.operations[0]!.requestBody!.schema as Schema;
    const read = () => {
      for (let i = 0; i < 40; i++) schema = (schema.properties as Record<string, Schema>).inner!;
    };
    expect(read).toThrow(/POST \/deep: its schemas nest deeper than 20 levels.*SCULPTOR_OPENAPI_MAX_DEPTH/);
    // Within the default, it reads to the bottom.
    schema = (await loadOpenApi(file)).operations[0]!.requestBody!.schema as Schema;
    read();
    expect(schema).toEqual({ type: 'string' });
  });

  it('leave an unresolvable reference as an open schema', async () => {
    const file = await write('broken.json', {
      openapi: '3.0.0',
      info: { title: 'Broken', version: '1' },
      paths: {
        '/x': {
          get: {
            responses: {
              '200': {
                description: 'ok',
                content: {
                  'application/json': {
                    schema: { type: 'object', properties: { gone: { $ref: '#/components/schemas/Gone' } } },
                  },
                },
              },
            },
          },
        },
      },
    });
    const schema = (await loadOpenApi(file)).operations[0]!.responses['200']!.schema as Schema;
    expect(schema.properties).toEqual({ gone: { 'x-unresolved-ref': '#/components/schemas/Gone' } });
  });
});

describe('OpenAPI limits as settings', () => {
  it('read SCULPTOR_OPENAPI_* from the environment, defaults otherwise', () => {
    expect(openApiLimits({})).toEqual({ maxBytes: 32 * 1024 ** 2, maxDepth: 256, maxSchemaNodes: 2_000_000 });
    expect(
      openApiLimits({ SCULPTOR_OPENAPI_MAX_BYTES: '67108864', SCULPTOR_OPENAPI_MAX_SCHEMA_NODES: '5000' }),
    ).toMatchObject({ maxBytes: 64 * 1024 ** 2, maxSchemaNodes: 5_000 });
    expect(openApiLimitProblems({ SCULPTOR_OPENAPI_MAX_DEPTH: 'deep' })).toEqual([
      "SCULPTOR_OPENAPI_MAX_DEPTH must be a whole number from 8 to 10000 (got 'deep').",
    ]);
  });
});
