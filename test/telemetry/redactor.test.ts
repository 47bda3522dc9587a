import { describe, expect, it } from 'vitest';
import { backendSecrets } from '../../src/sculpt/backend-secrets.ts';
import { Redactor } from '../../src/telemetry/redactor.ts';

describe('Redactor', () => {
  it('replaces registered secrets, raw, JSON-escaped and URL-encoded', () => {
    const redactor = new Redactor();
    redactor.add(['s3cr3t"value\\x', 'token 123456']);
    expect(redactor.redact('a s3cr3t"value\\x b')).toBe('a [REDACTED] b');
    expect(redactor.redact(JSON.stringify({ m: 's3cr3t"value\\x' }))).toBe('{"m":"[REDACTED]"}');
    expect(redactor.redact('?k=token%20123456&x=1')).toBe('?k=[REDACTED]&x=1');
  });

  it('ignores values too short to be told apart from ordinary text', () => {
    const redactor = new Redactor();
    redactor.add(['abc', '']);
    expect(redactor.size).toBe(0);
    expect(redactor.redact('abc')).toBe('abc');
  });

  it('removes URL userinfo even when the secret was never registered', () => {
    const redactor = new Redactor();
    expect(redactor.redact('redis://:pw-unknown@cache:6379/0 and https://u:p@h/x')).toBe(
      'redis://REDACTED:REDACTED@cache:6379/0 and https://REDACTED:REDACTED@h/x',
    );
    expect(redactor.redact('see https://example.com/a@b')).toBe('see https://example.com/a@b');
  });

  it('treats regular-expression characters in secrets literally', () => {
    const redactor = new Redactor();
    redactor.add(['a.b*c+d?(e)']);
    expect(redactor.redact('xa.b*c+d?(e)y aXbbbcd')).toBe('x[REDACTED]y aXbbbcd');
  });
});

describe('backendSecrets', () => {
  it('collects credentials, sensitive static headers and bare bearer tokens', () => {
    const values = backendSecrets({
      auth: [{ value: 'Bearer abcdef123456' }, { value: 'qkey-0001' }],
      headers: { accept: 'application/json', 'x-api-key': 'header-key-1', 'user-agent': 'sculptor (ops@x)' },
    });
    expect(values).toEqual(
      expect.arrayContaining(['Bearer abcdef123456', 'abcdef123456', 'qkey-0001', 'header-key-1']),
    );
    expect(values).not.toContain('application/json');
    expect(values).not.toContain('sculptor (ops@x)');
  });
});
