/**
 * Maps what undici, node:net and node:zlib throw onto SculptorError codes, so
 * the caller can decide on retries (C3) and answers by code alone. Messages
 * name no host; the original error stays as `cause` for logs.
 */
import { SculptorError } from '../errors/sculptor-error.ts';

const TIMEOUT = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);

/** The answer itself is broken: retrying the same backend is unlikely to help. */
const INVALID = new Set(['UND_ERR_HEADERS_OVERFLOW', 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH']);

/** The backend could not be reached or dropped the connection. */
const UNAVAILABLE = new Set([
  'UND_ERR_SOCKET',
  'UND_ERR_INFO', // undici's connection-level notices: reset, idle timeout, GOAWAY
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EAI_NODATA',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'EADDRNOTAVAIL',
]);

/** A certificate or handshake failure: undici passes Node's TLS codes through. */
const TLS = /CERT|SIGNATURE|^ERR_TLS_|^ERR_SSL_|^EPROTO$/;

/** The client was closed: the gateway is shutting down. */
const CLOSED = new Set(['UND_ERR_CLOSED', 'UND_ERR_DESTROYED']);

/** What each way of being unreachable means, for the operator's hint (never the wire). */
const WHY: ReadonlyArray<readonly [RegExp, string]> = [
  [/^(ENOTFOUND|EAI_)/, 'DNS: the backend host name does not resolve; check baseUrl and the resolver'],
  [
    /^ECONNREFUSED$/,
    'connection refused: nothing listens at the backend address and port; check baseUrl and that the backend runs',
  ],
  [
    /^(ECONNRESET|EPIPE|ECONNABORTED|UND_ERR_SOCKET|UND_ERR_INFO)$/,
    'connection reset: the backend (or a proxy on the way) dropped the connection',
  ],
  [
    /^(EHOSTUNREACH|EHOSTDOWN|ENETUNREACH|ENETDOWN|EADDRNOTAVAIL)$/,
    'network unreachable: no route to the backend address',
  ],
  [
    TLS,
    'TLS: the handshake failed (certificate not trusted, expired or for another name, or not a TLS port); check the baseUrl scheme and the certificate, or set NODE_EXTRA_CA_CERTS for a private CA',
  ],
];

function why(code: string, err: unknown): string {
  const reason = WHY.find(([pattern]) => pattern.test(code))?.[1] ?? 'the connection failed';
  const detail = err instanceof Error ? err.message.split('\n')[0] : '';
  return `${reason} (${code}${detail ? `: ${detail}` : ''})`;
}

function codeOf(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  // Happy-eyeballs connects fail with an AggregateError of per-address errors.
  if (err instanceof AggregateError) return codeOf(err.errors[0]);
  return undefined;
}

export function toBackendError(err: unknown, signal: AbortSignal): SculptorError {
  // The deadline wins over whatever error the abort produced on its way out.
  if (signal.aborted) {
    return new SculptorError('upstream.timeout', 'The backend did not answer in time.', { cause: err });
  }
  if (err instanceof SculptorError) return err;
  const code = codeOf(err);
  if (code !== undefined) {
    if (TIMEOUT.has(code)) {
      return new SculptorError('upstream.timeout', 'The backend did not answer in time.', { cause: err });
    }
    if (INVALID.has(code) || code.startsWith('HPE_')) {
      return new SculptorError('upstream.invalid_response', 'The backend answer is not valid HTTP.', {
        cause: err,
      });
    }
    if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') {
      return new SculptorError('upstream.too_large', 'The backend answer is too large.', { cause: err });
    }
    if (CLOSED.has(code)) {
      return new SculptorError('gateway.draining', 'The gateway is shutting down.', { cause: err });
    }
    if (UNAVAILABLE.has(code) || TLS.test(code) || /^E[A-Z]+$/.test(code)) {
      return new SculptorError('upstream.unavailable', 'The backend is unavailable.', {
        cause: err,
        hint: why(code, err),
      });
    }
  }
  return new SculptorError('internal', 'An internal error occurred.', { cause: err });
}
