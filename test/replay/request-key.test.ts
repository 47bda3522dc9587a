import { describe, expect, it } from 'vitest';
import { requestKey, splitTarget } from '../../src/replay/request-key.ts';

describe('requestKey', () => {
  const same = (a: [string, string], b: [string, string]) => requestKey(...a) === requestKey(...b);

  it('compares the query as a multiset of decoded pairs', () => {
    expect(same(['GET', '/s?name=New+York'], ['GET', '/s?name=New%20York'])).toBe(true);
    expect(same(['GET', '/s?count=5&name=x'], ['GET', '/s?name=x&count=5'])).toBe(true);
    expect(same(['GET', '/s?name=New+York%2C+NY'], ['GET', '/s?name=New%20York,%20NY'])).toBe(true);
    expect(same(['GET', '/s?a=1&a=2'], ['GET', '/s?a=2&a=1'])).toBe(true);
    expect(same(['GET', '/s?a=1&a=1'], ['GET', '/s?a=1'])).toBe(false);
    expect(same(['GET', '/s?a=1'], ['GET', '/s?a=2'])).toBe(false);
    expect(same(['GET', '/s'], ['GET', '/s?'])).toBe(true);
  });

  it('ignores the host and scheme of absolute URLs', () => {
    expect(same(['GET', 'https://api.weather.gov/points/1,2'], ['GET', '/points/1,2'])).toBe(true);
    expect(same(['GET', 'http://a.test/x?b=2&a=1'], ['GET', 'https://b.test/x?a=1&b=2'])).toBe(true);
  });

  it('compares method and path, decoding escapes but not across segments', () => {
    expect(same(['get', '/a'], ['GET', '/a'])).toBe(true);
    expect(same(['POST', '/a'], ['GET', '/a'])).toBe(false);
    expect(same(['GET', '/points/40.7128%2C-74.006'], ['GET', '/points/40.7128,-74.006'])).toBe(true);
    expect(same(['GET', '/a%2Fb'], ['GET', '/a/b'])).toBe(false);
    expect(same(['GET', '/a/'], ['GET', '/a'])).toBe(false);
    expect(same(['GET', '/bad%zz'], ['GET', '/bad%zz'])).toBe(true);
  });

  it('splits a target into path and query, dropping any fragment', () => {
    expect(splitTarget('/x?y=1#frag')).toEqual({ path: '/x', query: 'y=1' });
    expect(splitTarget('https://h.test')).toEqual({ path: '/', query: '' });
  });
});
