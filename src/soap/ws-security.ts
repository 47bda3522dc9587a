/**
 * WS-Security UsernameToken (OASIS WSS 1.0 UsernameToken Profile): the credential a SOAP backend
 * takes in the envelope's header. `text` sends the password as it is (PasswordText, only over
 * TLS); `digest` sends Base64(SHA-1(nonce + created + password)) with a fresh 16-byte nonce and
 * the creation time, so the password itself never travels and a captured header cannot be
 * replayed once the server's window has passed.
 *
 * Attached like every other credential: last, to the envelope the codec built (it always writes
 * an empty `soap:Header`), after the cache key and the debug view have seen the request, so the
 * password reaches neither.
 */
import { createHash, randomBytes } from 'node:crypto';
import { SculptorError } from '../errors/sculptor-error.ts';
import { escapeAttribute, escapeText } from '../xml/write-xml.ts';
import { NS } from './soap-namespaces.ts';

export interface UsernameToken {
  username: string;
  password: string;
  digest: boolean;
}

const PASSWORD_TYPE = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0';
const BASE64 =
  'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary';
const EMPTY_HEADER = '<soap:Header/>';

/** The header element, for one send: a digest is computed afresh each time. */
export function usernameTokenHeader(token: UsernameToken, now = new Date()): string {
  const username = `<wsse:Username>${escapeText(token.username)}</wsse:Username>`;
  let body: string;
  if (token.digest) {
    const nonce = randomBytes(16);
    const created = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
    const digest = createHash('sha1').update(nonce).update(created).update(token.password).digest('base64');
    body =
      `${username}<wsse:Password Type="${escapeAttribute(`${PASSWORD_TYPE}#PasswordDigest`)}">${digest}</wsse:Password>` +
      `<wsse:Nonce EncodingType="${escapeAttribute(BASE64)}">${nonce.toString('base64')}</wsse:Nonce>` +
      `<wsu:Created>${created}</wsu:Created>`;
  } else {
    body = `${username}<wsse:Password Type="${escapeAttribute(`${PASSWORD_TYPE}#PasswordText`)}">${escapeText(token.password)}</wsse:Password>`;
  }
  return (
    `<wsse:Security xmlns:wsse="${NS.wsse}" xmlns:wsu="${NS.wsu}" soap:mustUnderstand="1">` +
    `<wsse:UsernameToken>${body}</wsse:UsernameToken></wsse:Security>`
  );
}

/** The envelope with the token in its header. */
export function withUsernameToken(envelope: string | undefined, token: UsernameToken): string {
  const at = envelope?.indexOf(EMPTY_HEADER) ?? -1;
  if (envelope === undefined || at < 0) {
    // Only envelopes built by the SOAP codec get here (the loader refuses wsSecurity elsewhere).
    throw new SculptorError(
      'internal',
      'A WS-Security credential was attached to a request that is not a SOAP envelope.',
    );
  }
  return `${envelope.slice(0, at)}<soap:Header>${usernameTokenHeader(token)}</soap:Header>${envelope.slice(at + EMPTY_HEADER.length)}`;
}
