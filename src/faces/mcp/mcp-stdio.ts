import {
  type JSONRPCMessage,
  type McpServer,
  STDIO_DEFAULT_MAX_BUFFER_SIZE,
} from '@modelcontextprotocol/server';
import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { type McpCaller, mcpServerFactory, type McpToolsOptions } from './mcp-server.ts';
import { type RefusedLine, refusalAnswer, StdioLineGuard } from './stdio-lines.ts';

export interface McpStdioOptions extends McpToolsOptions {
  /** Who the connection serves: stdio has no request headers, so the host decides once. */
  caller: McpCaller;
  onError?: (error: Error) => void;
  /** A line of stdin that was not a JSON-RPC message, answered with a JSON-RPC error and skipped. */
  onRefusedLine?: (refusal: RefusedLine) => void;
}

/** The longest line read: the SDK transport's own buffer bound, less the newline. */
const MAX_LINE_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE - 1;

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
  // stdin reaches the SDK's transport through the line guard: a line that is not a message is
  // answered and skipped there, never allowed to close the connection (stdio-lines.ts).
  const lines = new StdioLineGuard(MAX_LINE_BYTES, (refusal) => {
    options.onRefusedLine?.(refusal);
    // The answer's id is null, which the SDK's message type does not spell; the wire form is JSON-RPC's.
    wire.send(refusalAnswer(refusal, MAX_LINE_BYTES) as JSONRPCMessage).catch(() => {});
  });
  const forwardError = (err: Error): void => void lines.destroy(err);
  process.stdin.on('error', forwardError);
  process.stdin.pipe(lines);
  const wire = new StdioServerTransport(lines, process.stdout);
  const handle = serveStdio(
    (rc) => {
      const mcp = factory(rc);
      live.add(mcp);
      mcp.server.onclose = () => live.delete(mcp);
      return mcp;
    },
    { transport: wire, ...(options.onError ? { onerror: options.onError } : {}) },
  );
  return {
    catalogChanged() {
      for (const mcp of live) if (mcp.isConnected()) mcp.sendToolListChanged();
    },
    async close() {
      await handle.close();
      // As the SDK's transport does with the stdin it reads: nothing left holds the process open.
      process.stdin.unpipe(lines);
      process.stdin.off('error', forwardError);
      process.stdin.pause();
    },
  };
}
