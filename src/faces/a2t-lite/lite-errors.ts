import { bearerChallenge } from '../../callers/authenticate.ts';
import type { SculptorError } from '../../errors/sculptor-error.ts';
import type { ErrorTable } from '../shared/error-table.ts';

/**
 * How a2t-lite answers each error code: `error` is `{"error": {"code", "message"}}` with the
 * status A2T gives the code (CODES), the same codes as on every face. `never`: a load, compile or
 * lint finding, which stops a gateway from starting and so never reaches a request; should one
 * ever do, it is a 500 `internal` whose message is generic, since such a message names files and
 * settings of the deployment.
 */
export type LiteAnswer = 'error' | 'never';

export const LITE_ERRORS: ErrorTable<LiteAnswer> = {
  'load.io': 'never',
  'load.yaml': 'never',
  'load.schema': 'never',
  'load.env': 'never',
  'load.literal_secret': 'never',
  'load.insecure_url': 'never',
  'load.openapi': 'never',
  'load.unknown_backend': 'never',
  'load.tenancy': 'never',
  'compile.unknown_operation': 'never',
  'compile.ambiguous_operation': 'never',
  'compile.unsupported_operation': 'never',
  'compile.jsonata': 'never',
  'compile.missing_param': 'never',
  'compile.unknown_param': 'never',
  'compile.forbidden_param': 'never',
  'compile.input_type': 'never',
  'compile.output_type': 'never',
  'compile.a2t_limit': 'never',
  'compile.duplicate_tool': 'never',
  'compile.version_gap': 'never',
  'compile.version_break': 'never',
  'compile.step_reference': 'never',
  'compile.step_cycle': 'never',
  'compile.cache': 'never',
  'compile.owner_param': 'never',
  'compile.forbidden_function': 'never',
  'compile.unsafe_regex': 'never',
  'lint.programmatic_input': 'never',
  'lint.whole_object_output': 'never',
  'lint.unused_input': 'never',
  'lint.unbounded_sort': 'never',
  'lint.optional_first_version': 'never',
  'lint.description_when': 'never',
  'lint.effects_mismatch': 'never',
  'lint.provider_name': 'never',
  'lint.signature_drift': 'never',
  'lint.version_removed': 'never',
  'lint.lock_file': 'never',
  'lint.placeholder': 'never',
  'lint.review_mark': 'never',
  'request.not_found': 'error',
  'request.method_not_allowed': 'error',
  'request.unsupported_media_type': 'error',
  'request.too_large': 'error',
  'request.malformed': 'error',
  'request.bad_paging': 'error',
  'request.rate_limited': 'error',
  'request.quota_exceeded': 'error',
  'request.cancelled': 'error',
  'request.too_many_in_flight': 'error',
  'auth.unauthenticated': 'error',
  'auth.invalid_token': 'error',
  'auth.forbidden': 'error',
  'auth.insufficient_scope': 'error',
  'auth.provider_unavailable': 'error',
  'auth.identity_required': 'error',
  'auth.token_unavailable': 'error',
  'auth.token_refused': 'error',
  'auth.exchange_refused': 'error',
  'auth.passthrough_missing': 'error',
  'tool.not_found': 'error',
  'tool.version_not_found': 'error',
  'input.invalid': 'error',
  'tool.error': 'error',
  'upstream.error': 'error',
  'upstream.unavailable': 'error',
  'upstream.timeout': 'error',
  'upstream.redirect': 'error',
  'upstream.too_large': 'error',
  'upstream.invalid_response': 'error',
  'upstream.rate_limited': 'error',
  'upstream.forbidden_address': 'error',
  'upstream.call_budget': 'error',
  'upstream.secret_echoed': 'error',
  'upstream.credentials_missing': 'error',
  'projection.failed': 'error',
  'projection.invalid_output': 'error',
  'projection.too_large': 'error',
  'gateway.overloaded': 'error',
  'gateway.draining': 'error',
  internal: 'error',
};

/**
 * The wire form of an error: `{error: {code, message}}` (the seed's shape), plus `problems`
 * (every invalid argument, `input.invalid`) and `retryable`; headers as on A2T: Retry-After,
 * the RFC 6750 challenge of a 401/403, no caching.
 */
export function liteError(error: SculptorError, allow?: string | null): Response {
  const never = LITE_ERRORS[error.code] === 'never';
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
