import type { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { type McpCaller, mcpServerFactory, type McpToolsOptions } from './mcp-server.ts';

export interface McpStdioOptions extends McpToolsOptions {
  /** Who the connection serves: stdio has no request headers, so the host decides once. */
  caller: McpCaller;
  onError?: (error: Error) => void;
}

export interface McpStdio {
  /** Tells the client the tool list changed (2025: `list_changed`; 2026: its listen streams). */
  catalogChanged(): void;
  close(): Promise<void>;
}

/**
 * The same tools over stdio (the process's stdin and stdout carry JSON-RPC; nothing else may
 * write to stdout): one connection, both eras — the SDK pins the instance its first message
 * asks for. A reload tells the pinned instance, which the SDK turns into an unsolicited
 * `notifications/tools/list_changed` (2025) or a notification on the client's listen streams
 * (2026). The SDK may also build a throw-away probe instance for `server/discover`; only
 * connected instances are told.
 */
export function serveMcpStdio(options: McpStdioOptions): McpStdio {
  const live = new Set<McpServer>();
  const factory = mcpServerFactory(options, () => options.caller);
  const handle = serveStdio(
    (rc) => {
      const mcp = factory(rc);
      live.add(mcp);
      mcp.server.onclose = () => live.delete(mcp);
      return mcp;
    },
    options.onError ? { onerror: options.onError } : {},
  );
  return {
    catalogChanged() {
      for (const mcp of live) if (mcp.isConnected()) mcp.sendToolListChanged();
    },
    close: () => handle.close(),
  };
}
