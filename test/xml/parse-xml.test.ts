import { describe, expect, it } from 'vitest';
import type { SculptorError } from '../../src/errors/sculptor-error.ts';
import { attributeOf, childElements, parseXml, resolveQName, textOf } from '../../src/xml/parse-xml.ts';
import type { XmlLimits } from '../../src/xml/xml-limits.ts';

const parse = (text: string, limits?: Partial<XmlLimits>) =>
  parseXml(text, { code: 'upstream.invalid_response', source: 'The answer', ...(limits ? { limits } : {}) });

function refusal(text: string, limits?: Partial<XmlLimits>): SculptorError {
  try {
    parse(text, limits);
  } catch (error) {
    return error as SculptorError;
  }
  throw new Error('expected a refusal');
}

const LAUGHS =
  '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">' +
  Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i || ''};`.repeat(10)}">`).join('') +
  ']><lolz>&lol9;</lolz>';

describe('XML bombs and DTDs are refused before anything is expanded', () => {
  it.each([
    ['billion laughs (nested internal entities)', LAUGHS],
    [
      'an external entity (XXE, a local file)',
      '<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>',
    ],
    [
      'an external entity over the network',
      '<!DOCTYPE r [<!ENTITY x SYSTEM "http://169.254.169.254/">]><r>&x;</r>',
    ],
    ['a parameter entity', '<!DOCTYPE r [<!ENTITY % p SYSTEM "http://127.0.0.1/x.dtd"> %p;]><r/>'],
    ['an external DTD', '<!DOCTYPE r SYSTEM "http://127.0.0.1/r.dtd"><r/>'],
    ['a DOCTYPE without entities', '<!DOCTYPE html><html/>'],
  ])('%s', (_what, text) => {
    const error = refusal(text);
    expect(error.code).toBe('upstream.invalid_response');
    expect(error.message).toMatch(/DTD/);
  });

  it('an entity never declared is an error, not left in the text', () => {
    expect(refusal('<r>&xxe;</r>').message).toMatch(/undefined entity.*Only &amp;/);
  });

  it('refuses 100,000 nested elements at the depth limit, without a stack overflow', () => {
    const text = `${'<a>'.repeat(100_000)}${'</a>'.repeat(100_000)}`;
    expect(refusal(text).message).toMatch(/deeper than 64 levels/);
  });

  it.each<[string, string, Partial<XmlLimits>, RegExp]>([
    ['elements', `<r>${'<e/>'.repeat(101)}</r>`, { maxElements: 100 }, /more than 100 elements/],
    [
      'attributes on one element',
      `<r ${Array.from({ length: 9 }, (_, i) => `a${i}="1"`).join(' ')}/>`,
      { maxAttributes: 8 },
      /more than 8 attributes/,
    ],
    ['a name', `<${'n'.repeat(65)}/>`, { maxNameLength: 64 }, /name is longer than 64/],
    ['a text', `<r>${'x'.repeat(33)}</r>`, { maxTextLength: 32 }, /text is longer than 32/],
    [
      'a text made of many pieces',
      `<r>${'x&amp;'.repeat(20)}</r>`,
      { maxTextLength: 32 },
      /text is longer than 32/,
    ],
    [
      'an attribute value',
      `<r a="${'x'.repeat(33)}"/>`,
      { maxTextLength: 32 },
      /attribute value is longer than 32/,
    ],
    ['the whole document', `<r>${' '.repeat(100)}</r>`, { maxBytes: 64 }, /larger than 64 characters/],
  ])('refuses more %s than the limit', (_what, text, limits, says) => {
    expect(refusal(text, limits).message).toMatch(says);
  });

  it('refuses what is not well-formed, saying where', () => {
    expect(refusal('<a><b></a>').message).toMatch(/line 1/);
    expect(refusal('').message).toMatch(/root/);
    expect(refusal('<a/><b/>').code).toBe('upstream.invalid_response');
  });
});

describe('the tree', () => {
  const root = parse(
    '<?xml version="1.0"?><s:E xmlns:s="urn:s" xmlns="urn:d" xmlns:t="urn:t"><B t:type="t:Forecast" plain="1">a &amp; <![CDATA[<b>]]> c</B><!-- no --><?pi x?></s:E>',
  );

  it('gives elements their namespace URI, never their prefix, and drops namespace declarations', () => {
    expect([root.uri, root.local]).toEqual(['urn:s', 'E']);
    const [b] = childElements(root);
    expect([b!.uri, b!.local]).toEqual(['urn:d', 'B']);
    expect(b!.attributes).toEqual([
      { uri: 'urn:t', local: 'type', value: 't:Forecast' },
      { uri: '', local: 'plain', value: '1' },
    ]);
    expect(attributeOf(b!, 'type', 'urn:t')).toBe('t:Forecast');
  });

  it('joins text and CDATA, and leaves comments and processing instructions out', () => {
    expect(textOf(childElements(root)[0]!)).toBe('a & <b> c');
  });

  it('resolves a QName-valued attribute through the bindings in scope', () => {
    const b = childElements(root)[0]!;
    expect(resolveQName(b, 't:Forecast')).toEqual({ uri: 'urn:t', local: 'Forecast' });
    expect(resolveQName(b, 'Plain')).toEqual({ uri: 'urn:d', local: 'Plain' });
  });
});
