import { CODES, type ErrorCode, type SculptorError } from '../../errors/sculptor-error.ts';
import type { ErrorTable } from '../shared/error-table.ts';
import { problemResponse as problemDetails } from '../shared/problem-details.ts';

/**
 * How the OpenAPI face (its typed operations `POST /call/{name}`, the document, the docs page)
 * answers each error code: RFC 9457 problem details with the code's status, as the document
 * declares them. `never`: a load, compile or lint finding, which stops a gateway from starting
 * and so never reaches a request; should one ever do, it is a 500 problem with a generic detail.
 */
export type OpenApiAnswer = 'problem' | 'never';

export const OPENAPI_ERRORS: ErrorTable<OpenApiAnswer> = {
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
  'request.not_found': 'problem',
  'request.method_not_allowed': 'problem',
  'request.unsupported_media_type': 'problem',
  'request.too_large': 'problem',
  'request.malformed': 'problem',
  'request.bad_paging': 'problem',
  'request.rate_limited': 'problem',
  'request.quota_exceeded': 'problem',
  'request.cancelled': 'problem',
  'request.too_many_in_flight': 'problem',
  'auth.unauthenticated': 'problem',
  'auth.invalid_token': 'problem',
  'auth.forbidden': 'problem',
  'auth.insufficient_scope': 'problem',
  'auth.provider_unavailable': 'problem',
  'auth.identity_required': 'problem',
  'auth.token_unavailable': 'problem',
  'auth.token_refused': 'problem',
  'auth.exchange_refused': 'problem',
  'auth.passthrough_missing': 'problem',
  'tool.not_found': 'problem',
  'tool.version_not_found': 'problem',
  'input.invalid': 'problem',
  'tool.error': 'problem',
  'upstream.error': 'problem',
  'upstream.unavailable': 'problem',
  'upstream.timeout': 'problem',
  'upstream.redirect': 'problem',
  'upstream.too_large': 'problem',
  'upstream.invalid_response': 'problem',
  'upstream.rate_limited': 'problem',
  'upstream.forbidden_address': 'problem',
  'upstream.call_budget': 'problem',
  'upstream.secret_echoed': 'problem',
  'upstream.credentials_missing': 'problem',
  'projection.failed': 'problem',
  'projection.invalid_output': 'problem',
  'projection.too_large': 'problem',
  'gateway.overloaded': 'problem',
  'gateway.draining': 'problem',
  internal: 'problem',
};

/** The codes a request can be answered with, by HTTP status (what the document declares). */
export function codesByStatus(): Map<number, ErrorCode[]> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of Object.keys(OPENAPI_ERRORS) as ErrorCode[]) {
    if (OPENAPI_ERRORS[code] === 'never') continue;
    const status = CODES[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return new Map([...byStatus].sort(([a], [b]) => a - b));
}

/** Problem details (RFC 9457) as A2T writes them, with this face's table deciding what is internal. */
export function problemResponse(error: SculptorError, allow?: string | null): Response {
  return problemDetails(error, OPENAPI_ERRORS[error.code] === 'never', allow);
}
