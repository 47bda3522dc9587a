import { type CallToolResult, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { Catalog, ToolAudience } from '../../catalog/catalog.ts';
import type { CompiledTool } from '../../compile/compile-tool.ts';
import { toolIdFor } from '../../compile/tool-signature.ts';
import { SculptorError, toSculptorError } from '../../errors/sculptor-error.ts';
import { admitInvocation, audienceOf } from '../shared/request-caller.ts';
import { MCP_ERRORS } from './mcp-errors.ts';
import type { McpCaller, McpToolsOptions } from './mcp-server.ts';
import { ERROR_META, VERSION_META } from './mcp-tools.ts';

export interface ToolCall {
  name: string;
  args: Readonly<Record<string, unknown>> | undefined;
  /** The request's `_meta`; `io.sculptor/version` pins a version (the A2T promise, kept on MCP). */
  meta: Readonly<Record<string, unknown>> | undefined;
  /** Aborted by MCP cancellation: `notifications/cancelled`, or the HTTP request closing. */
  signal: AbortSignal;
  /** Sends a notification related to this request (progress, when the client asked for it). */
  notify: (notification: { method: 'notifications/progress'; params: ProgressParams }) => Promise<void>;
}

type ProgressParams = {
  progressToken: string | number;
  progress: number;
  total: number;
  message: string;
};

/**
 * One `tools/call`: admitted like every invocation (the host's gate, the caller's scopes and
 * quota), run by the engine (its validation, deadline, cache and telemetry), answered as
 * `structuredContent` (the outputs as one object) plus the same JSON as text for clients that
 * read only `content`. Tool outcomes are `isError` results; an unknown tool or version is
 * JSON-RPC -32602 (MCP_ERRORS).
 */
export async function callTool(
  options: McpToolsOptions,
  who: McpCaller,
  call: ToolCall,
): Promise<CallToolResult> {
  let release: (() => void) | undefined;
  try {
    release = await who.admit?.();
    const tool = findTool(options.catalog(), audienceOf(who.caller), call);
    await admitInvocation(who.caller, tool, options.quotas);
    const progressToken = call.meta?.progressToken;
    const result = await options.engine.invoke(tool, call.args ?? {}, {
      signal: call.signal,
      caller: who.engine,
      // A client that sent a progressToken hears of each finished step (MCP progress utility).
      ...(typeof progressToken === 'string' || typeof progressToken === 'number'
        ? {
            onProgress: (done: number, total: number) =>
              void call
                .notify({
                  method: 'notifications/progress',
                  params: { progressToken, progress: done, total, message: `${done} of ${total} steps done` },
                })
                .catch(() => undefined),
          }
        : {}),
      ...(options.onInvocation ? { onReport: options.onInvocation } : {}),
    });
    const structured: Record<string, unknown> = {};
    for (const output of result.outputs) structured[output.name] = output.value;
    return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
  } catch (err) {
    // Cancelled: the SDK sends no response to a cancelled request, so there is no one to answer.
    if (call.signal.aborted) throw err;
    return answerError(toSculptorError(err));
  } finally {
    release?.();
  }
}

/** The tool by its MCP name (the A2T name), current or pinned by `_meta['io.sculptor/version']`. */
function findTool(catalog: Catalog, audience: ToolAudience, call: ToolCall): CompiledTool {
  const pinned = call.meta?.[VERSION_META];
  if (pinned !== undefined && !(Number.isSafeInteger(pinned) && (pinned as number) >= 1)) {
    throw new SculptorError(
      'tool.version_not_found',
      `_meta['${VERSION_META}'] must be a version number (a positive integer); got ${JSON.stringify(pinned)}.`,
    );
  }
  try {
    // The id is a hash of the name: the catalog's name index spares computing it per call.
    const toolId = catalog.named(call.name)?.toolId ?? toolIdFor(call.name);
    return pinned === undefined
      ? catalog.find(audience, toolId).current
      : catalog.findVersion(audience, toolId, pinned as number);
  } catch (err) {
    const error = toSculptorError(err);
    // The catalog speaks of ids; an MCP client sent a name.
    if (error.code === 'tool.not_found')
      throw new SculptorError('tool.not_found', `Unknown tool: ${call.name}.`);
    throw error;
  }
}

const HIDDEN_DETAIL = 'The gateway failed to serve this call; its operator can read why in the logs.';

/** A tool outcome as an `isError` result, or a protocol error as JSON-RPC (MCP_ERRORS). */
function answerError(error: SculptorError): CallToolResult {
  const answer = MCP_ERRORS[error.code];
  if (answer === 'invalid-params') {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, error.message, { code: error.code });
  }
  const detail = answer === 'never' ? HIDDEN_DETAIL : error.message;
  const problems = answer !== 'never' && error.problems ? { problems: error.problems } : {};
  return {
    isError: true,
    content: [{ type: 'text', text: detail }],
    _meta: {
      [ERROR_META]: {
        code: answer === 'never' ? 'internal' : error.code,
        retryable: error.retryable,
        ...(error.retryAfter !== undefined ? { retryAfter: error.retryAfter } : {}),
        ...problems,
      },
    },
  };
}
