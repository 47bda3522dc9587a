import { bearerChallenge } from '../../callers/authenticate.ts';
import { phaseOf, type SculptorError } from '../../errors/sculptor-error.ts';

/**
 * The wire form of an error: `{error: {code, message}}` (the seed's shape), plus `problems`
 * (every invalid argument, `input.invalid`) and `retryable`; headers as on A2T: Retry-After,
 * the RFC 6750 challenge of a 401/403, no caching. A code of another phase than `request`
 * (a load or compile finding, which names files and settings of the deployment) is answered as
 * a 500 `internal` with a generic message.
 */
export function liteError(error: SculptorError, allow?: string | null): Response {
  const never = phaseOf(error.code) !== 'request';
  const body = never
    ? {
        code: 'internal',
        message: 'The gateway failed to serve this request; its operator can read why in the logs.',
        retryable: false,
      }
    : {
        code: error.code,
        message: error.message,
        retryable: error.retryable,
        ...(error.problems ? { problems: error.problems } : {}),
      };
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'cache-control': 'no-store',
  };
  if (error.retryAfter !== undefined) headers['retry-after'] = String(Math.ceil(error.retryAfter));
  const challenge = bearerChallenge(error);
  if (challenge) headers['www-authenticate'] = challenge;
  if (allow) headers.allow = allow;
  return new Response(JSON.stringify({ error: body }), { status: never ? 500 : error.status, headers });
}
