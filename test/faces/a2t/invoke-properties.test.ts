import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Catalog } from '../../../src/catalog/catalog.ts';
import { compileSculpts } from '../../../src/compile/compile-sculpts.ts';
import type { CompiledTool } from '../../../src/compile/compile-tool.ts';
import { toolIdFor } from '../../../src/compile/tool-signature.ts';
import { validateArguments } from '../../../src/engine/validate-arguments.ts';
import { readInvocation } from '../../../src/faces/a2t/read-invocation.ts';
import type { InputParameter } from '../../../src/compile/tool-signature.ts';
import { type PetstoreBackend, startPetstoreBackend } from '../../support/petstore-backend.ts';
import { startTestGateway } from '../../support/start-test-gateway.ts';

let backend: PetstoreBackend;
let gateway: Awaited<ReturnType<typeof startTestGateway>>;
const env = () => ({ PETSTORE_BASE_URL: `${backend.url}/v2`, PETSTORE3_BASE_URL: `${backend.url}/api/v3` });

beforeAll(async () => {
  backend = await startPetstoreBackend();
  gateway = await startTestGateway('sculpts', env());
});
afterAll(async () => {
  await gateway?.close();
  await backend?.close();
});

/** Property P1: whatever the body, the answer is a defined status, never 500, and the gateway survives. */
describe('any invocation body (RELIABILITY P1, P9)', () => {
  it('answers 200, 400 or 413 — never 5xx — and calls no backend when the body is invalid', async () => {
    const url = `${gateway.url}/tools/${toolIdFor('find_pets_by_status')}:invoke`;
    const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort();
    const body = fc.oneof(
      fc.anything(),
      fc.json().map((text) => JSON.parse(text) as unknown),
      fc.record({
        name: fc.oneof(fc.constant('find_pets_by_status'), fc.string()),
        input_parameters: fc.array(
          fc.record({
            name: fc.oneof(
              fc.constantFrom('status', 'limit', '__proto__', 'constructor', 'toString'),
              fc.string(),
            ),
            value: fc.oneof(fc.constantFrom('AVAILABLE', 'SOLD', 1, 50, 51, null), fc.anything()),
          }),
          { maxLength: 4 },
        ),
      }),
    );
    await fc.assert(
      fc.asyncProperty(body, async (payload) => {
        let text: string;
        try {
          text = JSON.stringify(payload) ?? 'null';
        } catch {
          return; // not representable as JSON (BigInt…): nothing an HTTP client could send
        }
        const before = backend.requests.length;
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: text,
        });
        const answer = (await res.json()) as { code?: string };
        expect([200, 400, 413]).toContain(res.status);
        if (res.status !== 200) {
          expect(answer.code).toMatch(/^(input\.invalid|request\.malformed|request\.too_large)$/);
          expect(backend.requests.length).toBe(before);
        }
      }),
      { numRuns: 300 },
    );
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeKeys);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await fetch(`${gateway.url}/livez`)).status).toBe(200);
  });
});

/** Property P2: validation accepts a value iff it is in the declared type's domain. */
describe('validation is total (RELIABILITY P2)', () => {
  let tools: CompiledTool[];
  beforeAll(async () => {
    tools = await compileSculpts('sculpts', env());
  });

  const inDomain = (p: InputParameter, v: unknown): boolean => {
    switch (p.type) {
      case 'string':
        return typeof v === 'string' && [...v].length <= (p.maxLength ?? 1024);
      case 'int':
        return (
          typeof v === 'number' &&
          Number.isSafeInteger(v) &&
          v >= (p.min ?? Number.MIN_SAFE_INTEGER) &&
          v <= (p.max ?? 65_535)
        );
      case 'boolean':
        return typeof v === 'boolean';
      case 'enum':
        return typeof v === 'string' && (p['allowed-values'] ?? []).some((a) => a.name === v);
    }
  };

  it('for every declared input of every sample tool', () => {
    const params = tools.flatMap((tool) => tool.signature.input_parameters.map((p) => ({ tool, p })));
    expect(params.length).toBeGreaterThan(2);
    const value = fc.oneof(
      fc.anything(),
      fc.integer({ min: -100, max: 3_000_000_000 }),
      fc.double(),
      fc.string({ maxLength: 1100 }),
      fc.constantFrom('AVAILABLE', 'PENDING', 'SOLD', 'available', '', true, false),
    );
    fc.assert(
      fc.property(fc.constantFrom(...params), value, ({ tool, p }, v) => {
        if (v === undefined || v === null) return; // "not given": covered by the required/optional cases
        const others = tool.signature.input_parameters
          .filter((q) => q.name !== p.name && q.required)
          .map((q) => ({ name: q.name, value: validValue(q) }));
        const body = { name: tool.signature.name, input_parameters: [...others, { name: p.name, value: v }] };
        let accepted = true;
        try {
          validateArguments(tool, readInvocation(tool, body));
        } catch {
          accepted = false;
        }
        expect(accepted).toBe(inDomain(p, v));
      }),
      { numRuns: 2_000 },
    );
  });

  it('catalog and face agree on which tools exist', () => {
    expect(new Catalog(tools).size).toBe(gateway.catalog().size);
  });
});

function validValue(p: InputParameter): unknown {
  if (p.type === 'enum') return p['allowed-values']![0]!.name;
  if (p.type === 'int') return p.min ?? 0;
  if (p.type === 'boolean') return true;
  return 'x';
}
