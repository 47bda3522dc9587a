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
 * undici `request()` (not `fetch`) is used: it follows no redirects, adds no
 * headers of its own beyond HTTP/1.1 framing (host, content-length,
 * connection), and does not decode bodies behind our back.
 */
import { Agent, type Dispatcher } from 'undici';
import { SculptorError } from '../errors/sculptor-error.ts';
import { bodyKind, decodeBody, mediaType } from './decode-body.ts';
import { createConnector, type LookupFunction } from './egress-policy.ts';
import { toBackendError } from './map-error.ts';
import { readBody } from './read-body.ts';
import { filterResponseHeaders } from './response-headers.ts';

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

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/** Drops a body we will not read. Destroying it without a reason makes undici emit an AbortError: swallow it. */
function discard(stream: Dispatcher.ResponseData['body']): void {
  stream.on('error', () => {});
  stream.destroy();
}

/**
 * undici acts on an abort only once the request has a connection: while a
 * connect is pending (a blackholed SYN) it just records the reason and
 * waits for the connect timeout. This settles at the deadline instead; undici
 * then drops the request unsent when the connection resolves, and the
 * half-open connect ends at connectTimeoutMs.
 */
function untilAborted(
  pending: Promise<Dispatcher.ResponseData>,
  signal: AbortSignal,
): Promise<Dispatcher.ResponseData> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const onAbort = (): void => {
      settled = true;
      reject(signal.reason);
    };
    // A signal aborts once, and both outcomes below remove the listener: no `once` to parse.
    signal.addEventListener('abort', onAbort);
    pending.then(
      (response) => {
        signal.removeEventListener('abort', onAbort);
        // Lost the race to the deadline: nobody will read this body.
        if (settled) return discard(response.body);
        resolve(response);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
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
  const bodyLimits = {
    maxResponseBytes: options.maxResponseBytes ?? DEFAULTS.maxResponseBytes,
    maxCompressionRatio: options.maxCompressionRatio ?? DEFAULTS.maxCompressionRatio,
  };
  const jsonLimits = {
    maxDepth: options.maxJsonDepth ?? DEFAULTS.maxJsonDepth,
    maxArrayLength: options.maxArrayLength ?? DEFAULTS.maxArrayLength,
  };
  // Two pools because allowPrivate is per request while a pooled socket is
  // per origin: a socket opened for an internal backend must never serve a
  // request that is subject to the policy.
  const publicOnly = createAgent(connectTimeoutMs, false, options.lookup);
  const anyAddress = createAgent(connectTimeoutMs, true, options.lookup);

  async function send(req: BackendRequest, opts: SendOptions): Promise<BackendResponse> {
    const { signal } = opts;
    if (signal.aborted) throw toBackendError(signal.reason, signal);
    const url = parseTarget(req.url);
    const agent = opts.allowPrivate === true ? anyAddress : publicOnly;

    let response: Dispatcher.ResponseData;
    try {
      response = await untilAborted(
        agent.request({
          origin: url.origin,
          path: `${url.pathname}${url.search}`,
          method: req.method as Dispatcher.HttpMethod,
          headers: req.headers,
          body: req.body ?? null,
          signal,
        }),
        signal,
      );
    } catch (err) {
      throw toBackendError(err, signal);
    }

    const { statusCode: status, body: stream } = response;
    try {
      if (status >= 300 && status < 400) {
        // Reading the rest would be wasted; destroying closes the socket.
        discard(stream);
        throw new SculptorError('upstream.redirect', `The backend answered with a redirect (${status}).`);
      }
      const headers = filterResponseHeaders(response.headers);
      // Framing comes from the raw headers: a backend naming Content-Type in
      // `Connection` hides it from the caller, not from the decoder.
      const rawContentType = single(response.headers['content-type']) ?? '';
      const contentType = mediaType(rawContentType);
      const keep = bodyKind(contentType) !== 'none' && status !== 204 && req.method.toUpperCase() !== 'HEAD';
      const encoding = single(response.headers['content-encoding']);
      const { data, bytes } = await readBody(stream, encoding, bodyLimits, keep, signal);
      const body = decodeBody(data, rawContentType, jsonLimits);
      return { status, headers, contentType, body, bytes };
    } catch (err) {
      discard(stream);
      throw toBackendError(err, signal);
    }
  }

  async function close(): Promise<void> {
    await Promise.all([publicOnly.close(), anyAddress.close()]);
  }

  return { send, close };
}
