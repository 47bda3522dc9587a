import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolIdFor } from '../../../src/compile/tool-signature.ts';
import { type FaultBackend, startFaultBackend } from '../../http/fault-backend.ts';
import { type PetstoreBackend, startPetstoreBackend } from '../../support/petstore-backend.ts';
import { invoke, startTestGateway } from '../../support/start-test-gateway.ts';

let petstore: PetstoreBackend;
let fault: FaultBackend;
let gateway: Awaited<ReturnType<typeof startTestGateway>>;
let faultGateway: Awaited<ReturnType<typeof startTestGateway>>;
const path = (name: string, version?: number) =>
  version === undefined
    ? `/tools/${toolIdFor(name)}:invoke`
    : `/tools/${toolIdFor(name)}/versions/${version}:invoke`;
const call = (name: string, params: Record<string, unknown> = {}, version?: number) =>
  invoke(gateway.url, path(name, version), {
    name,
    input_parameters: Object.entries(params).map(([n, value]) => ({ name: n, value })),
  });
const callFault = (name: string, params: Record<string, unknown>) =>
  invoke(faultGateway.url, path(name), {
    name,
    input_parameters: Object.entries(params).map(([n, value]) => ({ name: n, value })),
  });

beforeAll(async () => {
  petstore = await startPetstoreBackend();
  fault = await startFaultBackend();
  gateway = await startTestGateway('sculpts', {
    PETSTORE_BASE_URL: `${petstore.url}/v2`,
    PETSTORE3_BASE_URL: `${petstore.url}/api/v3`,
  });
  faultGateway = await startTestGateway('test/fixtures/sculpts-fault', { FAULT_URL: fault.origin });
});
afterAll(async () => {
  await Promise.all([gateway?.close(), faultGateway?.close()]);
  await Promise.all([petstore?.close(), fault?.close()]);
});

describe('invoking the sample tools', () => {
  it('narrows an enum, trims the output, and answers A2T output parameters', async () => {
    const before = petstore.requests.length;
    const res = await call('find_pets_by_status', { status: 'AVAILABLE' });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({
      output_parameters: [
        {
          name: 'pets',
          value: [
            { id: '1', name: 'Rex' },
            { id: '2', name: 'Tom' },
          ],
        },
        { name: 'count', value: 2 },
      ],
    });
    const seen = petstore.requests.slice(before);
    expect(seen.map((r) => `${r.method} ${r.path}${r.query}`)).toEqual([
      'GET /v2/pet/findByStatus?status=available',
    ]);
    expect(seen[0]!.headers.accept).toBe('application/json');
  });

  it('applies defaults and honours an optional input (v2); v1 stays invocable with its own signature', async () => {
    const v2 = await call('find_pets_by_status', { status: 'AVAILABLE', limit: 1 });
    expect(v2.body.output_parameters).toEqual([
      { name: 'pets', value: [{ id: '1', name: 'Rex' }] },
      { name: 'count', value: 2 },
    ]);
    const v1 = await call('find_pets_by_status', { status: 'PENDING' }, 1);
    expect(v1.status).toBe(200);
    // An id above 2^53 reaches the output exactly, never rounded.
    expect(v1.body.output_parameters).toEqual([
      { name: 'pets', value: [{ id: '9223372036854775807', name: 'Big' }] },
      { name: 'count', value: 1 },
    ]);
    const v1WithV2Input = await call('find_pets_by_status', { status: 'PENDING', limit: 1 }, 1);
    expect(v1WithV2Input.status).toBe(400);
  });

  it('maps a declared backend 404 to a tool error the LLM can act on', async () => {
    const res = await call('describe_pet', { pet_number: 99 });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({
      code: 'tool.error',
      retryable: false,
      detail: 'There is no pet number 99. Ask the user to check the number.',
    });
    expect(JSON.stringify(res.body)).not.toContain('Pet not found'); // the backend's own text
  });

  it('leaves out an optional output the backend does not have', async () => {
    const res = await call('describe_pet', { pet_number: 3 });
    expect(res.body.output_parameters).toEqual([
      { name: 'name', value: 'Polly' },
      { name: 'status', value: 'SOLD' },
      { name: 'tags', value: ['loud'] },
    ]);
  });

  it('fixes a hidden constant the LLM never sees, and drops fields not declared', async () => {
    const before = petstore.requests.length;
    const res = await call('list_available_pets');
    expect(res.body.output_parameters).toEqual([{ name: 'names', value: ['Rex', 'Tom'] }]);
    expect(petstore.requests.slice(before).map((r) => r.query)).toEqual(['?status=available']);
    const stock = await call('count_pets_in_stock');
    expect(stock.body.output_parameters).toEqual([
      { name: 'available', value: 2 },
      { name: 'pending', value: 1 },
      { name: 'sold', value: 1 },
    ]);
  });

  it("never forwards the caller's own Authorization or cookies to a backend", async () => {
    const before = petstore.requests.length;
    const res = await invoke(
      gateway.url,
      path('count_pets_in_stock'),
      { name: 'count_pets_in_stock', input_parameters: [] },
      { authorization: 'Bearer CALLER-TOKEN', cookie: 'session=CALLER', 'x-api-key': 'CALLER-KEY' },
    );
    expect(res.status).toBe(200);
    const headers = JSON.stringify(petstore.requests.slice(before).map((r) => r.headers));
    expect(headers).not.toContain('CALLER');
  });
});

describe('invocation validation (A2T §5.1: reject before any backend call)', () => {
  const body = (input_parameters: unknown, name: unknown = 'find_pets_by_status') => ({
    name,
    input_parameters,
  });
  it.each([
    ['a missing required input', body([]), 'status', 'is required'],
    ['a value outside the enum', body([{ name: 'status', value: 'available' }]), 'status', 'must be one of'],
    ['a wrong type', body([{ name: 'status', value: 3 }]), 'status', 'must be one of'],
    [
      'an int out of range',
      body([
        { name: 'status', value: 'SOLD' },
        { name: 'limit', value: 51 },
      ]),
      'limit',
      'at most 50',
    ],
    [
      'a float for an int',
      body([
        { name: 'status', value: 'SOLD' },
        { name: 'limit', value: 1.5 },
      ]),
      'limit',
      'integer',
    ],
    [
      'a string for an int',
      body([
        { name: 'status', value: 'SOLD' },
        { name: 'limit', value: '5' },
      ]),
      'limit',
      'integer',
    ],
    [
      'an unknown input',
      body([
        { name: 'status', value: 'SOLD' },
        { name: 'colour', value: 'x' },
      ]),
      'colour',
      'not an input',
    ],
    [
      'a duplicate input',
      body([
        { name: 'status', value: 'SOLD' },
        { name: 'status', value: 'SOLD' },
      ]),
      'status',
      'more than once',
    ],
    [
      'a __proto__ input',
      body([{ name: '__proto__', value: { polluted: true } }]),
      '__proto__',
      'not an input',
    ],
    ['another tool name', body([{ name: 'status', value: 'SOLD' }], 'describe_pet'), 'name', 'must be'],
    ['input_parameters not an array', body({ status: 'SOLD' }), 'input_parameters', 'array'],
    ['an item that is not {name, value}', body(['status']), 'input_parameters[0]', 'name, value'],
    [
      'an extra top-level member',
      { ...body([{ name: 'status', value: 'SOLD' }]), extra: 1 },
      'extra',
      'not part',
    ],
    ['a body that is not an object', [1, 2], '(body)', 'JSON object'],
  ])('400 for %s', async (_label, payload, parameter, reason) => {
    const before = petstore.requests.length;
    const res = await invoke(gateway.url, path('find_pets_by_status'), payload);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('input.invalid');
    expect(res.body.problems).toEqual(
      expect.arrayContaining([{ parameter, reason: expect.stringContaining(reason) }]),
    );
    expect(petstore.requests.length).toBe(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reports every problem at once', async () => {
    const res = await invoke(gateway.url, path('find_pets_by_status'), {
      name: 'x',
      input_parameters: [{ name: 'limit', value: 0 }],
    });
    expect((res.body.problems as Array<{ parameter: string }>).map((p) => p.parameter).sort()).toEqual([
      'limit',
      'name',
      'status',
    ]);
  });

  it('treats null as "not given" for optional inputs (provider strict modes send null)', async () => {
    const res = await call('find_pets_by_status', { status: 'SOLD', limit: null });
    expect(res.status).toBe(200);
  });

  it('enforces string length in characters', async () => {
    const res = await call('describe_pet', { pet_number: 0 });
    expect(res.status).toBe(400);
    expect(res.body.problems).toEqual([{ parameter: 'pet_number', reason: 'must be at least 1' }]);
  });
});

describe('HTTP-level errors', () => {
  const url = () => `${gateway.url}${path('find_pets_by_status')}`;
  const valid = JSON.stringify({
    name: 'find_pets_by_status',
    input_parameters: [{ name: 'status', value: 'SOLD' }],
  });

  it('415 for a body that is not application/json', async () => {
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/json; charset=utf-16',
    ]) {
      const res = await fetch(url(), { method: 'POST', headers: { 'content-type': type }, body: valid });
      expect(res.status).toBe(415);
      expect(((await res.json()) as { code: string }).code).toBe('request.unsupported_media_type');
    }
    const utf8 = await fetch(url(), {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=UTF-8' },
      body: valid,
    });
    expect(utf8.status).toBe(200);
  });

  it('400 for malformed JSON, 413 for a body over 64 KiB (chunked too)', async () => {
    const bad = await fetch(url(), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name":',
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { code: string }).code).toBe('request.malformed');
    const big = await fetch(url(), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pad: 'x'.repeat(70_000) }),
    });
    expect(big.status).toBe(413);
    const chunks = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 20; i++) controller.enqueue(new TextEncoder().encode('x'.repeat(4096)));
        controller.close();
      },
    });
    const chunked = await fetch(url(), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: chunks,
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
  });

  it('405 with Allow for a wrong method, 404 for encoded or doubled suffixes', async () => {
    const get = await fetch(url());
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    const put = await fetch(`${gateway.url}/tools`, { method: 'PUT' });
    expect(put.status).toBe(405);
    for (const suffix of [':invoke:invoke', '%3Ainvoke', '%253Ainvoke', ':INVOKE', ':invoke/']) {
      const res = await fetch(`${gateway.url}/tools/${toolIdFor('find_pets_by_status')}${suffix}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: valid,
      });
      expect(res.status, suffix).toBe(404);
    }
  });
});

describe('backend failures become errors that say whether a retry can help', () => {
  it.each([
    ['fault_status', { code: 404 }, 422, 'tool.error', false],
    ['fault_status', { code: 400 }, 502, 'upstream.error', false],
    ['fault_status', { code: 401 }, 502, 'upstream.error', false],
    ['fault_status', { code: 500 }, 502, 'upstream.error', false],
    ['fault_status', { code: 503 }, 503, 'upstream.unavailable', true],
    ['fault_status', { code: 429 }, 503, 'upstream.rate_limited', true],
    ['fault_mode', { mode: 'HTML' }, 502, 'upstream.invalid_response', false],
    ['fault_mode', { mode: 'REDIRECT' }, 502, 'upstream.redirect', false],
    ['fault_mode', { mode: 'BIG' }, 502, 'upstream.too_large', false],
    ['fault_mode', { mode: 'GZIP_BOMB' }, 502, 'upstream.too_large', false],
    ['fault_mode', { mode: 'DEEP' }, 502, 'upstream.invalid_response', false],
    ['fault_mode', { mode: 'RESET_BEFORE' }, 503, 'upstream.unavailable', true],
    ['fault_mode', { mode: 'HANG' }, 504, 'upstream.timeout', true],
    ['fault_mode', { mode: 'DRIP' }, 504, 'upstream.timeout', true],
    ['fault_delay', { ms: 3000 }, 504, 'upstream.timeout', true],
  ])('%s %j → %i %s', async (tool, params, status, code, retryable) => {
    // A gateway of its own: deliberate failures must not open another case's breaker.
    const own = await startTestGateway('test/fixtures/sculpts-fault', { FAULT_URL: fault.origin });
    const started = performance.now();
    const res = await invoke(own.url, path(tool), {
      name: tool,
      input_parameters: Object.entries(params).map(([n, value]) => ({ name: n, value })),
    }).finally(() => own.close());
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ code, retryable, status });
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    // Bounded by the tool's own deadline (1-2 s), never by the backend.
    expect(performance.now() - started).toBeLessThan(2_600);
    const text = JSON.stringify(res.body);
    for (const leak of ['127.0.0.1', fault.origin, '    at ', 'Error:', 'static-value'])
      expect(text).not.toContain(leak);
  });

  it('passes good JSON, empty answers and big integers through', async () => {
    expect((await callFault('fault_mode', { mode: 'JSON' })).status).toBe(200);
    expect((await callFault('fault_mode', { mode: 'EMPTY_204' })).body).toEqual({ output_parameters: [] });
    const big = await callFault('fault_mode', { mode: 'BIGINT' });
    expect(JSON.stringify(big.body)).toContain('9007199254740993');
  });

  it('sends the static headers the backend file declares', async () => {
    const before = fault.requests.length;
    await callFault('fault_mode', { mode: 'JSON' });
    expect(fault.requests[before]!.headers['x-static']).toBe('static-value');
  });

  it('opens the circuit after 5 consecutive backend failures: the 6th call is answered without reaching it', async () => {
    const own = await startTestGateway('test/fixtures/sculpts-fault', { FAULT_URL: fault.origin });
    try {
      const fail = () =>
        invoke(own.url, path('fault_status'), {
          name: 'fault_status',
          input_parameters: [{ name: 'code', value: 500 }],
        });
      for (let i = 0; i < 5; i++) expect((await fail()).status).toBe(502);
      const before = fault.requests.length;
      const sixth = await fail();
      expect(sixth.status).toBe(503);
      expect(sixth.body).toMatchObject({ code: 'upstream.unavailable', retryable: true });
      expect(sixth.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(fault.requests.length).toBe(before);
    } finally {
      await own.close();
    }
  });

  it('503 when the backend is down', async () => {
    const down = await startTestGateway('test/fixtures/sculpts-fault', { FAULT_URL: 'http://127.0.0.1:9' });
    try {
      const res = await invoke(down.url, path('fault_mode'), {
        name: 'fault_mode',
        input_parameters: [{ name: 'mode', value: 'JSON' }],
      });
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ code: 'upstream.unavailable', retryable: true });
    } finally {
      await down.close();
    }
  });
});
