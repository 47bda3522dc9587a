import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ErrorCode, SculptorError } from '../../src/errors/sculptor-error.ts';
import {
  buildRequest,
  isJsonMediaType,
  parametersByKey,
  requiredParameters,
} from '../../src/openapi/build-request.ts';
import { findOperation } from '../../src/openapi/find-operation.ts';
import { loadOpenApi, type Operation, type OperationParameter } from '../../src/openapi/load-openapi.ts';
import { operation, param } from './operation-builders.ts';

const BASE = 'http://127.0.0.1:4010';

function failure(run: () => unknown): SculptorError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(SculptorError);
    return error as SculptorError;
  }
  throw new Error('did not throw');
}

function expectCode(code: ErrorCode, run: () => unknown): SculptorError {
  const error = failure(run);
  expect(error.code).toBe(code);
  return error;
}

/** The URL built for one value of one parameter. */
function urlFor(p: OperationParameter, value: unknown, path = `/things/{${p.name}}`): string {
  const template = p.in === 'path' ? path : '/things';
  return buildRequest(operation(template, [p]), BASE, { [p.name]: value }).url;
}

describe('path parameters', () => {
  it.each<[string, Partial<OperationParameter>, unknown, string]>([
    ['simple string', {}, 'abc', '/things/abc'],
    ['simple integer', {}, 33, '/things/33'],
    ['simple number', {}, -74.006, '/things/-74.006'],
    ['simple boolean', {}, false, '/things/false'],
    ['simple array', {}, ['a', 'b'], '/things/a,b'],
    ['simple object', {}, { r: 1, g: 2 }, '/things/r,1,g,2'],
    ['simple object exploded', { explode: true }, { r: 1, g: 2 }, '/things/r=1,g=2'],
    ['label primitive', { style: 'label' }, 'a', '/things/.a'],
    ['label array', { style: 'label' }, ['a', 'b'], '/things/.a,b'],
    ['label array exploded', { style: 'label', explode: true }, ['a', 'b'], '/things/.a.b'],
    ['matrix primitive', { style: 'matrix' }, 5, '/things/;id=5'],
    ['matrix array', { style: 'matrix' }, [3, 4], '/things/;id=3,4'],
    ['matrix array exploded', { style: 'matrix', explode: true }, [3, 4], '/things/;id=3;id=4'],
    ['matrix object exploded', { style: 'matrix', explode: true }, { r: 1 }, '/things/;r=1'],
    ['comma inside a value', {}, '40.7128,-74.006', '/things/40.7128%2C-74.006'],
    ['comma inside an array item', {}, ['a,b', 'c'], '/things/a%2Cb,c'],
    ['space and unicode', {}, 'São Paulo', '/things/S%C3%A3o%20Paulo'],
    ['encoded dots stay data', {}, '%2e%2e', '/things/%252e%252e'],
    ['at sign', {}, '@evil', '/things/%40evil'],
    ['three dots are a name', {}, '...', '/things/...'],
    ['pipeDelimited from Swagger 2', { style: 'pipeDelimited' }, ['a', 'b'], '/things/a%7Cb'],
    ['JSON content', { mediaType: 'application/json' }, { a: 1 }, '/things/%7B%22a%22%3A1%7D'],
  ])('%s', (_, extra, value, path) => {
    expect(urlFor(param('id', 'path', extra), value)).toBe(`${BASE}${path}`);
  });

  it.each([
    ['empty', ''],
    ['dot', '.'],
    ['dot-dot', '..'],
    ['slash', 'a/b'],
    ['traversal', '../admin'],
    ['backslash', '..\\admin'],
    ['question mark', 'a?x=1'],
    ['hash', 'a#b'],
    ['newline', 'a\nb'],
    ['NUL', 'a\u0000b'],
    ['DEL', 'a\u007fb'],
    ['C1 control', 'a\u0085b'],
    ['too long', 'x'.repeat(257)],
    ['lone surrogate', 'a\ud800b'],
    ['empty array', []],
    ['dot-dot in an array', ['a', '..']],
    ['nested array', [['a']]],
    ['null item', [null]],
    ['NaN', Number.NaN],
  ])('refuses %s with input.invalid naming the parameter', (_, value) => {
    const error = expectCode('input.invalid', () => urlFor(param('id', 'path'), value));
    expect(error.problems).toEqual([{ parameter: 'id', reason: expect.any(String) }]);
  });

  it('accepts 256 characters', () => {
    expect(urlFor(param('id', 'path'), 'x'.repeat(256))).toBe(`${BASE}/things/${'x'.repeat(256)}`);
  });

  it('fills several parameters of one segment, keeping the literal comma (NWS gridpoints)', () => {
    const op = operation('/gridpoints/{wfo}/{x},{y}/forecast', [
      param('wfo', 'path'),
      param('x', 'path'),
      param('y', 'path'),
    ]);
    const built = buildRequest(op, 'https://api.weather.gov', { wfo: 'OKX', x: 33, y: 35 });
    expect(built.url).toBe('https://api.weather.gov/gridpoints/OKX/33,35/forecast');
  });

  it('reports every bad value at once', () => {
    const op = operation('/{a}/{b}', [param('a', 'path'), param('b', 'path')]);
    const error = expectCode('input.invalid', () => buildRequest(op, BASE, { a: '..', b: 'x/y' }));
    expect(error.problems?.map((p) => p.parameter)).toEqual(['a', 'b']);
  });

  it.each([
    ['https://petstore.swagger.io/v2', 'https://petstore.swagger.io/v2/pet/1'],
    ['https://petstore.swagger.io/v2/', 'https://petstore.swagger.io/v2/pet/1'],
    ['http://127.0.0.1:4010', 'http://127.0.0.1:4010/pet/1'],
    ['http://127.0.0.1:4010/', 'http://127.0.0.1:4010/pet/1'],
  ])('appends the path to base %s', (base, url) => {
    const op = operation('/pet/{petId}', [param('petId', 'path')]);
    expect(buildRequest(op, base, { petId: 1 }).url).toBe(url);
  });

  it('percent-encodes template literals that are not valid in a path', () => {
    const op = operation('/a b/{id}/ü', [param('id', 'path')]);
    expect(buildRequest(op, BASE, { id: 1 }).url).toBe(`${BASE}/a%20b/1/%C3%BC`);
  });

  it.each(['/v1/../admin/{id}', '/v1/%2e%2E/admin/{id}', '/v1/./{id}', '/v1/{id}/.', '/v1/.%2e'])(
    'refuses a template the URL parser would rewrite, whatever the value (%s)',
    (path) => {
      const op = operation(path, [param('id', 'path')]);
      expectCode('compile.unsupported_operation', () => buildRequest(op, `${BASE}/v1`, { id: 1 }));
    },
  );

  it('keeps a template whose dots are not whole segments, and one that starts with //', () => {
    const dots = operation('/v1/.well-known/{id}.json/..x', [param('id', 'path')]);
    expect(buildRequest(dots, BASE, { id: 'a' }).url).toBe(`${BASE}/v1/.well-known/a.json/..x`);
    const slashes = operation('//v1/{id}', [param('id', 'path')]);
    expect(new URL(buildRequest(slashes, BASE, { id: 'a' }).url).pathname).toBe('//v1/a');
  });

  it('refuses templates with a query part or a placeholder without parameter', () => {
    const query = operation('/alerts?lat={lat}', [param('lat', 'path')]);
    expectCode('compile.unsupported_operation', () => buildRequest(query, BASE, { lat: 1 }));
    const orphan = operation('/things/{id}', []);
    expectCode('compile.unsupported_operation', () => buildRequest(orphan, BASE, {}));
  });
});

describe('query parameters', () => {
  it.each<[string, Partial<OperationParameter>, unknown, string]>([
    ['form string', {}, 'New York, NY', 'q=New+York%2C+NY'],
    ['form reserved characters', {}, "a&b=c#d+e/f?g!'()~*", 'q=a%26b%3Dc%23d%2Be%2Ff%3Fg%21%27%28%29%7E*'],
    ['form integer', {}, 5, 'q=5'],
    ['form float', {}, 1.5, 'q=1.5'],
    ['form large number in JSON form', {}, 1e21, 'q=1e%2B21'],
    ['form boolean', {}, true, 'q=true'],
    ['form array exploded', {}, ['a', 'b'], 'q=a&q=b'],
    ['form array', { explode: false }, ['a', 'b c'], 'q=a,b+c'],
    ['form array item with comma', { explode: false }, ['a,b', 'c'], 'q=a%2Cb,c'],
    ['form object exploded', {}, { r: 100, g: 200 }, 'r=100&g=200'],
    ['form object', { explode: false }, { r: 100, g: 200 }, 'q=r,100,g,200'],
    ['spaceDelimited', { style: 'spaceDelimited', explode: false }, ['a', 'b'], 'q=a%20b'],
    ['pipeDelimited', { style: 'pipeDelimited', explode: false }, ['a', 'b'], 'q=a%7Cb'],
    ['tabDelimited (Swagger 2 tsv)', { style: 'tabDelimited', explode: false }, ['a', 'b'], 'q=a%09b'],
    ['pipeDelimited exploded', { style: 'pipeDelimited', explode: true }, ['a', 'b'], 'q=a&q=b'],
    ['deepObject', { style: 'deepObject', explode: true }, { r: 1, 'g h': 'x' }, 'q%5Br%5D=1&q%5Bg+h%5D=x'],
    ['allowReserved', { allowReserved: true }, 'a/b:c,d;[e]@f', 'q=a/b:c,d;[e]@f'],
    ['allowReserved keeps structure', { allowReserved: true }, 'a&b=c#d+e f', 'q=a%26b%3Dc%23d%2Be+f'],
    ['JSON content', { mediaType: 'application/json' }, { a: [1] }, 'q=%7B%22a%22%3A%5B1%5D%7D'],
    ['empty string', {}, '', 'q='],
  ])('%s', (_, extra, value, query) => {
    expect(urlFor(param('q', 'query', extra), value)).toBe(`${BASE}/things?${query}`);
  });

  it('omits optional parameters that are undefined or null', () => {
    const op = operation('/things', [param('a', 'query'), param('b', 'query'), param('c', 'query')]);
    expect(buildRequest(op, BASE, { a: undefined, b: null, c: 1 }).url).toBe(`${BASE}/things?c=1`);
    expect(buildRequest(op, BASE, {}).url).toBe(`${BASE}/things`);
  });

  it.each([
    ['nested object', { a: { b: 1 } }],
    ['nested array', [[1]]],
    ['infinite number', Number.POSITIVE_INFINITY],
    ['function', () => 1],
  ])('refuses a %s', (_, value) => {
    expectCode('input.invalid', () => urlFor(param('q', 'query'), value));
  });

  it('refuses JSON content that is not JSON', () => {
    expectCode('input.invalid', () =>
      urlFor(param('q', 'query', { mediaType: 'application/json' }), { n: 1n }),
    );
  });

  it('refuses arrays for deepObject and styles that are not for queries', () => {
    expectCode('input.invalid', () => urlFor(param('q', 'query', { style: 'deepObject' }), ['a']));
    expectCode('input.invalid', () => urlFor(param('q', 'query', { style: 'matrix' }), 'a'));
  });
});

describe('header and cookie parameters', () => {
  const headersFor = (p: OperationParameter, value: unknown) =>
    buildRequest(operation('/things', [p]), BASE, { [p.name]: value }).headers;

  it.each<[string, Partial<OperationParameter>, unknown, string]>([
    ['string', {}, 'abc', 'abc'],
    ['number', {}, 1.5, '1.5'],
    ['array', {}, ['a', 'b'], 'a,b'],
    ['object', {}, { r: 1, g: 2 }, 'r,1,g,2'],
    ['object exploded', { explode: true }, { r: 1, g: 2 }, 'r=1,g=2'],
    ['JSON content', { mediaType: 'application/json' }, { a: 1 }, '{"a":1}'],
    ['latin-1', {}, 'café', 'café'],
  ])('sends a %s under the lower-cased declared name', (_, extra, value, sent) => {
    expect(headersFor(param('X-Thing', 'header', extra), value)['x-thing']).toBe(sent);
  });

  it.each([
    ['CR LF injection', 'a\r\nX-Injected: 1'],
    ['LF', 'a\nb'],
    ['NUL', 'a\u0000b'],
    ['over 1 KiB', 'x'.repeat(1025)],
    ['characters beyond latin-1', 'snow ☃'],
  ])('refuses %s', (_, value) => {
    const error = expectCode('input.invalid', () => headersFor(param('X-Thing', 'header'), value));
    expect(error.problems).toEqual([{ parameter: 'X-Thing', reason: expect.any(String) }]);
  });

  it('accepts exactly 1 KiB', () => {
    expect(headersFor(param('X-Thing', 'header'), 'x'.repeat(1024))['x-thing']).toHaveLength(1024);
  });

  it.each(['Host', 'content-length', 'Transfer-Encoding', 'Connection', 'Upgrade'])(
    'never lets a sculpt set %s',
    (name) => {
      expectCode('compile.forbidden_param', () => headersFor(param(name, 'header'), 'x'));
    },
  );

  it('takes header names from the document only', () => {
    const op = operation('/things', [param('X-Thing', 'header')]);
    expectCode('compile.unknown_param', () => buildRequest(op, BASE, { Host: 'evil.test' }));
    expectCode('compile.unknown_param', () => buildRequest(op, BASE, { 'x-thing': 'case matters' }));
  });

  it('refuses a header name that is not a token in the document', () => {
    expectCode('compile.unsupported_operation', () => headersFor(param('Bad Name', 'header'), 'x'));
  });

  it('joins cookies into one Cookie header with encoded values', () => {
    const op = operation('/things', [
      param('a', 'cookie'),
      param('c', 'cookie'),
      param('list', 'cookie', { explode: false }),
      param('many', 'cookie'),
    ]);
    const built = buildRequest(op, BASE, { a: 'b', c: 'd; e=f', list: [1, 2], many: ['x', 'y'] });
    expect(built.headers.cookie).toBe('a=b; c=d%3B%20e%3Df; list=1,2; many=x; many=y');
  });
});

describe('body, content-type and accept', () => {
  const withBody = (mediaType: string, required = false): Operation =>
    operation('/things', [], { method: 'POST', requestBody: { required, mediaType } });

  it('serializes the body as JSON with the operation media type', () => {
    const built = buildRequest(withBody('application/json'), BASE, {}, { name: 'x', n: [1] });
    expect(built).toEqual({
      method: 'POST',
      url: `${BASE}/things`,
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: '{"name":"x","n":[1]}',
    });
  });

  it.each([
    ['application/merge-patch+json', 'application/merge-patch+json'],
    ['application/json; charset=utf-8', 'application/json; charset=utf-8'],
    ['*/*', 'application/json'],
  ])('sends %s bodies as %s', (declared, sent) => {
    expect(buildRequest(withBody(declared), BASE, {}, {}).headers['content-type']).toBe(sent);
  });

  it('refuses bodies in a media type it cannot write, and XML whose root element has no name', () => {
    expectCode('compile.unsupported_operation', () =>
      buildRequest(withBody('application/octet-stream'), BASE, {}, {}),
    );
    expectCode('compile.unsupported_operation', () =>
      buildRequest(withBody('application/xml'), BASE, {}, {}),
    );
    expectCode('compile.unknown_param', () => buildRequest(operation('/things', []), BASE, {}, { a: 1 }));
  });

  it('requires a required body and refuses one that is not JSON', () => {
    expectCode('compile.missing_param', () => buildRequest(withBody('application/json', true), BASE, {}));
    expectCode('input.invalid', () => buildRequest(withBody('application/json'), BASE, {}, { n: 1n }));
  });

  it.each<[string, Operation['responses'], string | undefined]>([
    [
      'JSON types of 2xx responses only',
      {
        '200': { mediaTypes: ['application/xml', 'application/geo+json', 'application/ld+json'] },
        '202': { mediaTypes: ['application/geo+json'] },
        default: { mediaTypes: ['application/problem+json'] },
      },
      'application/geo+json, application/ld+json',
    ],
    [
      'every type when none is JSON',
      { '200': { mediaTypes: ['text/csv', 'text/plain'] } },
      'text/csv, text/plain',
    ],
    ['2XX ranges', { '2XX': { mediaTypes: ['application/json'] } }, 'application/json'],
    [
      'no accept without a 2xx body',
      { '204': { mediaTypes: [] }, default: { mediaTypes: ['a/b'] } },
      undefined,
    ],
  ])('accept: %s', (_, responses, accept) => {
    expect(buildRequest(operation('/things', [], { responses }), BASE, {}).headers.accept).toBe(accept);
  });

  it('lets a declared Accept or Content-Type parameter win', () => {
    const op = operation('/things', [param('Accept', 'header'), param('Content-Type', 'header')], {
      method: 'POST',
      requestBody: { required: false, mediaType: 'application/json' },
    });
    const built = buildRequest(
      op,
      BASE,
      { Accept: 'application/vnd.github.v3+json', 'Content-Type': 'application/x+json' },
      {},
    );
    expect(built.headers).toEqual({
      accept: 'application/vnd.github.v3+json',
      'content-type': 'application/x+json',
    });
  });
});

describe('parameter names', () => {
  const op = operation('/zones/{type}', [
    param('type', 'path'),
    param('type', 'query', { explode: false }),
    param('area', 'query', { required: true }),
    param('limit', 'query'),
  ]);

  it('addresses a name declared in two locations as <in>.<name>', () => {
    expect([...parametersByKey(op).keys()]).toEqual(['path.type', 'query.type', 'area', 'limit']);
    const built = buildRequest(op, BASE, {
      'path.type': 'forecast',
      'query.type': ['land', 'marine'],
      area: 'NY',
    });
    expect(built.url).toBe(`${BASE}/zones/forecast?type=land,marine&area=NY`);
    expectCode('compile.unknown_param', () => buildRequest(op, BASE, { type: 'forecast', area: 'NY' }));
  });

  it('lists required parameters, path ones always', () => {
    const loose = operation('/x/{id}', [param('id', 'path', { required: false }), param('q', 'query')]);
    expect(requiredParameters(op)).toEqual(['path.type', 'area']);
    expect(requiredParameters(loose)).toEqual(['id']);
  });

  it('refuses unknown names and names missing values', () => {
    const unknown = expectCode('compile.unknown_param', () => buildRequest(op, BASE, { nope: 1 }));
    expect(unknown.message).toContain('nope');
    const missing = expectCode('compile.missing_param', () =>
      buildRequest(op, BASE, { 'path.type': 'x', area: null }),
    );
    expect(missing.message).toContain('area');
  });

  it('does not read inherited properties as parameters', () => {
    const params = Object.create({ limit: 5 }) as Record<string, unknown>;
    Object.assign(params, { 'path.type': 'x', area: 'NY' });
    expect(buildRequest(op, BASE, params).url).toBe(`${BASE}/zones/x?area=NY`);
    const named = operation('/{toString}', [param('toString', 'path')]);
    expectCode('compile.missing_param', () => buildRequest(named, BASE, {}));
  });
});

describe('base URL', () => {
  it.each(['not a url', 'ftp://h/x', 'http://h/x?a=1', 'http://h/x#f', '/relative'])('refuses %s', (base) => {
    expectCode('internal', () => buildRequest(operation('/things', []), base, {}));
  });
});

describe('isJsonMediaType', () => {
  it.each([
    ['application/json', true],
    ['application/json; charset=utf-8', true],
    ['Application/JSON', true],
    ['application/geo+json', true],
    ['application/problem+json', true],
    ['application/ld+json;profile="x"', true],
    ['application/vnd.github.v3+json', true],
    ['text/json', false],
    ['application/jsonx', false],
    ['application/json-patch', false],
    ['application/xml', false],
    ['*/*', false],
    ['', false],
  ])('%s → %s', (type, json) => {
    expect(isJsonMediaType(type)).toBe(json);
  });
});

describe('the NWS document', async () => {
  const doc = await loadOpenApi(
    join(import.meta.dirname, '../fixtures/specs/nws/api.weather.gov.openapi.json'),
  );

  it('builds the point request', () => {
    const point = findOperation(doc, 'point');
    expect(point.path).toBe('/points/{point}');
    expect(requiredParameters(point)).toEqual(['point']);
    const built = buildRequest(point, 'https://api.weather.gov', { point: '40.7128,-74.006' });
    // The comma is data inside one segment, so it is encoded (RFC 6570 simple expansion).
    expect(built).toEqual({
      method: 'GET',
      url: 'https://api.weather.gov/points/40.7128%2C-74.006',
      headers: { accept: 'application/geo+json, application/ld+json' },
    });
  });

  it('builds the gridpoint forecast request', () => {
    const forecast = findOperation(doc, 'gridpoint_forecast');
    expect(forecast.path).toBe('/gridpoints/{wfo}/{x},{y}/forecast');
    expect(requiredParameters(forecast)).toEqual(['wfo', 'x', 'y']);
    const built = buildRequest(forecast, 'https://api.weather.gov', {
      wfo: 'OKX',
      x: 33,
      y: 35,
      units: 'us',
    });
    expect(built.url).toBe('https://api.weather.gov/gridpoints/OKX/33,35/forecast?units=us');
    expect(built.headers.accept).toContain('application/geo+json');
    expect(findOperation(doc, 'GET /gridpoints/{wfo}/{x},{y}/forecast')).toBe(forecast);
  });
});
