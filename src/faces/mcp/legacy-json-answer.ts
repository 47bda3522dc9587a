import {
  type AuthInfo,
  isLegacyRequest,
  type McpRequestContext,
  type McpServer,
  PROTOCOL_VERSION_META_KEY,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';

export interface AnswerOptions {
  authInfo: AuthInfo;
  parsedBody: unknown;
}

/**
 * 2025-era requests answered with one JSON body where nothing can be sent before the answer.
 *
 * The SDK's stateless fallback answers every 2025-era request with an event stream, which a
 * request needs when the server may send something before its answer (progress, when the client
 * sent a `progressToken`), and which costs every other request two web streams piped into each
 * other and chunked framing: ≈ a fifth of a 2025-era `tools/call`'s CPU. Streamable HTTP lets
 * the server answer a POST either way and every 2025 client accepts both, so a single request
 * without a `progressToken` is served here, by the SDK's own transport with `enableJsonResponse`,
 * exactly as the fallback serves it otherwise: a fresh server from the same factory, stateless,
 * torn down when the answer is written or the client goes away (`initialize` and `tools/list`
 * included). Everything else — batches, notifications, calls asking for progress, GET and DELETE —
 * goes to the SDK's entry.
 *
 * The answer, or undefined when the request is not one of these: the caller hands it to the entry.
 */
export function legacyJsonAnswerer(
  factory: (rc: McpRequestContext) => McpServer,
): (request: Request, options: AnswerOptions) => Promise<Response | undefined> | undefined {
  return (request, options) => {
    if (!answeredAlone(options.parsedBody)) return undefined;
    // The SDK's own classification decides the era, exactly as its entry would.
    return isLegacyRequest(request, options.parsedBody).then((legacy) =>
      legacy ? answer(factory, request, options) : undefined,
    );
  };
}

/** One JSON-RPC request (not a batch, not a notification) that asks for no progress and claims no 2026 envelope. */
function answeredAlone(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const message = body as { id?: unknown; method?: unknown; params?: { _meta?: Record<string, unknown> } };
  if (typeof message.method !== 'string' || message.id === undefined) return false;
  const meta = message.params?._meta;
  // The 2026-07-28 envelope's claim: a request carrying it is never 2025-era.
  return (
    meta === undefined || (meta.progressToken === undefined && meta[PROTOCOL_VERSION_META_KEY] === undefined)
  );
}

async function answer(
  factory: (rc: McpRequestContext) => McpServer,
  request: Request,
  options: AnswerOptions,
): Promise<Response> {
  const server = factory({ era: 'legacy', authInfo: options.authInfo, requestInfo: request });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  // Closing the server aborts the call's signal: a client that hangs up cancels its call.
  const teardown = () => {
    transport.close().catch(() => {});
    server.close().catch(() => {});
  };
  const signal = request.signal;
  return new Promise<Response>((resolve, reject) => {
    // A closed transport never settles a pending JSON answer: the client that went away gets none.
    const gone = () => {
      teardown();
      resolve(new Response(null, { status: 499 }));
    };
    // A client gone while the request was classified: an abort listener added now would never fire.
    if (signal.aborted) return gone();
    signal.addEventListener('abort', gone);
    transport.handleRequest(request, options).then(
      (response) => {
        signal.removeEventListener('abort', gone);
        teardown();
        resolve(response);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', gone);
        teardown();
        reject(err);
      },
    );
  });
}
