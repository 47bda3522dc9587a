import { type CallToolResult, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { SculptorError, toSculptorError } from '../../errors/sculptor-error.ts';
import { outputRecord } from '../../invoke/call-service.ts';
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
  /** Told the stable code when the answer is an `isError` result (the call's span records it). */
  failed?: (code: string) => void;
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
 * One `tools/call`, through the call service like every face's (admission, the caller's
 * audience, scopes and quota, the engine), answered as `structuredContent` (the outputs as one
 * object) plus the same JSON as text for clients that read only `content`. Tool outcomes are
 * `isError` results; an unknown tool or version is JSON-RPC -32602 (MCP_ERRORS).
 */
export async function callTool(
  options: McpToolsOptions,
  who: McpCaller,
  call: ToolCall,
): Promise<CallToolResult> {
  try {
    const progressToken = call.meta?.progressToken;
    const { outputs } = await options.calls.call({
      face: 'mcp',
      tool: { name: call.name },
      version: pinnedVersion(call.meta),
      party: who,
      signal: call.signal,
      arguments: () => call.args ?? {},
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
    });
    const structured = outputRecord(outputs);
    return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
  } catch (err) {
    // Cancelled: the SDK sends no response to a cancelled request, so there is no one to answer.
    if (call.signal.aborted) throw err;
    const answer = answerError(toSculptorError(err));
    call.failed?.((answer._meta?.[ERROR_META] as { code: string }).code);
    return answer;
  }
}

/** The version `_meta['io.sculptor/version']` pins (the A2T promise, kept on MCP); undefined: the current one. */
function pinnedVersion(meta: Readonly<Record<string, unknown>> | undefined): number | undefined {
  const pinned = meta?.[VERSION_META];
  if (pinned === undefined) return undefined;
  if (!(Number.isSafeInteger(pinned) && (pinned as number) >= 1)) {
    throw new SculptorError(
      'tool.version_not_found',
      `_meta['${VERSION_META}'] must be a version number (a positive integer); got ${JSON.stringify(pinned)}.`,
    );
  }
  return pinned as number;
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
