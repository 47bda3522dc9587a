import { cp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { compileSculpts } from '../../src/compile/compile-sculpts.ts';
import { createEngine } from '../../src/engine/invoke-tool.ts';
import { createBackendClient } from '../../src/http/backend-client.ts';
import { type ShopBackend, startShopBackend } from '../arazzo/shop-backend.ts';
import { findingsOf, REPO, removeFolder, runCli, tempFolder } from './run-cli.ts';

/**
 * `sculptor init --arazzo FILE --workflow ID`: a sculpt wrapping one workflow, which checks, tests
 * and runs as written; `sculptor operations --arazzo FILE`: the workflows to choose from.
 */
const SHOP = path.join(REPO, 'test/arazzo/fixtures/shop');
const SHOP_ARAZZO = path.join(SHOP, 'shop.arazzo.yaml');
const JENTIC = path.join(REPO, 'test/fixtures/arazzo/jentic/workflows');

const folders: string[] = [];
let shop: ShopBackend;
beforeAll(async () => {
  shop = await startShopBackend();
});
afterAll(async () => {
  await shop?.close();
  await Promise.all(folders.map(removeFolder));
});

async function folder(): Promise<string> {
  const dir = await tempFolder({}, 'sculptor-init-arazzo-');
  folders.push(dir);
  return dir;
}

describe('sculptor init --arazzo', { timeout: 180_000 }, () => {
  it('wraps a workflow: inputs narrowed, outputs projected, cache placeholders; check, test and a real run pass', async () => {
    const dir = await folder();
    const init = await runCli(
      ['init', '--arazzo', SHOP_ARAZZO, '--workflow', 'order-available-pet', '--out', dir],
      { timeoutMs: 60_000 },
    );
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(init.stdout).toContain('sculptor init: order_available_pet');
    expect(init.stdout).toMatch(/created .*backends\.yaml \(arazzo 'shop'\)/);

    const sculptText = await readFile(path.join(dir, 'order_available_pet.v1.sculpt.yaml'), 'utf8');
    const sculpt = parse(sculptText) as Record<string, unknown>;
    expect(sculpt.workflow).toBe('shop#order-available-pet');
    // The required integer keeps its bounds; the optional enum with a default is fixed to it.
    expect(sculpt.inputs).toEqual({
      quantity: { type: 'int', min: 1, max: 10, description: 'How many to order.' },
    });
    expect(String(sculpt.arguments).replace(/\s+/g, ' ').trim()).toBe(
      '{ "quantity": $inputs.quantity, "status": "available" }',
    );
    expect(sculptText).toContain(`# REVIEW: input 'status' is fixed to its default, "available"`);
    expect(Object.keys(sculpt.outputs as object)).toEqual(['order_id', 'pet_name', 'waitlist_position']);
    // The GET steps, commented out: caching is the designer's decision.
    expect(sculptText).toMatch(/^# cache:\n# {3}find: \{ ttl: 5m, scope: caller \}\n# {3}waitlist: /m);

    const backends = parse(await readFile(path.join(dir, 'backends.yaml'), 'utf8')) as {
      backends: Record<string, { openapi: string; baseUrl: string }>;
      arazzo: Record<string, { document: string; workflows: string[] }>;
    };
    expect(path.resolve(dir, backends.backends.shop!.openapi)).toBe(path.join(SHOP, 'openapi.yaml'));
    expect(backends.backends.shop!.baseUrl).toBe('${SHOP_BASE_URL:-https://example.invalid}');
    expect(backends.arazzo.shop).toEqual({ document: path.relative(dir, SHOP_ARAZZO), workflows: [] });

    // No error; what is left is what a designer must read, which --strict refuses.
    const check = await runCli(['check', dir], { timeoutMs: 60_000 });
    expect(check.code, check.stdout).toBe(0);
    const codes = new Set(findingsOf(check.stdout, dir).map((f) => f.code));
    expect([...codes].filter((c) => !/^lint\.(review_mark|placeholder)$/.test(c))).toEqual([]);
    expect(check.stdout).toContain('1 tool version(s) of 1 tool(s); 0 error(s)');
    expect((await runCli(['check', dir, '--strict'], { timeoutMs: 60_000 })).code).toBe(1);
    const test = await runCli(['test', dir], { timeoutMs: 60_000 });
    expect(test.code, test.stdout + test.stderr).toBe(0);
    expect(test.stdout).toMatch(/1 file\(s\), 1 case\(s\): 1 passed, 0 failed/);

    // The scaffold runs as written against the shop: the workflow's own control flow, its outputs projected.
    const [tool] = await compileSculpts(dir, { SHOP_BASE_URL: shop.url });
    expect(tool!.signature.name).toBe('order_available_pet');
    const client = createBackendClient();
    try {
      const engine = createEngine({
        sender: client,
        cacheSecret: 'init-arazzo-secret-0123456789',
        allowPrivateEgress: true,
      });
      const since = shop.requests.length;
      const result = await engine.invoke(tool!, { quantity: 1 });
      const outputs = Object.fromEntries(result.outputs.map((p) => [p.name, p.value]));
      expect(outputs).toEqual({ order_id: expect.stringMatching(/^ord-\d+$/), pet_name: expect.any(String) });
      expect(shop.requests.slice(since).map((r) => `${r.method} ${r.path}`)).toEqual([
        'GET /pets?status=available',
        'POST /orders',
      ]);
    } finally {
      await client.close();
    }
  });

  it('into a folder that already serves the description: its backend and arazzo entry are reused', async () => {
    const dir = await folder();
    await cp(SHOP, dir, { recursive: true });
    const before = await readFile(path.join(dir, 'backends.yaml'), 'utf8');
    const init = await runCli(
      [
        'init',
        '--arazzo',
        path.join(dir, 'shop.arazzo.yaml'),
        '--workflow',
        'wait-for-job',
        '--name',
        'job_result',
        '--out',
        dir,
      ],
      { timeoutMs: 30_000, env: { SHOP_URL: 'http://127.0.0.1:9' } },
    );
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(init.stdout).toMatch(/reused .*backends\.yaml \(arazzo 'shop'\)/);
    expect(await readFile(path.join(dir, 'backends.yaml'), 'utf8')).toBe(before);
    const sculpt = parse(await readFile(path.join(dir, 'job_result.v1.sculpt.yaml'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(sculpt.workflow).toBe('shop#wait-for-job');
    // A job id is text an agent has; the poll step is a GET, a cache candidate.
    expect(sculpt.inputs).toEqual({
      job: { type: 'string', maxLength: 256, description: "The workflow's 'job' input.", required: false },
    });
  });

  it('a workflow whose inputs carry a credential: the backend sends it instead, the object input is flattened', async () => {
    const dir = await folder();
    const file = path.join(dir, 'cred.arazzo.yaml');
    await writeFile(
      path.join(dir, 'openapi.yaml'),
      `openapi: 3.0.3
info: { title: Keyed shop, version: '1.0' }
components:
  securitySchemes:
    key: { type: apiKey, in: header, name: X-Api-Key }
security: [{ key: [] }]
paths:
  /orders:
    post:
      operationId: placeOrder
      parameters: [{ name: X-Api-Key, in: header, required: true, schema: { type: string } }]
      requestBody: { required: true, content: { application/json: { schema: { type: object } } } }
      responses:
        '201':
          description: placed
          content: { application/json: { schema: { type: object, properties: { id: { type: string } } } } }
`,
    );
    await writeFile(
      file,
      `arazzo: 1.0.1
info: { title: Cred, version: 1.0.0 }
sourceDescriptions: [{ name: shop, url: ./openapi.yaml, type: openapi }]
workflows:
  - workflowId: order-with-key
    description: Order a pet. Use it when the user wants a pet.
    inputs:
      type: object
      required: [apiKey, order]
      properties:
        apiKey: { type: string, description: The shop's API key. }
        order:
          type: object
          required: [petId]
          properties:
            petId: { type: integer }
            note: { type: string, maxLength: 80 }
            tags: { type: array, items: { type: object } }
    steps:
      - stepId: place
        operationId: placeOrder
        parameters: [{ name: X-Api-Key, in: header, value: $inputs.apiKey }]
        requestBody: { payload: $inputs.order }
        outputs: { id: $response.body#/id }
    outputs: { orderId: $steps.place.outputs.id }
`,
    );
    const out = path.join(dir, 'sculpts');
    const init = await runCli(['init', '--arazzo', file, '--workflow', 'order-with-key', '--out', out], {
      timeoutMs: 60_000,
    });
    expect(init.code, init.stdout + init.stderr).toBe(0);
    const text = await readFile(path.join(out, 'order_with_key.v1.sculpt.yaml'), 'utf8');
    const sculpt = parse(text) as Record<string, unknown>;
    expect(Object.keys(sculpt.inputs as object)).toEqual(['order_pet_id', 'order_note']);
    expect((sculpt.inputs as Record<string, unknown>).order_note).toEqual({
      type: 'string',
      maxLength: 80,
      description: "The workflow's 'order_note' input.",
      required: false,
    });
    expect(text).toContain(
      `# REVIEW: input 'apiKey' is a credential: no agent supplies it. The backend's auth in backends.yaml sends it from the environment ({ in: header, name: "X-Api-Key", value: "\${…}" }).`,
    );
    expect(text).toContain(`# REVIEW: input 'order' field 'tags' is not a string, integer or boolean`);
    expect(String(sculpt.arguments).replace(/\s+/g, ' ').trim()).toBe(
      '{ "order": { "petId": $inputs.order_pet_id, "note": $inputs.order_note } }',
    );
    // The output's type is read from the answer's schema.
    expect((sculpt.outputs as Record<string, { type: string }>).order_id!.type).toBe('string');
    const backends = parse(await readFile(path.join(out, 'backends.yaml'), 'utf8')) as {
      backends: Record<string, { auth: unknown[] }>;
    };
    expect(backends.backends.shop!.auth).toEqual([
      { in: 'header', name: 'X-Api-Key', value: '${SHOP_API_KEY}' },
    ]);

    // The key goes out from the environment; the workflow's own parameter never reads an input.
    const [tool] = await compileSculpts(out, { SHOP_BASE_URL: shop.url, SHOP_API_KEY: 'key-from-env' });
    const client = createBackendClient();
    try {
      const engine = createEngine({
        sender: client,
        cacheSecret: 'init-arazzo-secret-0123456789',
        allowPrivateEgress: true,
      });
      const since = shop.requests.length;
      const result = await engine.invoke(tool!, { order_pet_id: 1 });
      expect(result.outputs.map((p) => [p.name, p.value])).toEqual([
        ['order_id', expect.stringMatching(/^ord-/)],
      ]);
      expect(shop.requests.slice(since)).toEqual([
        { method: 'POST', path: '/orders', body: { petId: 1 }, apiKey: 'key-from-env' },
      ]);
    } finally {
      await client.close();
    }
  });

  it('an enum, an array of strings and a number: each an A2T input, turned back into the workflow’s values', async () => {
    const dir = await folder();
    await writeFile(path.join(dir, 'openapi.yaml'), await readFile(path.join(SHOP, 'openapi.yaml'), 'utf8'));
    const file = path.join(dir, 'list.arazzo.yaml');
    await writeFile(
      file,
      `arazzo: 1.0.1
info: { title: List, version: 1.0.0 }
sourceDescriptions: [{ name: shop, url: ./openapi.yaml, type: openapi }]
workflows:
  - workflowId: list-pets
    description: List pets. Use it when the user asks for pets.
    inputs:
      type: object
      required: [status]
      properties:
        status: { type: string, enum: [available, pending] }
        tags: { type: array, items: { type: string } }
        weight: { type: number }
    steps:
      - stepId: list
        operationId: listPets
        parameters: [{ name: status, in: query, value: $inputs.status }]
        outputs: { count: $response.body#/count }
    outputs: { count: $steps.list.outputs.count, tags: $inputs.tags, weight: $inputs.weight }
`,
    );
    const out = path.join(dir, 'sculpts');
    const init = await runCli(['init', '--arazzo', file, '--workflow', 'list-pets', '--out', out], {
      timeoutMs: 60_000,
    });
    expect(init.code, init.stdout + init.stderr).toBe(0);
    const sculpt = parse(await readFile(path.join(out, 'list_pets.v1.sculpt.yaml'), 'utf8')) as {
      inputs: Record<string, { type: string; values?: object }>;
    };
    expect(Object.entries(sculpt.inputs).map(([n, d]) => [n, d.type])).toEqual([
      ['status', 'enum'],
      ['tags', 'string'],
      ['weight', 'string'],
    ]);
    expect(sculpt.inputs.status!.values).toEqual({ AVAILABLE: 'available', PENDING: 'pending' });
    const [tool] = await compileSculpts(out, { SHOP_BASE_URL: shop.url });
    const client = createBackendClient();
    try {
      const engine = createEngine({
        sender: client,
        cacheSecret: 'init-arazzo-secret-0123456789',
        allowPrivateEgress: true,
      });
      const since = shop.requests.length;
      const result = await engine.invoke(tool!, { status: 'PENDING', tags: 'a, b', weight: '2.5' });
      expect(Object.fromEntries(result.outputs.map((p) => [p.name, p.value]))).toEqual({
        count: 0,
        tags: ['a', 'b'],
        weight: 2.5,
      });
      expect(shop.requests.slice(since).map((r) => r.path)).toEqual(['/pets?status=pending']);
    } finally {
      await client.close();
    }
  });

  it('without --workflow: the workflows are listed and the command to run said', async () => {
    const result = await runCli(['init', '--arazzo', SHOP_ARAZZO], { timeoutMs: 60_000 });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('order-available-pet  Order the first available pet');
    expect(result.stderr).toContain(
      `sculptor init --arazzo ${SHOP_ARAZZO} --workflow order-available-pet --out DIR`,
    );
  });

  it('an unknown workflow: an error at the workflows of the description, with the nearest id', async () => {
    const dir = await folder();
    const result = await runCli(
      ['init', '--arazzo', SHOP_ARAZZO, '--workflow', 'order-available-pets', '--out', dir],
      { timeoutMs: 60_000 },
    );
    expect(result.code).toBe(1);
    const raw = await readFile(SHOP_ARAZZO, 'utf8');
    const line = raw.split('\n').findIndex((l) => l.startsWith('workflows:')) + 2;
    expect(result.stderr).toContain(`${path.relative(REPO, SHOP_ARAZZO)}:${line}:`);
    expect(result.stderr).toContain(
      "compile.arazzo shop.arazzo.yaml has no workflow 'order-available-pets'.",
    );
    expect(result.stderr).toContain("Did you mean 'order-available-pet'?");
  });

  it('a description the specification refuses: each problem at its file:line:col, nothing written', async () => {
    const dir = await folder();
    const file = path.join(dir, 'bad.arazzo.yaml');
    await writeFile(
      file,
      'arazzo: 1.0.1\ninfo: { title: Bad, version: 1.0.0 }\nsourceDescriptions: [{ name: s, url: ./x.yaml }]\nworkflows:\n  - workflowId: w\n    stepz: []\n',
    );
    const out = path.join(dir, 'out');
    const result = await runCli(['init', '--arazzo', file, '--workflow', 'w', '--out', out], {
      timeoutMs: 60_000,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/bad\.arazzo\.yaml:5:5 load\.schema /);
    expect(result.stderr).not.toContain('wrote');
  });
});

describe('sculptor operations --arazzo', { timeout: 90_000 }, () => {
  it('lists the workflows: inputs (required marked), the calls of each step, outputs', async () => {
    const result = await runCli(['operations', '--arazzo', SHOP_ARAZZO], { timeoutMs: 60_000 });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('    inputs: quantity*, status   (* required)');
    expect(result.stdout).toContain('    steps: listPets → GET /waitlist → placeOrder');
    expect(result.stdout).toContain('    steps: workflow order-available-pet → getPet');
    expect(result.stdout).toContain('4 of 4 workflow(s).');
  });

  it('--filter and --json', async () => {
    const result = await runCli(
      [
        'operations',
        '--arazzo',
        path.join(JENTIC, 'schooldigger.com/workflows.arazzo.json'),
        '--filter',
        'retrieve-district',
        '--json',
      ],
      { timeoutMs: 60_000 },
    );
    expect(result.code, result.stderr).toBe(0);
    const listed = JSON.parse(result.stdout) as Array<{ workflowId: string }>;
    expect(listed.map((w) => w.workflowId)).toEqual(['retrieve-district-boundary']);
  });
});
