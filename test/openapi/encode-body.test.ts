import { describe, expect, it } from 'vitest';
import { buildRequest } from '../../src/openapi/build-request.ts';
import type { Operation } from '../../src/openapi/load-openapi.ts';
import { parseXml } from '../../src/xml/parse-xml.ts';
import { xmlToJson } from '../../src/xml/xml-to-json.ts';
import type { XmlSchema } from '../../src/xml/xml-schema.ts';

const BASE = 'https://api.example.test';

function post(mediaType: string, schema?: XmlSchema): Operation {
  return {
    method: 'POST',
    path: '/pets',
    parameters: [],
    requestBody: { required: true, mediaType, ...(schema ? { schema } : {}) },
    responses: {},
    security: [],
    deprecated: false,
  };
}

/** OpenAPI's own XML example (the `xml` object section), with every kind of mapping in it. */
const PET: XmlSchema = {
  type: 'object',
  xml: { name: 'animal', namespace: 'urn:zoo', prefix: 'zoo' },
  properties: {
    id: { type: 'integer', xml: { attribute: true } },
    name: { type: 'string', xml: { name: 'petName', namespace: 'urn:zoo' } },
    tags: { type: 'array', xml: { wrapped: true }, items: { type: 'string', xml: { name: 'tag' } } },
    photoUrls: { type: 'array', items: { type: 'string', xml: { name: 'photo' } } },
    vaccinated: { type: 'boolean' },
  },
};

describe('XML request bodies by the schema', () => {
  it('writes names, namespaces, prefixes, attributes and wrapped arrays as the xml objects say', () => {
    const value = {
      id: 7,
      name: 'Rex <& co>',
      tags: ['good', 'boy'],
      photoUrls: ['a.png', 'b.png'],
      vaccinated: true,
    };
    const built = buildRequest(post('application/xml', PET), BASE, {}, value);
    expect(built.headers['content-type']).toBe('application/xml');
    expect(built.body).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><zoo:animal xmlns:zoo="urn:zoo" id="7"><zoo:petName>Rex &lt;&amp; co&gt;</zoo:petName>' +
        '<tags><tag>good</tag><tag>boy</tag></tags><photo>a.png</photo><photo>b.png</photo><vaccinated>true</vaccinated></zoo:animal>',
    );
    // …and the same schema reads it back to the same JSON.
    const root = parseXml(built.body!, { code: 'upstream.invalid_response', source: 'test' });
    expect(xmlToJson(root, PET)).toEqual(value);
  });

  it('names the root element after the schema component when it has no xml.name', () => {
    const schema = {
      type: 'object',
      properties: { name: { type: 'string' } },
      toJSON: () => ({ $ref: '#/components/schemas/Order' }),
    };
    expect(buildRequest(post('text/xml', schema), BASE, {}, { name: 'x' }).body).toContain(
      '<Order><name>x</name></Order>',
    );
  });

  it('refuses values that do not fit the schema, every one at once, as input.invalid', () => {
    let error: unknown;
    try {
      buildRequest(
        post('application/xml', PET),
        BASE,
        {},
        { id: 'seven', vaccinated: 'maybe', name: { a: 1 } },
      );
    } catch (e) {
      error = e;
    }
    expect((error as { code: string }).code).toBe('input.invalid');
    expect((error as { problems: unknown[] }).problems).toEqual([
      { parameter: 'body.id', reason: 'must be an integer' },
      { parameter: 'body.name', reason: 'must be a string, not an object' },
      { parameter: 'body.vaccinated', reason: 'must be true or false' },
    ]);
  });

  it('refuses text XML cannot carry (a control character), rather than sending it mangled', () => {
    expect(() => buildRequest(post('application/xml', PET), BASE, {}, { name: 'a\u0001b' })).toThrow(
      /cannot carry/,
    );
  });
});

describe('form bodies', () => {
  it('writes application/x-www-form-urlencoded fields, arrays repeated, objects spread', () => {
    const built = buildRequest(
      post('application/x-www-form-urlencoded'),
      BASE,
      {},
      {
        name: 'Rex & co',
        tags: ['a', 'b'],
        owner: { city: 'Paris' },
        skipped: null,
      },
    );
    expect(built.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(built.body).toBe('name=Rex+%26+co&tags=a&tags=b&city=Paris');
  });

  it('writes multipart/form-data parts, objects as JSON, with a boundary derived from the content', () => {
    const value = { name: 'Rex', meta: { age: 3 } };
    const a = buildRequest(post('multipart/form-data'), BASE, {}, value);
    const b = buildRequest(post('multipart/form-data'), BASE, {}, value);
    expect(a).toEqual(b); // the same bytes every time: cache keys stay stable
    const boundary = /boundary=(\S+)$/.exec(a.headers['content-type']!)![1]!;
    expect(a.body).toBe(
      `--${boundary}\r\ncontent-disposition: form-data; name="name"\r\ncontent-type: text/plain; charset=utf-8\r\n\r\nRex\r\n` +
        `--${boundary}\r\ncontent-disposition: form-data; name="meta"\r\ncontent-type: application/json\r\n\r\n{"age":3}\r\n` +
        `--${boundary}--\r\n`,
    );
  });

  it('refuses a form body that is not an object', () => {
    expect(() => buildRequest(post('multipart/form-data'), BASE, {}, 'text')).toThrow(/object of fields/);
    expect(() => buildRequest(post('application/x-www-form-urlencoded'), BASE, {}, [1])).toThrow(
      /object of fields/,
    );
  });
});
