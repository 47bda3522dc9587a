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

/** The client was closed: the gateway is shutting down. */
const CLOSED = new Set(['UND_ERR_CLOSED', 'UND_ERR_DESTROYED']);

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
    if (UNAVAILABLE.has(code) || /^E[A-Z]+$/.test(code)) {
      return new SculptorError('upstream.unavailable', 'The backend is unavailable.', { cause: err });
    }
  }
  return new SculptorError('internal', 'An internal error occurred.', { cause: err });
}
