import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SculptorError } from '../../src/errors/sculptor-error.ts';
import { type LoadOptions, loadOpenApi, type Operation } from '../../src/openapi/load-openapi.ts';
import { OPENAPI_LIMIT_SETTINGS } from '../../src/openapi/openapi-limits.ts';

const fixtures = join(import.meta.dirname, 'fixtures');
type Schema = Record<string, unknown>;
/** A byte limit small enough to write past quickly. */
const MAX_BYTES = 1024 * 1024;
const specs = join(import.meta.dirname, '../fixtures/specs');

async function loadError(file: string, options: LoadOptions = {}): Promise<SculptorError> {
  try {
    await loadOpenApi(file, options);
  } catch (error) {
    expect(error).toBeInstanceOf(SculptorError);
    return error as SculptorError;
  }
  throw new Error(`${file} loaded`);
}

function op(ops: Operation[], id: string): Operation {
  const found = ops.find((o) => o.operationId === id);
  if (!found) throw new Error(`no ${id}`);
  return found;
}

describe('loadOpenApi: Swagger 2.0', async () => {
  const doc = await loadOpenApi(join(fixtures, 'swagger2-styles.yaml'));
  const getItem = op(doc.operations, 'getItem');
  const param = (name: string) => getItem.parameters.find((p) => p.name === name)!;

  it('reads version, title and servers (one per scheme, no trailing slash)', () => {
    expect(doc.specVersion).toBe('2.0');
    expect(doc.title).toBe('Swagger 2 styles');
    expect(doc.servers).toEqual(['https://api.example.test/v1', 'http://api.example.test/v1']);
  });

  it('merges path-level and operation-level parameters, the operation winning', () => {
    expect(getItem.parameters.map((p) => p.name)).toEqual([
      'id',
      'shared',
      'csv',
      'ssv',
      'pipes',
      'tsv',
      'multi',
      'X-Tags',
    ]);
    expect(param('shared')).toMatchObject({ in: 'query', required: true, schema: { type: 'integer' } });
    expect(param('id')).toMatchObject({ in: 'path', required: true, style: 'simple', explode: false });
  });

  it.each([
    ['csv', 'form', false],
    ['ssv', 'spaceDelimited', false],
    ['pipes', 'pipeDelimited', false],
    ['tsv', 'tabDelimited', false],
    ['multi', 'form', true],
    ['X-Tags', 'simple', false],
  ])('maps collectionFormat of %s to style %s, explode %s', (name, style, explode) => {
    expect(param(name)).toMatchObject({ style, explode, allowReserved: false });
  });

  it('builds a JSON schema from the inline type, items and enum', () => {
    expect(param('multi').schema).toEqual({ type: 'array', items: { type: 'integer', enum: [1, 2] } });
  });

  it('maps in: body to requestBody and keeps it out of parameters', () => {
    const put = op(doc.operations, 'putItem');
    expect(put.parameters.map((p) => p.name)).toEqual(['id', 'shared']);
    expect(put.requestBody).toEqual({
      required: true,
      mediaType: 'application/json',
      schema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
    });
    expect(put.deprecated).toBe(true);
    expect(put.security).toEqual([]);
  });

  it('gathers formData fields into one form body', () => {
    const upload = op(doc.operations, 'upload');
    expect(upload.parameters).toEqual([]);
    expect(upload.requestBody).toEqual({
      required: true,
      mediaType: 'multipart/form-data',
      schema: {
        type: 'object',
        properties: { file: { type: 'string', format: 'binary' }, note: { type: 'string' } },
        required: ['file'],
      },
    });
  });

  it('gives responses the produces media types when they have a body', () => {
    expect(getItem.responses['200']).toEqual({
      mediaTypes: ['application/json', 'application/xml'],
      schema: { type: 'object', properties: { id: { type: 'integer' } } },
    });
    expect(getItem.responses['404']).toEqual({ mediaTypes: [] });
    expect(getItem.security).toEqual([{ key: [] }]);
    expect(getItem.method).toBe('GET');
    expect(getItem.path).toBe('/items/{id}');
  });
});

describe('loadOpenApi: OAS 3.1 JSON', async () => {
  const doc = await loadOpenApi(join(fixtures, 'oas31-styles.json'));
  const getThing = op(doc.operations, 'getThing');
  const param = (name: string) => getThing.parameters.find((p) => p.name === name)!;

  it('substitutes server variable defaults and keeps relative servers', () => {
    expect(doc.specVersion).toBe('3.1');
    expect(doc.servers).toEqual(['https://eu.example.test/api', '/relative']);
  });

  it('lists path operations only, not webhooks', () => {
    expect(doc.operations.map((o) => `${o.method} ${o.path}`)).toEqual([
      'GET /things/{thing}',
      'PATCH /things/{thing}',
    ]);
  });

  it.each([
    ['thing', 'path', 'simple', false],
    ['q', 'query', 'form', true],
    ['filter', 'query', 'deepObject', true],
    ['ids', 'query', 'form', false],
    ['X-Trace', 'header', 'simple', false],
    ['session', 'cookie', 'form', true],
  ])('%s in %s has style %s, explode %s', (name, location, style, explode) => {
    expect(param(name)).toMatchObject({ in: location, style, explode });
  });

  it('keeps the media type and schema of content parameters', () => {
    expect(param('where')).toMatchObject({ mediaType: 'application/json', schema: { type: 'object' } });
  });

  it('prefers JSON media types for bodies and response schemas', () => {
    expect(getThing.summary).toBe('Get a thing');
    expect(getThing.description).toBe('Longer text');
    expect(getThing.responses['200']).toEqual({
      mediaTypes: ['application/xml', 'application/geo+json'],
      schema: { type: 'object', properties: { type: { const: 'Feature' } } },
    });
    expect(getThing.responses.default?.mediaTypes).toEqual(['application/problem+json']);
    const patch = doc.operations.find((o) => o.method === 'PATCH')!;
    expect(patch.operationId).toBeUndefined();
    expect(patch.requestBody).toEqual({
      required: true,
      mediaType: 'application/merge-patch+json',
      schema: { type: 'object' },
    });
    expect(patch.security).toEqual([]);
  });
});

describe('loadOpenApi: multi-file documents', () => {
  it('follows relative $refs across files (Redocly starter, OAS 3.1)', async () => {
    const doc = await loadOpenApi(join(specs, 'multifile/redocly-openapi-starter/openapi.yaml'));
    expect(doc.specVersion).toBe('3.1');
    const getMenu = doc.operations.find((o) => o.method === 'GET' && o.path === '/menu')!;
    expect(getMenu.parameters.map((p) => p.name)).toContain('limit');
    // The response schema lives in another file: read through, it is that file's object schema.
    const list = getMenu.responses['200']!.schema as Schema;
    expect(list.type).toBe('object');
    expect(Object.keys(list.properties as Schema).length).toBeGreaterThan(0);
    expect(JSON.stringify(getMenu)).not.toContain('x-unresolved-ref');
  });

  it('follows $refs that climb out of the entry directory (swagger-codegen, Swagger 2)', async () => {
    const entry = 'multifile/swagger-codegen/relative-ref/nested/directory/main/relative-refs.yml';
    const doc = await loadOpenApi(join(specs, entry));
    expect(doc.specVersion).toBe('2.0');
    const photos = op(doc.operations, 'getPhotos').responses['200']!.schema as Schema;
    expect((photos.items as Schema).properties).toHaveProperty('id', {
      type: 'integer',
      format: 'int32',
      description: expect.any(String),
    });
    expect(JSON.stringify(doc.operations)).not.toContain('x-unresolved-ref');
  });

  it('represents circular schemas (A ↔ B across files, self-recursive) as themselves, and serializes them as references', async () => {
    const doc = await loadOpenApi(join(fixtures, 'multifile-circular/openapi.yaml'));
    const tree = op(doc.operations, 'getTree').responses['200']!.schema as Schema;
    const children = (tree.properties as Record<string, Schema>).children!;
    expect(children.type).toBe('array');
    expect(children.items).toBe(tree);
    const a = op(doc.operations, 'listNodes').responses['200']!.schema as Schema;
    const b = (a.properties as Record<string, Schema>).b!;
    expect(b.type).toBe('object');
    expect((b.properties as Record<string, Schema>).a).toBe(a);
    expect(JSON.parse(JSON.stringify(tree))).toEqual({ $ref: '#/components/schemas/Tree' });
    expect(JSON.parse(JSON.stringify(b))).toEqual({ $ref: 'b.yaml' });
    expect(JSON.parse(JSON.stringify(children))).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/Tree' },
    });
  });

  it('does not read what $refs inside vendor extensions point at', async () => {
    const doc = await loadOpenApi(join(fixtures, 'vendor-extension-ref.yaml'));
    const schema = op(doc.operations, 'getX').responses['200']!.schema;
    // A schema property named x-… is not a vendor extension: its $ref is followed.
    expect(schema).toEqual({ type: 'object', properties: { 'x-not-an-extension': { type: 'string' } } });
  });
});

describe('loadOpenApi: refusals', () => {
  let dir: string;
  let server: Server;
  let hits = 0;
  let port = 0;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sculptor-openapi-'));
    server = createServer((_req, res) => {
      hits++;
      res.setHeader('content-type', 'application/yaml');
      res.end('type: string\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  function docWithSchemaRef(ref: string, where: 'schema' | 'extension' = 'schema'): string {
    const content =
      where === 'schema' ? { 'application/json': { schema: { $ref: ref } } } : { 'application/json': {} };
    const get = { responses: { '200': { description: 'ok', content } }, 'x-sample': { $ref: ref } };
    if (where === 'schema') delete (get as Record<string, unknown>)['x-sample'];
    return JSON.stringify({ openapi: '3.0.3', info: { title: 't', version: '1' }, paths: { '/x': { get } } });
  }

  it.each(['http', 'https'])('refuses %s $refs without any request reaching the server', async (scheme) => {
    const file = join(dir, `network-${scheme}.json`);
    await writeFile(file, docWithSchemaRef(`${scheme}://127.0.0.1:${port}/x.yaml`));
    const error = await loadError(file);
    expect(error.code).toBe('load.openapi');
    expect(error.message).toContain(file);
    expect(hits).toBe(0);
  });

  it('ignores network $refs inside vendor extensions, still without a request', async () => {
    const file = join(dir, 'network-in-extension.json');
    await writeFile(file, docWithSchemaRef(`http://127.0.0.1:${port}/x.yaml`, 'extension'));
    const doc = await loadOpenApi(file);
    expect(doc.operations).toHaveLength(1);
    expect(hits).toBe(0);
  });

  it.each([
    ['ref-file-url.yaml', 'file:///etc/passwd'],
    ['ref-absolute-path.yaml', 'absolute'],
    ['ref-text-file.yaml', '.json, .yaml and .yml'],
  ])('refuses %s', async (name, reason) => {
    const error = await loadError(join(fixtures, name));
    expect(error.code).toBe('load.openapi');
    expect(error.message).toContain(name);
    expect(error.message).toContain(reason);
  });

  it('refuses a document over SCULPTOR_OPENAPI_MAX_BYTES before parsing it, naming the setting', async () => {
    const file = join(dir, 'huge.yaml');
    await writeFile(file, `openapi: 3.0.3\n# ${'x'.repeat(MAX_BYTES)}\n`);
    const started = performance.now();
    const error = await loadError(file, { limits: { maxBytes: MAX_BYTES } });
    expect(error.code).toBe('load.openapi');
    expect(error.message).toContain(`over its ${MAX_BYTES}-byte limit`);
    expect(error.message).toContain('raise SCULPTOR_OPENAPI_MAX_BYTES');
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('reads the byte limit from the environment, 32 MiB by default', () => {
    expect(OPENAPI_LIMIT_SETTINGS.maxBytes).toMatchObject({
      env: 'SCULPTOR_OPENAPI_MAX_BYTES',
      fallback: 32 * 1024 ** 2,
    });
  });

  it('counts every file of a multi-file document against the byte limit', async () => {
    const half = `# ${'x'.repeat(MAX_BYTES / 2)}\ntype: string\n`;
    await writeFile(join(dir, 'half-a.yaml'), half);
    await writeFile(join(dir, 'half-b.yaml'), half);
    const schema = (ref: string) => ({ 'application/json': { schema: { $ref: ref } } });
    const responses = (ref: string) => ({ '200': { description: 'ok', content: schema(ref) } });
    const paths = {
      '/a': { get: { responses: responses('half-a.yaml') } },
      '/b': { get: { responses: responses('half-b.yaml') } },
    };
    const file = join(dir, 'two-halves.json');
    await writeFile(file, JSON.stringify({ openapi: '3.0.3', info: { title: 't', version: '1' }, paths }));
    expect((await loadError(file, { limits: { maxBytes: MAX_BYTES } })).message).toContain('limit');
  });

  it('stops a YAML alias bomb quickly', async () => {
    const started = performance.now();
    const error = await loadError(join(fixtures, 'billion-laughs.yaml'));
    expect(error.code).toBe('load.openapi');
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it.each([
    ['duplicate-key.yaml', 'duplicate keys'],
    ['not-openapi.yaml', 'a schema fragment, not a document'],
  ])('refuses %s (%s)', async (name) => {
    expect((await loadError(join(fixtures, name))).code).toBe('load.openapi');
  });

  it('names a file that does not exist', async () => {
    const error = await loadError(join(dir, 'missing.yaml'));
    expect(error.code).toBe('load.openapi');
    expect(error.message).toContain('missing.yaml');
  });

  it('refuses malformed JSON and YAML', async () => {
    await writeFile(join(dir, 'bad.json'), '{"openapi": "3.0.3", ');
    await writeFile(join(dir, 'bad.yaml'), 'openapi: [3.0.3\npaths: {');
    expect((await loadError(join(dir, 'bad.json'))).code).toBe('load.openapi');
    expect((await loadError(join(dir, 'bad.yaml'))).code).toBe('load.openapi');
  });

  it('refuses unsupported versions and malformed operations', async () => {
    const write = async (name: string, doc: unknown) => {
      await writeFile(join(dir, name), JSON.stringify(doc));
      return join(dir, name);
    };
    const info = { title: 't', version: '1' };
    const v4 = await write('v4.json', { openapi: '4.0.0', info, paths: {} });
    const badParam = await write('bad-param.json', {
      openapi: '3.0.3',
      info,
      paths: { '/x': { get: { parameters: [{ name: 'a', in: 'body' }], responses: {} } } },
    });
    expect((await loadError(v4)).code).toBe('load.openapi');
    const error = await loadError(badParam);
    expect(error.code).toBe('load.openapi');
    expect(error.message).toContain('GET /x');
  });
});
