import {
  type AuthInfo,
  createMcpHandler,
  localhostAllowedHostnames,
  type McpHttpHandler,
  validateHostHeader,
  validateOriginHeader,
} from '@modelcontextprotocol/server';
import { type Context, Hono } from 'hono';
import { bearerChallenge } from '../../callers/authenticate.ts';
import type { CallerDirectory } from '../../callers/load-callers.ts';
import { protectedResourceMetadata } from '../../callers/protected-resource.ts';
import { SculptorError, toSculptorError } from '../../errors/sculptor-error.ts';
import type { Face, InvocationGate } from '../shared/face.ts';
import { readJsonBody } from '../shared/read-json-body.ts';
import { invocationCaller, requestCaller } from '../shared/request-caller.ts';
import { type McpCaller, mcpServerFactory, type McpToolsOptions } from './mcp-server.ts';

/** A JSON-RPC message (or batch) is small; tool arguments are capped like A2T's invocation body. */
export const MAX_MCP_BODY_BYTES = 64 * 1024;

const RESOURCE_METADATA = '/.well-known/oauth-protected-resource';

export interface McpFaceOptions extends McpToolsOptions {
  /** The platform root the endpoint sits under: `{prefix}/mcp`. */
  prefix?: string;
  /** The callers file in force (read per request); absent: the anonymous caller of one tenant. */
  callers?: () => CallerDirectory | undefined;
  /** The server's admission of invocations; an MCP request is one when it is a `tools/call`. */
  admit?: InvocationGate;
  /**
   * Host names (DNS rebinding protection) a request's `Host` and `Origin` may name besides the
   * loopback ones. Unset: `Origin`, when sent, must be a loopback one; `Host` is checked only when
   * the gateway listens on loopback (`loopbackOnly`), since a deployment is reached by names only
   * its operator knows.
   */
  allowedHosts?: readonly string[];
  loopbackOnly?: boolean;
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
 * replicas; 2026 clients have neither limit (README, "Use it from an agent").
 *
 * This file is the HTTP edge only — Host/Origin, the caller, the counted body — and the tools
 * are the factory's (mcp-server.ts), the same one stdio serves. It is wired by hand as the SDK's
 * Hono guide shows (`createMcpHandler`'s `fetch` on `c.req.raw`), without the
 * `@modelcontextprotocol/hono` adapter: its parts are a body parser (4 MiB, a plain-text 400) and
 * the same Host/Origin validators, which would duplicate the counted body and the checks here.
 */
export function createMcpFace(options: McpFaceOptions): McpFace {
  const prefix = options.prefix ?? '';
  const endpoint = `${prefix}/mcp`;
  const extra = options.allowedHosts ?? [];
  const origins = [...localhostAllowedHostnames(), ...extra];
  const hosts = extra.length > 0 || options.loopbackOnly ? origins : undefined;
  // The SDK's check parses the header as a URL; clients send the same few Host values, so each
  // verdict is kept (a bounded number of them: a scanner sending many is answered, not cached).
  const hostVerdicts = new Map<string, boolean>();
  const hostAllowed = (host: string | undefined): boolean => {
    if (host === undefined) return validateHostHeader(host, hosts!).ok;
    let ok = hostVerdicts.get(host);
    if (ok === undefined) {
      ok = validateHostHeader(host, hosts!).ok;
      if (hostVerdicts.size < 64) hostVerdicts.set(host, ok);
    }
    return ok;
  };

  const handler: McpHttpHandler = createMcpHandler(
    mcpServerFactory(options, (rc) => callerOfRequest(rc.authInfo)),
    { legacy: 'stateless', ...(options.onError ? { onerror: options.onError } : {}) },
  );

  const app = new Hono();
  app.all(endpoint, async (c) => {
    // DNS rebinding (MCP transports, "Security Warning"): a page on another site must not reach
    // a local gateway through the browser.
    if (hosts && !hostAllowed(c.req.header('host'))) {
      return forbidden(
        'The Host header names a host this gateway does not serve (DNS rebinding protection). ' +
          `If clients reach the gateway by that name, add it to ${ALLOWED_HOSTS_SETTING} (comma-separated host names).`,
      );
    }
    if (!validateOriginHeader(c.req.header('origin'), origins).ok) {
      return forbidden(
        'Requests from this Origin are not allowed (DNS rebinding protection). ' +
          `If a browser-based client on that origin should reach the gateway, add its host name to ${ALLOWED_HOSTS_SETTING}.`,
      );
    }
    const caller = await requestCaller(c, options.callers?.());
    // Sculptor reads and counts the body itself (the SDK's own read has no cap once handed one).
    const parsedBody =
      c.req.method === 'POST' ? await readJsonBody(c, MAX_MCP_BODY_BYTES, 'the JSON-RPC message') : undefined;
    const who: McpCaller = {
      caller,
      engine: invocationCaller(c, caller),
      ...(options.admit && isToolCall(parsedBody) ? { admit: () => options.admit!(c) } : {}),
    };
    // authInfo is the SDK's pass-through slot for who a request is from; the token itself stays here.
    const authInfo: AuthInfo = { token: '', clientId: caller.name, scopes: [], extra: { [CALLER]: who } };
    return handler.fetch(c.req.raw, { authInfo, parsedBody });
  });
  app.get(RESOURCE_METADATA, (c) => resourceMetadata(c));
  app.get(`${RESOURCE_METADATA}${endpoint}`, (c) => resourceMetadata(c));
  app.onError((err, c) => refuse(c, toSculptorError(err)));

  const resourceMetadata = (c: Context) => {
    const directory = options.callers?.();
    if (!directory) throw new SculptorError('request.not_found', 'This gateway takes no bearer tokens.');
    const resource = `${new URL(c.req.url).origin}${endpoint}`;
    return c.json(protectedResourceMetadata(directory, resource));
  };

  /** A refusal before any JSON-RPC message is handled: the code's status, a JSON-RPC error body. */
  const refuse = (c: Context, error: SculptorError): Response => {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'cache-control': 'no-store',
    };
    const origin = new URL(c.req.url).origin;
    const challenge = bearerChallenge(error, `${origin}${RESOURCE_METADATA}${endpoint}`);
    if (challenge) headers['www-authenticate'] = challenge;
    if (error.retryAfter !== undefined) headers['retry-after'] = String(Math.ceil(error.retryAfter));
    const code = error.code === 'request.malformed' ? -32700 : error.status >= 500 ? -32603 : -32600;
    const body = {
      jsonrpc: '2.0',
      id: null,
      error: { code, message: error.message, data: { code: error.code, retryable: error.retryable } },
    };
    return new Response(JSON.stringify(body), { status: error.status, headers });
  };

  return {
    name: 'mcp',
    app,
    routeOf(path) {
      if (path === endpoint) return endpoint;
      if (path === RESOURCE_METADATA || path === `${RESOURCE_METADATA}${endpoint}`) return path;
      return undefined;
    },
    refuse,
    catalogChanged: () => handler.notify.toolsChanged(),
    close: () => handler.close(),
  };
}

const CALLER = 'io.sculptor/caller';

/** The setting (config/settings.ts) that fills `allowedHosts`, named in the 403 so an operator knows what to set. */
const ALLOWED_HOSTS_SETTING = 'SCULPTOR_MCP_ALLOWED_HOSTS';

/** Host or Origin refused: 403 with a JSON-RPC error, as the SDK's own validators answer. */
function forbidden(message: string): Response {
  const body = { jsonrpc: '2.0', id: null, error: { code: -32000, message } };
  return new Response(JSON.stringify(body), { status: 403, headers: { 'content-type': 'application/json' } });
}

function callerOfRequest(authInfo: AuthInfo | undefined): McpCaller {
  const who = authInfo?.extra?.[CALLER] as McpCaller | undefined;
  // Every request passes the route above, which sets it; anything else is a bug, not a caller.
  if (!who) throw new SculptorError('internal', 'An MCP request reached the server without its caller.');
  return who;
}

/** Whether a JSON-RPC message is a `tools/call` (an invocation, which the server's gate admits). */
function isToolCall(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as { method?: unknown }).method === 'tools/call';
}
