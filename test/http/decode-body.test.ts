import { describe, expect, it } from 'vitest';
import { bodyKind, decodeBody, mediaType } from '../../src/http/decode-body.ts';
import { expectCode } from './expect-code.ts';

const LIMITS = { maxDepth: 64, maxArrayLength: 10_000 };

describe('media types', () => {
  it.each([
    ['application/json', 'json'],
    ['Application/JSON; charset=UTF-8', 'json'],
    ['application/problem+json', 'json'],
    ['application/geo+json;charset=utf-8', 'json'],
    ['application/vnd.api+json', 'json'],
    ['text/plain', 'text'],
    ['text/html; charset=iso-8859-1', 'text'],
    ['application/octet-stream', 'none'],
    ['application/xml', 'xml'],
    ['text/xml; charset=utf-8', 'xml'],
    ['application/soap+xml; action="urn:x"', 'xml'],
    ['application/xml-dtd', 'none'],
    ['application/jsonp', 'none'],
    ['json', 'none'],
    ['+json', 'none'],
    ['', 'none'],
  ])('%s → %s', (contentType, kind) => {
    expect(bodyKind(mediaType(contentType))).toBe(kind);
  });

  it('mediaType drops parameters and lower-cases', () => {
    expect(mediaType(' Application/Geo+JSON ; charset=utf-8')).toBe('application/geo+json');
    expect(mediaType(undefined)).toBe('');
  });
});

describe('decodeBody', () => {
  it('parses JSON whatever the declared charset, and strips a BOM', () => {
    expect(
      decodeBody(Buffer.from('\uFEFF{"a":"é"}'), 'application/json; charset=iso-8859-1', LIMITS),
    ).toEqual({ a: 'é' });
  });

  it('a body that is only a BOM is empty', () => {
    expect(decodeBody(Buffer.from('\uFEFF'), 'application/json', LIMITS)).toBeUndefined();
  });

  it('refuses JSON that is not UTF-8', async () => {
    await expectCode(
      (async () => decodeBody(Buffer.from([0x7b, 0xff, 0x7d]), 'application/json', LIMITS))(),
      'upstream.invalid_response',
    );
  });

  it('decodes text with its charset, falling back to UTF-8 for unknown labels', () => {
    expect(
      decodeBody(Buffer.from([0x63, 0x61, 0x66, 0xe9]), 'text/plain; charset="ISO-8859-1"', LIMITS),
    ).toBe('café');
    expect(decodeBody(Buffer.from('café'), 'text/plain; charset=x-unknown', LIMITS)).toBe('café');
  });

  it('keeps XML as its text, for the operation to read by its schema', () => {
    expect(decodeBody(Buffer.from('<x>é</x>'), 'application/xml', LIMITS)).toBe('<x>é</x>');
    expect(
      decodeBody(
        Buffer.from([0x3c, 0x78, 0x3e, 0xe9, 0x3c, 0x2f, 0x78, 0x3e]),
        'text/xml; charset=iso-8859-1',
        LIMITS,
      ),
    ).toBe('<x>é</x>');
  });

  it('keeps nothing for other media types and for empty bodies', () => {
    expect(decodeBody(Buffer.from('<x/>'), 'application/octet-stream', LIMITS)).toBeUndefined();
    expect(decodeBody(undefined, 'application/json', LIMITS)).toBeUndefined();
    expect(decodeBody(Buffer.alloc(0), 'text/plain', LIMITS)).toBeUndefined();
  });
});
