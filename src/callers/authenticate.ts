import { SculptorError } from '../errors/sculptor-error.ts';
import { ANONYMOUS, type Caller, type CallerDirectory, tokenHash } from './load-callers.ts';

/** RFC 6750 bearer credentials; tokens longer than this are refused unhashed. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const MAX_TOKEN_LENGTH = 4096;

/**
 * Who is calling (RELIABILITY D1). With a callers file, every A2T request
 * must carry `Authorization: Bearer <token>` of a listed caller; without one,
 * every request is the anonymous caller of the single default tenant.
 *
 * Tokens are compared by their SHA-256 in a map: what a lookup's timing could
 * reveal is a hash prefix, which says nothing about a token.
 */
export function authenticate(
  directory: CallerDirectory | undefined,
  authorization: string | undefined,
): Caller {
  if (!directory) return ANONYMOUS;
  const token =
    authorization && authorization.length <= MAX_TOKEN_LENGTH ? BEARER.exec(authorization)?.[1] : undefined;
  const caller = token === undefined ? undefined : directory.byTokenHash.get(tokenHash(token));
  if (!caller) {
    throw new SculptorError(
      'auth.unauthenticated',
      authorization ? 'The bearer token is not valid.' : 'Send Authorization: Bearer <token>.',
    );
  }
  return caller;
}
