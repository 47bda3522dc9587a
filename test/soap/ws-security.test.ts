import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { usernameTokenHeader, withUsernameToken } from '../../src/soap/ws-security.ts';
import { childElements, parseXml, textOf } from '../../src/xml/parse-xml.ts';

const ENVELOPE =
  '<?xml version="1.0" encoding="UTF-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Header/><soap:Body><x/></soap:Body></soap:Envelope>';

function token(envelope: string) {
  const root = parseXml(envelope, { code: 'upstream.invalid_response', source: 'test' });
  const header = childElements(root)[0]!;
  const security = childElements(header)[0]!;
  const fields = Object.fromEntries(
    childElements(childElements(security)[0]!).map((e) => [e.local, { text: textOf(e), e }]),
  );
  return { security, fields };
}

describe('WS-Security UsernameToken', () => {
  it('PasswordText: the user name and password, escaped, in the envelope header', () => {
    const { security, fields } = token(
      withUsernameToken(ENVELOPE, { username: 'al<ice', password: 'p&ss', digest: false }),
    );
    expect(security.uri).toBe(
      'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd',
    );
    expect(fields.Username!.text).toBe('al<ice');
    expect(fields.Password!.text).toBe('p&ss');
    expect(fields.Password!.e.attributes[0]!.value).toMatch(/#PasswordText$/);
  });

  it('PasswordDigest: Base64(SHA-1(nonce + created + password)), the password itself absent', () => {
    const now = new Date('2026-01-20T11:38:23.456Z');
    const header = usernameTokenHeader({ username: 'alice', password: 'secret-password', digest: true }, now);
    expect(header).not.toContain('secret-password');
    const { fields } = token(
      withUsernameToken(ENVELOPE, { username: 'alice', password: 'secret-password', digest: true }),
    );
    const nonce = Buffer.from(fields.Nonce!.text, 'base64');
    expect(nonce).toHaveLength(16);
    const expected = createHash('sha1')
      .update(nonce)
      .update(fields.Created!.text)
      .update('secret-password')
      .digest('base64');
    expect(fields.Password!.text).toBe(expected);
    expect(fields.Created!.text).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(header).toContain('<wsu:Created>2026-01-20T11:38:23Z</wsu:Created>');
  });

  it('a fresh nonce every time', () => {
    const nonces = new Set(
      Array.from(
        { length: 20 },
        () =>
          /<wsse:Nonce[^>]*>([^<]+)</.exec(
            usernameTokenHeader({ username: 'a', password: 'b', digest: true }),
          )![1],
      ),
    );
    expect(nonces.size).toBe(20);
  });

  it('refuses a body that is not an envelope the SOAP codec built', () => {
    expect(() => withUsernameToken('{"json":true}', { username: 'a', password: 'b', digest: false })).toThrow(
      /not a SOAP envelope/,
    );
    expect(() => withUsernameToken(undefined, { username: 'a', password: 'b', digest: false })).toThrow(
      /not a SOAP envelope/,
    );
  });
});
