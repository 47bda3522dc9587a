import { describe, expect, it } from 'vitest';
import { redactUrl } from '../../src/http/redact-url.ts';

describe('redactUrl', () => {
  it('replaces userinfo', () => {
    expect(redactUrl('https://alice:s3cret@api.example.com/v1')).toBe(
      'https://REDACTED:REDACTED@api.example.com/v1',
    );
    expect(redactUrl('https://token@api.example.com/')).toBe('https://REDACTED:REDACTED@api.example.com/');
  });

  it('replaces the values of secret query keys, case-insensitively, keeping keys and the rest as is', () => {
    expect(
      redactUrl(
        'https://api.example.com/p?q=a+b%20c&API_KEY=k1&Key=k2&token=t&access_token=a&client_secret=c&password=p' +
          '&sig=s&Signature=s2&AWSAccessKeyId=AKIA&X-Goog-Signature=g&page=2',
      ),
    ).toBe(
      'https://api.example.com/p?q=a+b%20c&API_KEY=REDACTED&Key=REDACTED&token=REDACTED&access_token=REDACTED' +
        '&client_secret=REDACTED&password=REDACTED&sig=REDACTED&Signature=REDACTED&AWSAccessKeyId=REDACTED' +
        '&X-Goog-Signature=REDACTED&page=2',
    );
  });

  it('matches percent-encoded key names and repeated keys', () => {
    expect(redactUrl('http://h/?api%5Fkey=1&token=2&token=3')).toBe(
      'http://h/?api%5Fkey=REDACTED&token=REDACTED&token=REDACTED',
    );
  });

  it('leaves keys without a value, and other keys, untouched', () => {
    expect(redactUrl('http://h/x?token&keyword=k&monkey=m')).toBe('http://h/x?token&keyword=k&monkey=m');
  });

  it('redacts fragments too (OAuth implicit flow)', () => {
    expect(redactUrl('https://app.example/cb#access_token=abc&state=1')).toBe(
      'https://app.example/cb#access_token=REDACTED&state=1',
    );
  });

  it('returns URLs without secrets unchanged', () => {
    for (const url of [
      'https://api.example.com/v1/pets?limit=10',
      'http://127.0.0.1:8080/',
      'https://[::1]:9/a#b',
    ]) {
      expect(redactUrl(url)).toBe(url);
    }
  });

  it('logs nothing of text that is not a URL', () => {
    expect(redactUrl('not a url with password=hunter2')).toBe('[unparseable URL]');
  });
});
