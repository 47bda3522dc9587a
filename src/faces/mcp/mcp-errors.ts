import type { ErrorTable } from '../shared/error-table.ts';

/**
 * How the MCP face answers each error code (MCP 2025-06-18 onwards, "Error Handling"):
 * - `tool-result`: an outcome of the call the model should read and act on (bad arguments, a
 *   declared tool error, a backend failing, the caller's quota or rate): a `tools/call` result
 *   with `isError: true`, the LLM-facing detail as text, and the stable code in `_meta`
 *   (`io.sculptor/error: {code, retryable}`) for programs;
 * - `invalid-params`: the request names something that is not there (an unknown tool or version,
 *   a bad cursor): JSON-RPC `-32602`, which the spec prescribes for an unknown tool;
 * - `refusal`: decided before any JSON-RPC message is read (no such path, not JSON, too large, no
 *   or a bad bearer token): the HTTP status of the code with a JSON-RPC error body, and the
 *   RFC 6750 challenge for `auth.*`. Should one arise inside a call, it is answered as a
 *   `tool-result`;
 * - `never`: load, compile and lint findings stop a gateway from starting; should one reach a
 *   request it is a generic `tool-result`, since its message names files of the deployment.
 */
export type McpAnswer = 'tool-result' | 'invalid-params' | 'refusal' | 'never';

export const MCP_ERRORS: ErrorTable<McpAnswer> = {
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
  'request.not_found': 'refusal',
  'request.method_not_allowed': 'refusal',
  'request.unsupported_media_type': 'refusal',
  'request.too_large': 'refusal',
  'request.malformed': 'refusal',
  'request.bad_paging': 'invalid-params',
  'request.rate_limited': 'tool-result',
  'request.quota_exceeded': 'tool-result',
  'request.cancelled': 'tool-result',
  'request.too_many_in_flight': 'tool-result',
  'auth.unauthenticated': 'refusal',
  'auth.invalid_token': 'refusal',
  'auth.forbidden': 'refusal',
  'auth.insufficient_scope': 'tool-result',
  'auth.provider_unavailable': 'refusal',
  'auth.identity_required': 'tool-result',
  'auth.token_unavailable': 'tool-result',
  'auth.token_refused': 'tool-result',
  'auth.exchange_refused': 'tool-result',
  'auth.passthrough_missing': 'tool-result',
  'tool.not_found': 'invalid-params',
  'tool.version_not_found': 'invalid-params',
  'input.invalid': 'tool-result',
  'tool.error': 'tool-result',
  'upstream.error': 'tool-result',
  'upstream.unavailable': 'tool-result',
  'upstream.timeout': 'tool-result',
  'upstream.redirect': 'tool-result',
  'upstream.too_large': 'tool-result',
  'upstream.invalid_response': 'tool-result',
  'upstream.rate_limited': 'tool-result',
  'upstream.forbidden_address': 'tool-result',
  'upstream.call_budget': 'tool-result',
  'upstream.secret_echoed': 'tool-result',
  'upstream.credentials_missing': 'tool-result',
  'projection.failed': 'tool-result',
  'projection.invalid_output': 'tool-result',
  'projection.too_large': 'tool-result',
  'gateway.overloaded': 'tool-result',
  'gateway.draining': 'tool-result',
  internal: 'tool-result',
};
