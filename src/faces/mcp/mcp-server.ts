import {
  McpServer,
  type McpRequestContext,
  ProtocolError,
  ProtocolErrorCode,
} from '@modelcontextprotocol/server';
import type { ScopedCatalog } from '../../catalog/catalog.ts';
import type { PageCursors } from '../../catalog/page-cursor.ts';
import { toSculptorError } from '../../errors/sculptor-error.ts';
import type { CallParty, CallService } from '../../invoke/call-service.ts';
import { audienceOf } from '../../invoke/tool-audience.ts';
import { callTool } from './mcp-call.ts';
import { listPage, SEARCH_META } from './mcp-tools.ts';

/** What the server says of itself in `initialize` and `server/discover`. */
export const SERVER_INFO = { name: 'sculptor', title: 'Sculptor', version: '0.1.0' } as const;

/** Who one MCP request (HTTP) or connection (stdio) is from, as the host established it. */
export type McpCaller = CallParty;

/** A `tools/call` as telemetry sees it: names and ids only, never arguments. */
export interface McpCallInfo {
  name: string;
  requestId: string | number;
  /** The request's `_meta` (trace context may ride there: `traceparent`, `tracestate`). */
  meta: Readonly<Record<string, unknown>> | undefined;
}

/**
 * Runs one `tools/call` inside its span; given by the host (faces do not import telemetry). The
 * face tells it, through `failed`, the stable code of an answer that is an error (`isError`).
 */
export type McpCallTracer = <T>(
  call: McpCallInfo,
  run: (failed: (code: string) => void) => Promise<T>,
) => Promise<T>;

export interface McpToolsOptions {
  /** The catalog in force; read per request, so a reload swaps it atomically. */
  catalog: () => ScopedCatalog;
  /** Every `tools/call` goes through it: admission, look-up, scopes and quota, engine, report. */
  calls: CallService;
  cursors: PageCursors;
  traceCall?: McpCallTracer;
}

/**
 * The MCP server factory every host serves (HTTP per request, stdio per connection): a bare
 * McpServer shell whose `tools/list` and `tools/call` are answered from the catalog in force and
 * the engine. No tool is registered with the SDK (its registry is static and zod-typed); the
 * SDK handles the protocol — eras, envelope, `server/discover`, `subscriptions/listen`, cache
 * hints — and Sculptor the tools. `callerOf` says who the instance serves.
 */
export function mcpServerFactory(
  options: McpToolsOptions,
  callerOf: (rc: McpRequestContext) => McpCaller,
): (rc: McpRequestContext) => McpServer {
  return (rc) => {
    const who = callerOf(rc);
    const mcp = new McpServer(SERVER_INFO, {
      capabilities: { tools: { listChanged: true } },
      // 2026-07-28 clients may keep a listing this long; a reload tells them sooner (list_changed).
      // Private: what a caller is shown depends on its tenant and scopes.
      cacheHints: {
        'tools/list': { ttlMs: 60_000, cacheScope: 'private' },
        'server/discover': { ttlMs: 60_000, cacheScope: 'public' },
      },
      instructions:
        'Tools sculpted from REST APIs. Each tool states its effects in its description and annotations; ' +
        "a failed call answers isError with a detail written for you and a stable code in _meta['io.sculptor/error'].",
    });
    mcp.server.setRequestHandler('tools/list', (request) => {
      try {
        const query = request.params?._meta?.[SEARCH_META];
        return listPage(
          options.catalog(),
          audienceOf(who.caller),
          options.cursors,
          request.params?.cursor,
          typeof query === 'string' ? query : undefined,
        );
      } catch (err) {
        const error = toSculptorError(err);
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, error.message, { code: error.code });
      }
    });
    mcp.server.setRequestHandler('tools/call', (request, ctx) => {
      const { name, arguments: args, _meta: meta } = request.params;
      const run = (failed?: (code: string) => void) =>
        callTool(options, who, {
          name,
          args,
          meta: ctx.mcpReq._meta,
          signal: ctx.mcpReq.signal,
          notify: (notification) => ctx.mcpReq.notify(notification),
          ...(failed ? { failed } : {}),
        });
      return options.traceCall ? options.traceCall({ name, requestId: ctx.mcpReq.id, meta }, run) : run();
    });
    return mcp;
  };
}
