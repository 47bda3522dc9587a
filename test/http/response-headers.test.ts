import { describe, expect, it } from 'vitest';
import { filterResponseHeaders } from '../../src/http/response-headers.ts';

describe('filterResponseHeaders', () => {
  it('removes hop-by-hop headers, those named in Connection, and cookies', () => {
    expect(
      filterResponseHeaders({
        connection: 'keep-alive, X-Internal,  x-other ',
        'keep-alive': 'timeout=5',
        'x-internal': '10.0.0.7',
        'x-other': '1',
        te: 'trailers',
        trailer: 'x-sum',
        'transfer-encoding': 'chunked',
        upgrade: 'h2c',
        'proxy-authenticate': 'Basic',
        'proxy-connection': 'keep-alive',
        'set-cookie': ['a=1', 'b=2'],
        'content-type': 'application/json',
        'x-request-id': 'r-1',
        vary: ['accept', 'origin'],
        missing: undefined,
      }),
    ).toEqual({ 'content-type': 'application/json', 'x-request-id': 'r-1', vary: 'accept, origin' });
  });

  it('lower-cases names and merges duplicates that differ only in case', () => {
    expect(filterResponseHeaders({ 'X-A': '1', 'x-a': '2', Connection: 'X-B', 'x-b': 'gone' })).toEqual({
      'x-a': '1, 2',
    });
  });

  it('is safe with header names that are Object.prototype members', () => {
    const out = filterResponseHeaders({ constructor: 'c', toString: 't', __proto__: 'p' } as Record<
      string,
      string
    >);
    expect(out['constructor']).toBe('c');
    expect(Object.keys(out).sort()).toEqual(['constructor', 'tostring']);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });
});
