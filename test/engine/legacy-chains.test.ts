import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/cache/memory-store.ts';
import { StepCache } from '../../src/cache/step-cache.ts';
import { compileSculpts } from '../../src/compile/compile-sculpts.ts';
import type { CompiledTool } from '../../src/compile/compile-tool.ts';
import { createEngine, type Engine } from '../../src/engine/invoke-tool.ts';
import type { StepDebugHook } from '../../src/engine/run-step.ts';
import type { SculptorError } from '../../src/errors/sculptor-error.ts';
import { type BackendClient, createBackendClient } from '../../src/http/backend-client.ts';
import { type LegacyBackend, PASSWORD, startLegacyBackend } from './legacy-backend.ts';

/**
 * SOAP and XML backends through the engine, against a real loopback server (legacy-backend.ts):
 * the envelope and headers each SOAP version needs, the answer unwrapped, faults mapped, the
 * WS-Security token attached, XML answers and bodies of an OpenAPI operation, and XML bombs refused.
 */
const SCULPTS = 'test/engine/fixtures/legacy';

let legacy: LegacyBackend;
let client: BackendClient;
let tools: CompiledTool[];

beforeAll(async () => {
  legacy = await startLegacyBackend();
  client = createBackendClient();
  tools = await compileSculpts(SCULPTS, { LEGACY_URL: legacy.url, QUOTES_PASSWORD: PASSWORD });
});
afterAll(async () => {
  await client?.close();
  await legacy?.close();
});

const tool = (name: string, from = tools) => from.find((t) => t.signature.name === name)!;

function engine(options: { cache?: StepCache; debug?: StepDebugHook } = {}): Engine {
  return createEngine({
    sender: client,
    cacheSecret: 'legacy-test-secret-0123456789',
    allowPrivateEgress: true,
    ...options,
  });
}

async function outputs(
  name: string,
  inputs: Record<string, unknown> = {},
  e = engine(),
): Promise<Record<string, unknown>> {
  const result = await e.invoke(tool(name), inputs);
  return Object.fromEntries(result.outputs.map((p) => [p.name, p.value]));
}

async function failure(
  name: string,
  inputs: Record<string, unknown> = {},
  from = tools,
): Promise<SculptorError> {
  try {
    await engine().invoke(tool(name, from), inputs);
  } catch (error) {
    return error as SculptorError;
  }
  throw new Error(`${name} should have failed`);
}

describe('a SOAP 1.1 document/literal operation', () => {
  it('posts the envelope with its SOAPAction and reads the answer by the schema', async () => {
    const since = legacy.requests.length;
    expect(await outputs('stock_quote', { symbol: 'ACME' })).toEqual({
      price: '12.5',
      volume: 1500000,
      open: true,
      tags: ['tech'], // maxOccurs="unbounded": an array, even of one
      symbol: 'ACME', // an attribute
    });
    const [sent] = legacy.requests.slice(since);
    expect(sent!.method).toBe('POST');
    expect(sent!.path).toBe('/soap');
    expect(sent!.headers['content-type']).toBe('text/xml; charset=utf-8');
    expect(sent!.headers.soapaction).toBe('"urn:quotes#GetQuote"');
    expect(sent!.body).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:ns1="urn:quotes">' +
        '<soap:Header/><soap:Body><ns1:GetQuote><ns1:symbol>ACME</ns1:symbol><ns1:currency>USD</ns1:currency></ns1:GetQuote></soap:Body></soap:Envelope>',
    );
  });

  it('escapes a value that looks like XML: it stays text', async () => {
    const since = legacy.requests.length;
    await outputs('stock_quote', { symbol: '</a><x>&' });
    expect(legacy.requests[since]!.body).toContain('<ns1:symbol>&lt;/a&gt;&lt;x&gt;&amp;</ns1:symbol>');
  });

  it('a Client fault is the caller’s error (input.invalid), its string kept for the designer only', async () => {
    const error = await failure('stock_quote', { symbol: 'BAD' });
    expect(error.code).toBe('input.invalid');
    expect(error.message).not.toContain('unknown symbol');
    expect(error.hint).toBe('s:Client: unknown symbol BAD');
  });

  it('a Server fault is upstream.error, and a credential the fault string quotes is masked in the hint', async () => {
    const error = await failure('stock_quote_signed', { symbol: 'DOWN' });
    expect(error.code).toBe('upstream.error');
    expect(error.hint).toBe('s:Server: database login failed for alice/[REDACTED]');
    expect(JSON.stringify({ message: error.message, hint: error.hint })).not.toContain(PASSWORD);
  });

  it('a fault the sculpt maps (on: fault) is its tool error', async () => {
    const error = await failure('stock_quote_mapped', { symbol: 'BAD' });
    expect(error.code).toBe('tool.error');
    expect(error.message).toBe('There is no stock BAD. Ask the user for the ticker symbol.');
  });

  it.each([
    ['LAUGHS', 'a DTD (billion laughs)'],
    ['DEEP', '10,000 nested elements'],
    ['EMPTY', 'no envelope at all'],
  ])('refuses an answer with %s (%s) as upstream.invalid_response', async (symbol) => {
    const error = await failure('stock_quote', { symbol });
    expect(error.code).toBe('upstream.invalid_response');
  });
});

describe('a SOAP 1.2 port of the same service', () => {
  it('sends application/soap+xml with the action parameter and no SOAPAction header', async () => {
    const since = legacy.requests.length;
    expect(await outputs('stock_quote_soap12', { symbol: 'ACME' })).toMatchObject({
      price: '12.5',
      symbol: 'ACME',
    });
    const [sent] = legacy.requests.slice(since);
    expect(sent!.headers['content-type']).toBe(
      'application/soap+xml; charset=utf-8; action="urn:quotes#GetQuote"',
    );
    expect(sent!.headers.soapaction).toBeUndefined();
    expect(sent!.body).toContain('xmlns:soap="http://www.w3.org/2003/05/soap-envelope"');
  });

  it('a Sender fault (HTTP 400) is the caller’s error', async () => {
    const error = await failure('stock_quote_soap12', { symbol: 'BAD' });
    expect(error.code).toBe('input.invalid');
    expect(error.hint).toBe('s:Sender: unknown symbol BAD');
  });
});

describe('an rpc/literal operation', () => {
  it('wraps the parts in the operation element of the binding namespace, and unwraps the answer', async () => {
    const since = legacy.requests.length;
    expect(await outputs('add_numbers', { a: 2, b: 40 })).toEqual({ sum: 42 });
    const { body } = legacy.requests[since]!;
    expect(body).toContain('xmlns:ns1="urn:quotes:rpc"');
    expect(body).toContain('<soap:Body><ns1:Add><a>2</a><b>40</b></ns1:Add></soap:Body>');
  });
});

describe('a value that does not fit the message, in a chain', () => {
  it('is the caller’s (input.invalid) when the caller sent it', async () => {
    expect(await outputs('sum_with_volume', { symbol: 'ACME', amount: '7' })).toEqual({ sum: 1500007 });
    expect((await failure('sum_with_volume', { symbol: 'ACME', amount: 'seven' })).code).toBe(
      'input.invalid',
    );
  });

  it('is the backend’s (upstream.invalid_response) when an earlier step answered it', async () => {
    // price is 12.5: not an xs:int.
    expect((await failure('sum_with_price', { symbol: 'ACME', amount: '7' })).code).toBe(
      'upstream.invalid_response',
    );
  });
});

describe('WS-Security UsernameToken', () => {
  it('PasswordText sends the password in the header', async () => {
    expect(await outputs('whoami_text')).toEqual({ user: 'alice' });
  });

  it('PasswordDigest proves the password without sending it, with a fresh nonce on every call', async () => {
    const since = legacy.requests.length;
    expect(await outputs('whoami_digest')).toEqual({ user: 'alice (digest)' });
    expect(await outputs('whoami_digest')).toEqual({ user: 'alice (digest)' });
    const [first, second] = legacy.requests.slice(since);
    for (const sent of [first!, second!]) expect(sent.body).not.toContain(PASSWORD);
    const nonce = (body: string) => /<wsse:Nonce[^>]*>([^<]+)</.exec(body)![1];
    expect(nonce(first!.body)).not.toBe(nonce(second!.body));
  });

  it('the debug view sees the envelope before the token is attached', async () => {
    const seen: string[] = [];
    const debug: StepDebugHook = { request: (_id, request) => seen.push(request.body ?? '') };
    await outputs('whoami_text', {}, engine({ debug }));
    expect(seen).toHaveLength(1);
    expect(seen[0]).toContain('<soap:Header/>');
    expect(seen[0]).not.toContain(PASSWORD);
  });

  it('an unset password variable answers upstream.credentials_missing before any call', async () => {
    const without = await compileSculpts(SCULPTS, { LEGACY_URL: legacy.url });
    const since = legacy.requests.length;
    const error = await failure('whoami_digest', {}, without);
    expect(error.code).toBe('upstream.credentials_missing');
    expect(legacy.requests.length).toBe(since);
  });
});

describe('an OpenAPI operation that speaks XML', () => {
  it('reads an application/xml answer by its schema (attribute, namespaces, wrapped array, integer)', async () => {
    const decoded: unknown[] = [];
    const e = engine({ debug: { decoded: (_id, value) => decoded.push(value) } });
    expect(await outputs('book_title', { number: 'b1' }, e)).toEqual({
      title: 'Dune',
      year: 1965,
      authors: ['Frank Herbert'],
    });
    expect(decoded).toEqual([{ id: 'b1', title: 'Dune', year: 1965, authors: ['Frank Herbert'] }]);
  });

  it('maps a declared status as for JSON', async () => {
    expect((await failure('book_title', { number: 'missing' })).code).toBe('tool.error');
  });

  it('writes the request body as XML by the schema, and reads the 201 answer', async () => {
    const since = legacy.requests.length;
    expect(await outputs('add_book', { title: 'Emma & co', year: 1815 })).toEqual({ stored: 'new' });
    const [sent] = legacy.requests.slice(since);
    expect(sent!.headers['content-type']).toBe('application/xml');
    expect(sent!.body).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><cat:book xmlns:cat="urn:catalog" id="new"><cat:title>Emma &amp; co</cat:title>' +
        '<cat:year>1815</cat:year><cat:authors><cat:author>Anon</cat:author><cat:author>Ymous</cat:author></cat:authors></cat:book>',
    );
  });
});

describe('caching a SOAP step', () => {
  it('keys entries by the envelope: the same call is a hit, another symbol a miss', async () => {
    const cached = tools.map((t) =>
      t.signature.name === 'stock_quote'
        ? {
            ...t,
            steps: t.steps.map((s) => ({
              ...s,
              idempotent: true,
              cache: { ttlMs: 60_000, scope: 'shared' as const },
            })),
          }
        : t,
    );
    const e = engine({
      cache: new StepCache(createMemoryStore(), { secret: 'legacy-test-secret-0123456789' }),
    });
    const since = legacy.requests.length;
    for (const symbol of ['ACME', 'ACME', 'INIT']) await e.invoke(tool('stock_quote', cached), { symbol });
    expect(legacy.requests.length - since).toBe(2);
  });
});
