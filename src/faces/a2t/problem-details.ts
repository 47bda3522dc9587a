import { bearerChallenge } from '../../callers/authenticate.ts';
import { CODES, type SculptorError } from '../../errors/sculptor-error.ts';
import { A2T_ERRORS } from './a2t-errors.ts';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/**
 * RFC 9457 problem details from the one error type. `type` is a stable URN
 * per code; `detail` is the message written for the LLM (once: no separate
 * `message`); `code`, `retryable` and `problems` are extension members. Nothing else (no stack, no backend
 * body, no cause) ever reaches the wire.
 */
export function problemBody(error: SculptorError, instance?: string): Record<string, unknown> {
  const internal = A2T_ERRORS[error.code] === 'never';
  return {
    type: `urn:sculptor:error:${error.code}`,
    title: CODES[error.code].title,
    status: error.status,
    detail: internal
      ? 'The gateway failed to serve this request; its operator can read why in the logs.'
      : error.message,
    ...(instance ? { instance } : {}),
    code: error.code,
    retryable: error.retryable,
    ...(error.problems && !internal ? { problems: error.problems } : {}),
  };
}

export function problemHeaders(error: SculptorError): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': PROBLEM_CONTENT_TYPE,
    'cache-control': 'no-store',
  };
  if (error.retryAfter !== undefined) headers['retry-after'] = String(Math.ceil(error.retryAfter));
  // RFC 6750 §3: a 401 names the scheme the caller should use; a 403 says what falls short.
  const challenge = bearerChallenge(error);
  if (challenge) headers['www-authenticate'] = challenge;
  return headers;
}
