import { bearerChallenge } from '../../callers/authenticate.ts';
import { CODES, phaseOf, type SculptorError } from '../../errors/sculptor-error.ts';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/**
 * RFC 9457 problem details from the one error type, the one writer for the faces that answer in
 * them (A2T and the OpenAPI face). `type` is a stable URN per code; `detail` is the message written for the LLM
 * (once: no separate `message`); `code`, `retryable` and `problems` are extension members.
 * Nothing else (no stack, no backend body, no cause) ever reaches the wire. A code of another
 * phase than `request` (errors/: a load or compile finding, whose message names files and
 * settings of the deployment) gets a generic detail.
 */
export function problemBody(error: SculptorError): Record<string, unknown> {
  const internal = phaseOf(error.code) !== 'request';
  return {
    type: `urn:sculptor:error:${error.code}`,
    title: CODES[error.code].title,
    status: error.status,
    detail: internal
      ? 'The gateway failed to serve this request; its operator can read why in the logs.'
      : error.message,
    code: error.code,
    retryable: error.retryable,
    ...(error.problems && !internal ? { problems: error.problems } : {}),
  };
}

/** The problem's headers: its content type, `Retry-After` when known, the RFC 6750 challenge, `Allow` on a 405. */
export function problemHeaders(error: SculptorError, allow?: string | null): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': PROBLEM_CONTENT_TYPE,
    'cache-control': 'no-store',
  };
  if (error.retryAfter !== undefined) headers['retry-after'] = String(Math.ceil(error.retryAfter));
  // RFC 6750 §3: a 401 names the scheme the caller should use; a 403 says what falls short.
  const challenge = bearerChallenge(error);
  if (challenge) headers['www-authenticate'] = challenge;
  if (allow) headers.allow = allow;
  return headers;
}

/** The whole answer. */
export function problemResponse(error: SculptorError, allow?: string | null): Response {
  return new Response(JSON.stringify(problemBody(error)), {
    status: error.status,
    headers: problemHeaders(error, allow),
  });
}
