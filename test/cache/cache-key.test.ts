import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CACHE_KEY_PREFIX, type CacheKeyInput, cacheKey } from '../../src/cache/cache-key.ts';

const SECRET = 'server-secret-for-tests';

// Header names are HTTP tokens; values anything printable.
const headerName = fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,11}$/);
const headerValue = fc.string({ maxLength: 12 });
const queryName = fc.stringMatching(/^[a-z][a-z0-9_]{0,5}$/);
const queryValue = fc.stringMatching(/^[A-Za-z0-9%._~-]{0,6}$/);
const method = fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE');
const path = fc.stringMatching(/^(\/[a-z0-9]{1,6}){0,3}$/);
const credential = fc.string({ minLength: 8, maxLength: 24 });

/** A request described with distinct query names, so any reordering is equivalent. */
const request = fc.record({
  method,
  host: fc.constantFrom('api.example.test', 'geo.example.test'),
  path,
  query: fc.uniqueArray(fc.tuple(queryName, queryValue), { selector: ([name]) => name, maxLength: 5 }),
  body: fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
  headers: fc.uniqueArray(fc.tuple(headerName, headerValue), {
    selector: ([name]) => name.toLowerCase(),
    maxLength: 4,
  }),
  scope: fc.constantFrom('shared' as const, 'caller' as const),
  credentialId: credential,
});

type Request = typeof request extends fc.Arbitrary<infer R> ? R : never;

function toInput(r: Request, order: { query: number[]; headers: number[]; upper: boolean[] }): CacheKeyInput {
  const query = order.query.map((i) => r.query[i]!);
  const headers = order.headers.map((i) => r.headers[i]!);
  const search = query.length === 0 ? '' : `?${query.map(([k, v]) => `${k}=${v}`).join('&')}`;
  const input: CacheKeyInput = {
    method: r.method,
    url: `https://${r.host}${r.path}${search}`,
    varyHeaders: Object.fromEntries(
      headers.map(([name, value], i) => [order.upper[i] ? name.toUpperCase() : name.toLowerCase(), value]),
    ),
    scope: r.scope,
    credentialId: r.credentialId,
  };
  if (r.body !== undefined) input.body = r.body;
  return input;
}

const identity = (n: number) => Array.from({ length: n }, (_, i) => i);
const inOrder = (r: Request) =>
  toInput(r, { query: identity(r.query.length), headers: identity(r.headers.length), upper: [] });

/** The oracle: what the request means, independent of parameter and header order and name case. */
function semantic(r: Request): string {
  return JSON.stringify([
    r.method,
    r.host,
    r.path,
    [...r.query].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)),
    r.body ?? null,
    r.headers.map(([n, v]) => [n.toLowerCase(), v]).sort(([x], [y]) => (x! < y! ? -1 : x! > y! ? 1 : 0)),
    r.scope,
    r.scope === 'caller' ? r.credentialId : null,
  ]);
}

/** A request plus a random reordering of its query parameters and headers, and random header-name case. */
const requestWithShuffle = request.chain((r) =>
  fc.record({
    r: fc.constant(r),
    query: fc.shuffledSubarray(identity(r.query.length), { minLength: r.query.length }),
    headers: fc.shuffledSubarray(identity(r.headers.length), { minLength: r.headers.length }),
    upper: fc.array(fc.boolean(), { minLength: r.headers.length, maxLength: r.headers.length }),
  }),
);

describe('cacheKey', () => {
  it('has the versioned prefix and a sha256 hex digest', () => {
    const key = cacheKey({ method: 'GET', url: 'https://a.test/x', scope: 'shared' }, SECRET);
    expect(key).toMatch(/^sculptor:v1:step:[0-9a-f]{64}$/);
    expect(key.startsWith(CACHE_KEY_PREFIX)).toBe(true);
  });

  it('P3: equal requests get equal keys whatever the order of query parameters and headers', () => {
    fc.assert(
      fc.property(requestWithShuffle, ({ r, query, headers, upper }) => {
        expect(cacheKey(toInput(r, { query, headers, upper }), SECRET)).toBe(cacheKey(inOrder(r), SECRET));
      }),
    );
  });

  it('P3: keys are equal if and only if the requests are equivalent', () => {
    const fields = ['method', 'host', 'path', 'query', 'body', 'headers', 'scope', 'credentialId'] as const;
    // b is a with a random subset of its fields taken from another request:
    // mostly near misses (one or two fields differ), sometimes equal.
    const pair = fc
      .tuple(request, request, fc.subarray([...fields]))
      .map(
        ([a, other, taken]) => [a, { ...a, ...Object.fromEntries(taken.map((f) => [f, other[f]])) }] as const,
      );
    fc.assert(
      fc.property(pair, ([a, b]) => {
        const equivalent = semantic(a) === semantic(b);
        expect(cacheKey(inOrder(a), SECRET) === cacheKey(inOrder(b), SECRET)).toBe(equivalent);
      }),
      { numRuns: 300 },
    );
  });

  it('changes with each single field', () => {
    fc.assert(
      fc.property(request, fc.string({ minLength: 1, maxLength: 6 }), (r, extra) => {
        const base = { ...inOrder(r), scope: 'caller' as const };
        const key = cacheKey(base, SECRET);
        const variants: CacheKeyInput[] = [
          { ...base, method: base.method === 'GET' ? 'POST' : 'GET' },
          { ...base, url: `${base.url}${base.url.includes('?') ? '&' : '?'}z=${encodeURIComponent(extra)}` },
          { ...base, body: (base.body ?? '') + extra },
          { ...base, varyHeaders: { ...base.varyHeaders, 'x-extra-header': extra } },
          { ...base, credentialId: `${base.credentialId}${extra}` },
          { ...base, scope: 'shared' },
        ];
        for (const variant of variants) expect(cacheKey(variant, SECRET)).not.toBe(key);
      }),
    );
  });

  it('never contains the raw credential, and caller keys depend on the secret', () => {
    fc.assert(
      fc.property(request, (r) => {
        const input = { ...inOrder(r), scope: 'caller' as const };
        const key = cacheKey(input, SECRET);
        expect(key.includes(input.credentialId!)).toBe(false);
        expect(cacheKey(input, 'another-secret')).not.toBe(key);
      }),
    );
  });

  it('caller scope: different credentials give different keys', () => {
    fc.assert(
      fc.property(request, credential, credential, (r, c1, c2) => {
        fc.pre(c1 !== c2);
        const input = { ...inOrder(r), scope: 'caller' as const };
        expect(cacheKey({ ...input, credentialId: c1 }, SECRET)).not.toBe(
          cacheKey({ ...input, credentialId: c2 }, SECRET),
        );
      }),
    );
  });

  it('shared scope ignores credentials', () => {
    fc.assert(
      fc.property(request, credential, (r, other) => {
        const input = { ...inOrder(r), scope: 'shared' as const };
        const { credentialId: _, ...withoutCredential } = input;
        expect(cacheKey({ ...input, credentialId: other }, SECRET)).toBe(cacheKey(input, SECRET));
        expect(cacheKey(withoutCredential, SECRET)).toBe(cacheKey(input, SECRET));
      }),
    );
  });

  it('normalizes what fetch puts on the wire the same way, and nothing else', () => {
    const key = (url: string, method = 'GET') => cacheKey({ method, url, scope: 'shared' }, SECRET);
    // Equivalent on the wire: same key.
    expect(key('HTTPS://API.Example.TEST:443/a/./b/../c?x=1#frag')).toBe(
      key('https://api.example.test/a/c?x=1'),
    );
    expect(key('https://a.test/p?b=2&a=1')).toBe(key('https://a.test/p?a=1&b=2'));
    expect(key('https://a.test/p', 'get')).toBe(key('https://a.test/p', 'GET'));
    // Possibly different to a server: different keys.
    expect(key('https://a.test/p?id=2&id=1')).not.toBe(key('https://a.test/p?id=1&id=2'));
    expect(key('https://a.test/p?q=%zz')).not.toBe(key('https://a.test/p?q=%25zz'));
    expect(key('https://a.test/p?q=a+b')).not.toBe(key('https://a.test/p?q=a%20b'));
    expect(key('https://a.test/p?')).not.toBe(key('https://a.test/p'));
    expect(key('https://a.test/P')).not.toBe(key('https://a.test/p'));
    expect(key('https://a.test:8443/p')).not.toBe(key('https://a.test/p'));
    expect(key('relative/path')).not.toBe(key('relative/Path'));
    const body = (b: string | undefined) =>
      cacheKey(
        { method: 'POST', url: 'https://a.test/', scope: 'shared', ...(b === undefined ? {} : { body: b }) },
        SECRET,
      );
    expect(body(undefined)).not.toBe(body(''));
  });

  it('refuses to build a caller key without credentials, or any key without a secret', () => {
    expect(() => cacheKey({ method: 'GET', url: 'https://a.test/', scope: 'caller' }, SECRET)).toThrow(
      TypeError,
    );
    expect(() =>
      cacheKey({ method: 'GET', url: 'https://a.test/', scope: 'caller', credentialId: '' }, SECRET),
    ).toThrow(TypeError);
    expect(() => cacheKey({ method: 'GET', url: 'https://a.test/', scope: 'shared' }, '')).toThrow(TypeError);
  });
});
