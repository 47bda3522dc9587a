/**
 * The outbound backend client: every call Sculptor makes to a third-party API
 * goes through `send`, which bounds it (RELIABILITY B3–B8, M4):
 *
 * - the caller's AbortSignal (the invocation deadline) covers connect,
 *   headers and the whole body; undici's own timers are per phase or per
 *   chunk, so they are only a backstop here;
 * - no redirect is followed: a 3xx is upstream.redirect;
 * - the egress policy refuses private addresses at connect time unless the
 *   backend is explicitly internal (`allowPrivate`);
 * - the body is decoded and counted while streaming, then parsed under caps.
 *
 * undici's dispatch API (not `fetch`) is used (backend-exchange.ts): it follows
 * no redirects, adds no headers of its own beyond HTTP/1.1 framing (host,
 * content-length, connection), and does not decode bodies behind our back.
 */
import { Agent, type Dispatcher } from 'undici';
import { SculptorError } from '../errors/sculptor-error.ts';
import { exchange, type ExchangeLimits } from './backend-exchange.ts';
import { createConnector, type LookupFunction } from './egress-policy.ts';
import { toBackendError } from './map-error.ts';

export interface BackendRequest {
  method: string;
  /** Absolute http(s) URL; userinfo and fragment are never sent. */
  url: string;
  /** Sent as given: the client adds no cookies, no Authorization, no User-Agent. */
  headers: Record<string, string>;
  body?: string;
}

export interface BackendResponse {
  status: number;
  /** Lower-case names; hop-by-hop headers and set-cookie removed. */
  headers: Record<string, string>;
  /** Media type without parameters, lower-case ("application/json"); '' when absent. */
  contentType: string;
  /** Parsed JSON, text for text/*, undefined when empty, 204 or another media type. */
  body: unknown;
  /** Decoded size of the body in bytes. */
  bytes: number;
}

export interface SendOptions {
  /** The invocation deadline: bounds connect, headers and the whole body. */
  signal: AbortSignal;
  /** Egress to loopback/private addresses is allowed for this backend. */
  allowPrivate?: boolean;
}

export interface BackendClientOptions {
  /** Default 2000 (RELIABILITY B5). */
  connectTimeoutMs?: number;
  /** Cap on decoded body bytes. Default 5 MiB. */
  maxResponseBytes?: number;
  /** Default 64. */
  maxJsonDepth?: number;
  /** Default 10 000. */
  maxArrayLength?: number;
  /** Decoded/encoded cap once past 1 MiB decoded. Default 100. */
  maxCompressionRatio?: number;
  /**
   * Name resolution, `dns.lookup` by default. The egress policy checks
   * whatever it answers; tests use it to resolve names without a network.
   */
  lookup?: LookupFunction;
}

export interface BackendClient {
  send(req: BackendRequest, opts: SendOptions): Promise<BackendResponse>;
  /** Closes pooled connections once in-flight calls settle. */
  close(): Promise<void>;
}

export const DEFAULTS = {
  connectTimeoutMs: 2000,
  maxResponseBytes: 5 * 1024 * 1024,
  maxJsonDepth: 64,
  maxArrayLength: 10_000,
  maxCompressionRatio: 100,
} as const;

/**
 * undici's own header/body timers only catch a caller that passed a signal
 * that never fires; the longest deadline a sculpt may set is 29 s (B5).
 */
const BACKSTOP_TIMEOUT_MS = 60_000;

function createAgent(
  connectTimeoutMs: number,
  allowPrivate: boolean,
  lookup: LookupFunction | undefined,
): Agent {
  return new Agent({
    connect: createConnector({ connectTimeoutMs, allowPrivate, lookup }),
    headersTimeout: BACKSTOP_TIMEOUT_MS,
    bodyTimeout: BACKSTOP_TIMEOUT_MS,
    // HTTP/1.1 only: abort-destroys-the-socket and the header cap are what
    // the tests pin down; HTTP/2 would need its own look.
    allowH2: false,
  });
}

function parseTarget(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch (err) {
    throw new SculptorError('internal', 'An internal error occurred.', { cause: err });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new SculptorError(
      'upstream.forbidden_address',
      'The backend address is not allowed by the egress policy.',
      {
        cause: new Error(`scheme ${url.protocol} refused`),
      },
    );
  }
  return url;
}

export function createBackendClient(options: BackendClientOptions = {}): BackendClient {
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULTS.connectTimeoutMs;
  const limits: ExchangeLimits = {
    body: {
      maxResponseBytes: options.maxResponseBytes ?? DEFAULTS.maxResponseBytes,
      maxCompressionRatio: options.maxCompressionRatio ?? DEFAULTS.maxCompressionRatio,
    },
    json: {
      maxDepth: options.maxJsonDepth ?? DEFAULTS.maxJsonDepth,
      maxArrayLength: options.maxArrayLength ?? DEFAULTS.maxArrayLength,
    },
  };
  // Two pools because allowPrivate is per request while a pooled socket is
  // per origin: a socket opened for an internal backend must never serve a
  // request that is subject to the policy.
  const publicOnly = createAgent(connectTimeoutMs, false, options.lookup);
  const anyAddress = createAgent(connectTimeoutMs, true, options.lookup);

  // Not async: the exchange's promise is the call's, not wrapped in one more.
  function send(req: BackendRequest, opts: SendOptions): Promise<BackendResponse> {
    const { signal } = opts;
    if (signal.aborted) return Promise.reject(toBackendError(signal.reason, signal));
    let url: URL;
    try {
      url = parseTarget(req.url);
    } catch (err) {
      return Promise.reject(err as Error);
    }
    const agent = opts.allowPrivate === true ? anyAddress : publicOnly;

    return exchange(
      agent,
      {
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: req.method as Dispatcher.HttpMethod,
        headers: req.headers,
        body: req.body ?? null,
      },
      signal,
      limits,
    );
  }

  async function close(): Promise<void> {
    await Promise.all([publicOnly.close(), anyAddress.close()]);
  }

  return { send, close };
}
