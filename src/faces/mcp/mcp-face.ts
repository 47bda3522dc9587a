import type { AuthInfo, McpHttpHandler } from '@modelcontextprotocol/server';
import { type Context, Hono } from 'hono';
import { bearerChallenge } from '../../callers/authenticate.ts';
import type { CallerDirectory } from '../../callers/load-callers.ts';
import { protectedResourceMetadata } from '../../callers/protected-resource.ts';
import { SculptorError, toSculptorError } from '../../errors/sculptor-error.ts';
import type { StreamAdmission } from '../../invoke/call-service.ts';
import { answering, type Face } from '../common/face.ts';
import { readJsonBody } from '../common/read-json-body.ts';
import { requestCaller, requestParty } from '../common/request-caller.ts';
import type { legacyJsonAnswerer } from './legacy-json-answer.ts';
import type { McpCaller, McpToolsOptions } from './mcp-server.ts';

/** A JSON-RPC message (or batch) is small; tool arguments are capped like A2T's invocation body. */
export const MAX_MCP_BODY_BYTES = 64 * 1024;

const RESOURCE_METADATA = '/.well-known/oauth-protected-resource';

export interface McpFaceOptions extends McpToolsOptions {
  /** The platform root the endpoint sits under: `{prefix}/mcp`. */
  prefix?: string;
  /** The callers file in force (read per request); absent: the anonymous caller of one tenant. */
  callers?: () => CallerDirectory | undefined;
  /** The server's cap on one caller's long-lived streams: each `subscriptions/listen` holds a slot while open. */
  admitStream?: StreamAdmission;
  /** Listen streams the whole endpoint holds open at once (the SDK answers past it). */
  maxStreams?: number;
  onError?: (error: Error) => void;
}

/** The MCP face over HTTP: a reload tells listening clients (`subscriptions/listen`) the tool list changed. */
export interface McpFace extends Face {
  catalogChanged(): void;
  close(): Promise<void>;
}

/**
 * MCP Streamable HTTP at `{prefix}/mcp`: protocol 2026-07-28 (stateless, per-request `_meta`
 * envelope) and the 2025-11-25 / 2025-06-18 revisions (the `initialize` handshake), served by
 * the SDK's `createMcpHandler`. 2025-era requests are served statelessly, one instance per
 * request, as the SDK does by default: no `Mcp-Session-Id`, GET and DELETE answer 405, so a
 * 2025 client gets no `list_changed` push over HTTP and its `notifications/cancelled` cannot
 * reach the call (closing the request does). Sessions would need sticky routing across
 * replicas; 2026 clients have neither limit (README, "Use it from an agent"). A 2025-era request
 * that nothing can precede (no batch, no `progressToken`) is answered with one JSON body rather
 * than the fallback's event stream (legacy-json-answer.ts).
 *
 * This file is the HTTP edge only — the caller, the counted body, the listen-stream slot (the
 * server checks Host and Origin before any face) — and the tools
 * are the factory's (mcp-server.ts), the same one stdio serves. It is wired by hand as the SDK's
 * Hono guide shows (`createMcpHandler`'s `fetch` on `c.req.raw`), without the
 * `@modelcontextprotocol/hono` adapter: its parts are a body parser (4 MiB, a plain-text 400) and
 * Host/Origin validators, which would duplicate the counted body and the server's own rule.
 */
export function createMcpFace(options: McpFaceOptions): McpFace {
  const prefix = options.prefix ?? '';
  const endpoint = `${prefix}/mcp`;
  // The SDK (with zod) is loaded by the first MCP request: ≈ 13 MB of memory that a gateway whose
  // agents speak A2T alone never needs.
  let loading: Promise<McpHandlers> | undefined;
  // Once loaded, read as a value: every request after the first is spared an await.
  let loaded: McpHandlers | undefined;
  const handlers = (): Promise<McpHandlers> =>
    (loading ??= loadHandlers(options).then(
      (h) => (loaded = h),
      (err: unknown) => {
        loading = undefined; // a later request tries again
        throw err;
      },
    ));

  const resourceMetadata = async (c: Context) => {
    const directory = options.callers?.();
    if (!directory) throw new SculptorError('request.not_found', 'This gateway takes no bearer tokens.');
    const resource = `${new URL(c.req.url).origin}${endpoint}`;
    return c.json(protectedResourceMetadata(directory, resource));
  };

  /** A refusal before any JSON-RPC message is handled: the code's status, a JSON-RPC error body. */
  const refuse = (c: Context, error: SculptorError, id: string | number | null = null): Response => {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'cache-control': 'no-store',
    };
    const origin = new URL(c.req.url).origin;
    const challenge = bearerChallenge(error, `${origin}${RESOURCE_METADATA}${endpoint}`);
    if (challenge) headers['www-authenticate'] = challenge;
    if (error.retryAfter !== undefined) headers['retry-after'] = String(Math.ceil(error.retryAfter));
    const code =
      error.code === 'request.malformed'
        ? -32700
        : error.code === 'request.host_not_allowed'
          ? -32000 // as the SDK's own Host/Origin validators answer
          : error.status >= 500
            ? -32603
            : -32600;
    const body = {
      jsonrpc: '2.0',
      id,
      error: { code, message: error.message, data: { code: error.code, retryable: error.retryable } },
    };
    return new Response(JSON.stringify(body), { status: error.status, headers });
  };

  // Each route answers its own errors (`answering`): an `app.onError` costs a compose per request (face.ts).
  const app = new Hono();
  app.all(
    endpoint,
    answering(async (c) => {
      const found = requestCaller(c, options.callers?.());
      const caller = found instanceof Promise ? await found : found;
      // Sculptor reads and counts the body itself (the SDK's own read has no cap once handed one).
      const parsedBody =
        c.req.method === 'POST'
          ? await readJsonBody(c, MAX_MCP_BODY_BYTES, 'the JSON-RPC message')
          : undefined;
      // Each `tools/call` of the request — every call of a JSON-RPC batch on its own — goes through
      // the call service with this party, so a batch is admitted exactly as that many single calls.
      const who: McpCaller = requestParty(c, caller);
      // authInfo is the SDK's pass-through slot for who a request is from; the token itself stays here.
      const authInfo: AuthInfo = { token: '', clientId: caller.name, scopes: [], extra: { [CALLER]: who } };
      const listen = options.admitStream ? listenRequest(parsedBody) : undefined;
      if (listen === undefined) {
        const { entry, answerAlone } = loaded ?? (await handlers());
        const request = c.req.raw;
        const alone = answerAlone(request, { authInfo, parsedBody });
        return (alone && (await alone)) ?? entry.fetch(request, { authInfo, parsedBody });
      }
      let release: () => void;
      try {
        release = options.admitStream!(who);
      } catch (err) {
        return refuse(c, toSculptorError(err), listen.id);
      }
      let answer: Response;
      try {
        answer = await (loaded ?? (await handlers())).entry.fetch(c.req.raw, { authInfo, parsedBody });
      } catch (err) {
        release();
        throw err;
      }
      return heldWhileOpen(answer, release);
    }, refuse),
  );
  const metadata = answering(resourceMetadata, refuse);
  app.get(RESOURCE_METADATA, metadata);
  app.get(`${RESOURCE_METADATA}${endpoint}`, metadata);

  return {
    name: 'mcp',
    app,
    routeOf(path) {
      if (path === endpoint) return endpoint;
      if (path === RESOURCE_METADATA || path === `${RESOURCE_METADATA}${endpoint}`) return path;
      return undefined;
    },
    refuse,
    // Before the first MCP request there is no listener to tell, nor anything to close.
    catalogChanged: () =>
      void loading?.then(
        (h) => h.entry.notify.toolsChanged(),
        () => {},
      ),
    close: async () => (await loading?.catch(() => undefined))?.entry.close(),
  };
}

/** The SDK's entry, and the 2025-era requests answered with one JSON body (legacy-json-answer.ts). */
interface McpHandlers {
  entry: McpHttpHandler;
  answerAlone: ReturnType<typeof legacyJsonAnswerer>;
}

async function loadHandlers(options: McpFaceOptions): Promise<McpHandlers> {
  const [{ createMcpHandler }, { mcpServerFactory }, { legacyJsonAnswerer }] = await Promise.all([
    import('@modelcontextprotocol/server'),
    import('./mcp-server.ts'),
    import('./legacy-json-answer.ts'),
  ]);
  const factory = mcpServerFactory(options, (rc) => callerOfRequest(rc.authInfo));
  const entry = createMcpHandler(factory, {
    legacy: 'stateless',
    ...(options.maxStreams !== undefined ? { maxSubscriptions: options.maxStreams } : {}),
    ...(options.onError ? { onerror: options.onError } : {}),
  });
  return { entry, answerAlone: legacyJsonAnswerer(factory) };
}

const CALLER = 'io.sculptor/caller';

function callerOfRequest(authInfo: AuthInfo | undefined): McpCaller {
  const who = authInfo?.extra?.[CALLER] as McpCaller | undefined;
  // Every request passes the route above, which sets it; anything else is a bug, not a caller.
  if (!who) throw new SculptorError('internal', 'An MCP request reached the server without its caller.');
  return who;
}

/** The message when it opens a listen stream (`subscriptions/listen`, the 2026-07-28 wire), else undefined. */
function listenRequest(body: unknown): { id: string | number | null } | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const message = body as { method?: unknown; id?: unknown };
  if (message.method !== 'subscriptions/listen') return undefined;
  return { id: typeof message.id === 'string' || typeof message.id === 'number' ? message.id : null };
}

/**
 * The answer, with `release` called once it is over: at once for a plain answer (a refusal, an
 * error), when the stream ends or the client goes away for an event stream.
 */
function heldWhileOpen(answer: Response, release: () => void): Response {
  const body = answer.body;
  if (!body || !(answer.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    release();
    return answer;
  }
  const reader = body.getReader();
  const held = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          release();
          controller.close();
        } else controller.enqueue(value);
      } catch (err) {
        release();
        controller.error(err);
      }
    },
    cancel(reason) {
      release();
      return reader.cancel(reason);
    },
  });
  return new Response(held, { status: answer.status, headers: answer.headers });
}
