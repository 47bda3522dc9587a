/**
 * The one error type of Sculptor. Every failure a caller, a designer or an
 * operator can see carries a stable `code` from the table below; tests assert
 * codes, never message text. The prefix names the phase the error comes from.
 *
 * `message` is written for whoever acts on it (for invocation errors: the LLM),
 * so it must never contain secrets, stack traces, backend bodies or internal
 * host names. `cause` keeps the original error for logs, never for the wire.
 */

export interface CodeInfo {
  /** HTTP status a face answers with. */
  status: number;
  /** Whether trying the same call again later may succeed. */
  retryable: boolean;
  /** Short, human title (RFC 9457 `title`). */
  title: string;
}

export const CODES = {
  // --- load: reading sculpt, backend and OpenAPI files -----------------------
  'load.io': { status: 500, retryable: false, title: 'File cannot be read' },
  'load.yaml': { status: 500, retryable: false, title: 'YAML syntax error' },
  'load.schema': { status: 500, retryable: false, title: 'Sculpt file does not match its schema' },
  'load.env': { status: 500, retryable: false, title: 'Environment variable reference is invalid' },
  'load.literal_secret': { status: 500, retryable: false, title: 'Secret written literally in a file' },
  'load.insecure_url': { status: 500, retryable: false, title: 'Backend reached over plain HTTP' },
  'load.openapi': { status: 500, retryable: false, title: 'OpenAPI document cannot be loaded' },
  'load.wsdl': { status: 500, retryable: false, title: 'WSDL description cannot be loaded' },
  'load.unknown_backend': { status: 500, retryable: false, title: 'Unknown backend' },
  'load.tenancy': {
    status: 500,
    retryable: false,
    title: "Backend credentials would reach another tenant's data",
  },

  // --- compile: turning loaded sculpts into runnable tools ------------------
  'compile.unknown_operation': { status: 500, retryable: false, title: 'Unknown OpenAPI operation' },
  'compile.ambiguous_operation': { status: 500, retryable: false, title: 'Ambiguous OpenAPI operation' },
  'compile.unsupported_operation': { status: 500, retryable: false, title: 'Unsupported OpenAPI operation' },
  'compile.jsonata': { status: 500, retryable: false, title: 'JSONata expression does not compile' },
  'compile.missing_param': {
    status: 500,
    retryable: false,
    title: 'Required backend parameter never supplied',
  },
  'compile.unknown_param': {
    status: 500,
    retryable: false,
    title: 'Parameter not declared by the operation',
  },
  'compile.invalid_value': {
    status: 500,
    retryable: false,
    title: 'Constant does not fit its field',
  },
  'compile.forbidden_param': { status: 500, retryable: false, title: 'Parameter may not be set by a sculpt' },
  'compile.input_type': { status: 500, retryable: false, title: 'Input type outside A2T' },
  'compile.output_type': { status: 500, retryable: false, title: 'Output type outside A2T' },
  'compile.a2t_limit': { status: 500, retryable: false, title: 'A2T limit exceeded' },
  'compile.duplicate_tool': { status: 500, retryable: false, title: 'Duplicate tool version' },
  'compile.version_gap': { status: 500, retryable: false, title: 'Tool versions are not consecutive' },
  'compile.version_break': { status: 500, retryable: false, title: 'New version breaks A2T §5.4' },
  'compile.step_reference': { status: 500, retryable: false, title: 'Step reference is invalid' },
  'compile.step_cycle': { status: 500, retryable: false, title: 'Steps depend on each other in a cycle' },
  'compile.cache': { status: 500, retryable: false, title: 'Step cannot be cached' },
  'compile.owner_param': {
    status: 500,
    retryable: false,
    title: 'Owner parameter not bound from the caller',
  },
  'compile.forbidden_function': { status: 500, retryable: false, title: 'Function not allowed in sculpts' },
  /** An Arazzo description Sculptor cannot read as written: a runtime expression, criterion or reference. */
  'compile.arazzo': { status: 500, retryable: false, title: 'Arazzo description is invalid' },
  /** Valid Arazzo that Sculptor does not run (the feature is named, with why and what to do). */
  'compile.unsupported_feature': { status: 500, retryable: false, title: 'Arazzo feature not supported' },
  'compile.unsafe_regex': {
    status: 500,
    retryable: false,
    title: 'Regular expression outside RE2 (not linear-time, or syntax RE2 lacks)',
  },

  // --- lint: designer checks (`sculptor check`); warnings unless noted ------
  'lint.programmatic_input': { status: 500, retryable: false, title: 'Input looks programmatic' },
  /** An input that looks like a credential: an error under `check --strict`, refused by `export --strict`. */
  'lint.secret_input': { status: 500, retryable: false, title: 'Input looks like a secret' },
  'lint.whole_object_output': {
    status: 500,
    retryable: false,
    title: 'Output returns a whole backend object',
  },
  'lint.unused_input': { status: 500, retryable: false, title: 'Input never used' },
  'lint.unbounded_sort': { status: 500, retryable: false, title: '$sort on an unbounded array' },
  'lint.optional_first_version': {
    status: 500,
    retryable: false,
    title: 'Optional input on a first version',
  },
  'lint.description_when': {
    status: 500,
    retryable: false,
    title: 'Description does not say when to use the tool',
  },
  'lint.effects_mismatch': { status: 500, retryable: false, title: 'Declared effects contradict the steps' },
  'lint.provider_name': { status: 500, retryable: false, title: 'Tool name too long for provider exports' },
  /** A `REPLACE_ME` placeholder `sculptor init` left (fails `check --strict`). */
  'lint.placeholder': { status: 500, retryable: false, title: 'Placeholder value not replaced' },
  /** A `# REVIEW:` mark `sculptor init` left (fails `check --strict`). */
  'lint.review_mark': { status: 500, retryable: false, title: 'Review mark not dealt with' },
  /** Error level: a published (locked) version's signature changed. */
  'lint.signature_drift': { status: 500, retryable: false, title: 'Published signature changed' },
  /** Error level: a published (locked) version is gone. */
  'lint.version_removed': { status: 500, retryable: false, title: 'Published version removed' },
  /** Error level: sculptor.lock.json cannot be read. */
  'lint.lock_file': { status: 500, retryable: false, title: 'Lock file unreadable' },

  // --- eval: `sculptor eval` and the Studio's "try with a model" (never on the wire) ---
  /** A scenario file that cannot be read, or does not fit the catalog it is run against. */
  'eval.scenario': { status: 500, retryable: false, title: 'Eval scenario invalid' },
  /** No model endpoint or model name configured, or an option out of range. */
  'eval.config': { status: 500, retryable: false, title: 'Model endpoint not configured' },
  'eval.endpoint_unreachable': { status: 503, retryable: true, title: 'Model endpoint unreachable' },
  /** 401 or 403: the key is missing, wrong or lacks access to the model. */
  'eval.endpoint_refused': { status: 502, retryable: false, title: 'Model endpoint refused the request' },
  'eval.endpoint_rate_limited': { status: 503, retryable: true, title: 'Model endpoint rate limit reached' },
  /** Any other error status (an unknown model, tools not supported, a server error). */
  'eval.endpoint_error': { status: 502, retryable: false, title: 'Model endpoint answered an error' },
  /** A 200 answer that is not a chat completion (no choices, no message, not JSON). */
  'eval.endpoint_malformed': { status: 502, retryable: false, title: 'Model endpoint answer malformed' },

  // --- request: what a caller sent, before any tool runs --------------------
  'request.not_found': { status: 404, retryable: false, title: 'Not found' },
  'request.method_not_allowed': { status: 405, retryable: false, title: 'Method not allowed' },
  'request.unsupported_media_type': { status: 415, retryable: false, title: 'Unsupported media type' },
  'request.too_large': { status: 413, retryable: false, title: 'Request body too large' },
  'request.malformed': { status: 400, retryable: false, title: 'Malformed request' },
  'request.bad_paging': { status: 400, retryable: false, title: 'Invalid paging parameters' },
  'request.rate_limited': { status: 429, retryable: true, title: 'Too many requests' },
  'request.quota_exceeded': { status: 429, retryable: true, title: "Tenant's quota used up" },
  /** The caller already has SCULPTOR_MAX_INFLIGHT_PER_CALLER invocations running. */
  'request.too_many_in_flight': { status: 429, retryable: true, title: 'Too many invocations in flight' },
  /** A long-lived stream past SCULPTOR_MAX_STREAMS_PER_CALLER or SCULPTOR_MAX_STREAMS. */
  'request.too_many_streams': { status: 429, retryable: true, title: 'Too many open streams' },
  /** `Host` or `Origin` names a site the gateway does not serve (DNS rebinding protection). */
  'request.host_not_allowed': { status: 403, retryable: false, title: 'Host or Origin not allowed' },
  /**
   * The caller hung up before the answer (nginx's 499): nobody reads it, but logs and
   * metrics must not count it as the backend's timeout.
   */
  'request.cancelled': { status: 499, retryable: false, title: 'Caller closed the request' },

  // --- auth: who the caller is (RELIABILITY D1, D6) -----------------------------
  'auth.unauthenticated': { status: 401, retryable: false, title: 'Caller not authenticated' },
  'auth.invalid_token': { status: 401, retryable: false, title: 'Access token not valid' },
  'auth.forbidden': { status: 403, retryable: false, title: 'Caller has no tenant here' },
  'auth.insufficient_scope': { status: 403, retryable: false, title: 'Access token lacks a scope' },
  'auth.provider_unavailable': { status: 503, retryable: true, title: 'Identity provider unreachable' },
  'auth.identity_required': {
    status: 403,
    retryable: false,
    title: "Backend needs the user's identity",
  },
  'auth.token_unavailable': { status: 503, retryable: true, title: 'Backend access token unavailable' },
  'auth.token_refused': { status: 502, retryable: false, title: 'Backend access token refused' },
  'auth.exchange_refused': { status: 403, retryable: false, title: 'Token exchange refused' },
  /** The tool's backend takes the user's own credential, and the request did not carry it. */
  'auth.passthrough_missing': { status: 401, retryable: false, title: 'Per-user credential missing' },

  // --- tool: catalog look-ups ------------------------------------------------
  'tool.not_found': { status: 404, retryable: false, title: 'Unknown tool' },
  'tool.version_not_found': { status: 404, retryable: false, title: 'Unknown tool version' },
  /** Its expressions kept exceeding their evaluation budget; other tools are not affected. */
  'tool.suspended': { status: 503, retryable: true, title: 'Tool suspended' },

  // --- input: validating an invocation against the signature ----------------
  'input.invalid': { status: 400, retryable: false, title: 'Invalid invocation' },

  // --- tool outcome the sculpt declares (e.g. "no such city") --------------
  'tool.error': { status: 422, retryable: false, title: 'The tool could not do what was asked' },

  // --- upstream: the backend call ------------------------------------------
  'upstream.error': { status: 502, retryable: false, title: 'Backend answered with an error' },
  'upstream.unavailable': { status: 503, retryable: true, title: 'Backend unavailable' },
  'upstream.timeout': { status: 504, retryable: true, title: 'Backend did not answer in time' },
  'upstream.redirect': { status: 502, retryable: false, title: 'Backend redirected' },
  'upstream.too_large': { status: 502, retryable: false, title: 'Backend answer too large' },
  'upstream.invalid_response': { status: 502, retryable: false, title: 'Backend answer invalid' },
  'upstream.rate_limited': { status: 503, retryable: true, title: 'Backend rate limit reached' },
  'upstream.forbidden_address': { status: 502, retryable: false, title: 'Backend address not allowed' },
  /** The invocation used its whole budget of backend calls, retries included (RELIABILITY C9). */
  'upstream.call_budget': { status: 502, retryable: false, title: 'Backend call budget spent' },
  /** A backend's answer carried a credential the gateway holds; the output was withheld. */
  'upstream.secret_echoed': { status: 502, retryable: false, title: 'Backend echoed a credential' },
  'upstream.credentials_missing': {
    status: 503,
    retryable: false,
    title: 'Backend credentials not configured',
  },

  // --- projection: JSONata at run time and output checks ---------------------
  'projection.failed': { status: 502, retryable: false, title: 'Result could not be projected' },
  'projection.invalid_output': {
    status: 502,
    retryable: false,
    title: 'Tool output does not match its signature',
  },
  'projection.too_large': { status: 502, retryable: false, title: 'Tool output too large' },

  // --- the gateway itself ---------------------------------------------------
  'gateway.overloaded': { status: 503, retryable: true, title: 'Gateway overloaded' },
  'gateway.draining': { status: 503, retryable: true, title: 'Gateway shutting down' },
  internal: { status: 500, retryable: true, title: 'Internal error' },
} as const satisfies Record<string, CodeInfo>;

export type ErrorCode = keyof typeof CODES;

/**
 * Where an error code arises: `load` and `compile` (lint included) findings stop a gateway
 * from starting or a reload from taking effect, so they never answer a request — should one ever
 * reach one, its message names files and settings of the deployment and is replaced by a generic
 * one; `cli` codes belong to commands (`sculptor eval`); every other code answers a request.
 */
export type ErrorPhase = 'load' | 'compile' | 'cli' | 'request';

const PHASE_OF_PREFIX: Readonly<Record<string, ErrorPhase>> = {
  load: 'load',
  compile: 'compile',
  lint: 'compile',
  eval: 'cli',
};

const PHASES = new Map<ErrorCode, ErrorPhase>(
  (Object.keys(CODES) as ErrorCode[]).map((code) => [
    code,
    PHASE_OF_PREFIX[code.split('.')[0]!] ?? 'request',
  ]),
);

export function phaseOf(code: ErrorCode): ErrorPhase {
  return PHASES.get(code)!;
}

/** Where in a file an error was found (1-based line and column). */
export interface SourcePosition {
  file: string;
  line: number;
  column: number;
}

/** One reason an invocation's input was refused, for `input.invalid`. */
export interface InputProblem {
  parameter: string;
  reason: string;
}

export interface SculptorErrorOptions {
  cause?: unknown;
  at?: SourcePosition;
  problems?: InputProblem[];
  /** Seconds after which a retry may succeed (sets `Retry-After`). */
  retryAfter?: number;
  /** For `auth.insufficient_scope`: the scopes that would grant access (RFC 6750 `scope`). */
  scopes?: readonly string[];
  /**
   * For the operator and designer, never for the wire: why it happened and what to
   * change (the variable to set, the setting, the likely cause). Shown by
   * `sculptor invoke --debug`, `sculptor test` and the log at LOG_LEVEL=debug.
   */
  hint?: string;
}

export class SculptorError extends Error {
  override readonly name = 'SculptorError';
  readonly code: ErrorCode;
  readonly at: SourcePosition | undefined;
  readonly problems: InputProblem[] | undefined;
  readonly retryAfter: number | undefined;
  readonly scopes: readonly string[] | undefined;
  readonly hint: string | undefined;

  constructor(code: ErrorCode, message: string, options: SculptorErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.at = options.at;
    this.problems = options.problems;
    this.retryAfter = options.retryAfter;
    this.scopes = options.scopes;
    this.hint = options.hint;
  }

  get status(): number {
    return CODES[this.code].status;
  }

  get retryable(): boolean {
    return CODES[this.code].retryable;
  }

  /** `file:line:col code message`, the form every designer-facing report uses. */
  format(): string {
    const where = this.at ? `${this.at.file}:${this.at.line}:${this.at.column} ` : '';
    return `${where}${this.code} ${this.message}`;
  }

  /** The wire form: only what is safe for any caller to see. */
  toJSON(): Record<string, unknown> {
    return {
      code: this.code,
      message: this.message,
      retryable: this.retryable,
      ...(this.problems ? { problems: this.problems } : {}),
    };
  }
}

export function isSculptorError(value: unknown): value is SculptorError {
  return value instanceof SculptorError;
}

/** Wraps anything thrown into a SculptorError, keeping the original as `cause`. */
export function toSculptorError(value: unknown): SculptorError {
  if (value instanceof SculptorError) return value;
  return new SculptorError('internal', 'An internal error occurred.', { cause: value });
}

/** Thrown when loading or compiling finds one or more errors; carries them all. */
export class SculptLoadError extends Error {
  override readonly name = 'SculptLoadError';
  readonly errors: SculptorError[];

  constructor(errors: SculptorError[]) {
    super(`${errors.length} error(s) in sculpts:\n${errors.map((e) => `  ${e.format()}`).join('\n')}`);
    this.errors = errors;
  }
}
