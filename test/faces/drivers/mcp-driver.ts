import { Client, SdkHttpError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { FaceDriver } from './face-driver.ts';

/**
 * The MCP face over Streamable HTTP (protocol 2026-07-28), through the official SDK client: one
 * client per gateway and token, kept until `close`. An `isError` result is the tool outcome whose
 * code `_meta['io.sculptor/error']` carries; a JSON-RPC error carries it in `data.code`; a refusal
 * before any message (401) in the JSON-RPC body the SDK reports with the HTTP error. MCP answers
 * outcomes without HTTP statuses, so `status` is undefined.
 */
const clients = new Map<string, Map<string, Promise<Client>>>();

function clientFor(gatewayUrl: string, token: string | undefined): Promise<Client> {
  let byToken = clients.get(gatewayUrl);
  if (!byToken) clients.set(gatewayUrl, (byToken = new Map()));
  const key = token ?? '';
  let client = byToken.get(key);
  if (!client) {
    client = (async () => {
      const c = new Client(
        { name: 'face-matrix', version: '1.0.0' },
        { versionNegotiation: { mode: { pin: '2026-07-28' } } },
      );
      const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
      await c.connect(
        new StreamableHTTPClientTransport(new URL(`${gatewayUrl}/mcp`), { requestInit: { headers } }),
      );
      return c;
    })();
    // A failed connection (401) is not kept: the next call tries again.
    client.catch(() => byToken.delete(key));
    byToken.set(key, client);
  }
  return client;
}

type ErrorOutcome = { actual: { error: { code: string; message: string } } };

/** The code of an error the SDK threw: JSON-RPC `data.code`, or the refusal body of an HTTP error. */
function thrown(err: unknown): ErrorOutcome {
  const e = err as { code?: unknown; message?: string; data?: Record<string, unknown> };
  const data = e.data ?? {};
  if (typeof data.code === 'string')
    return { actual: { error: { code: data.code, message: String(e.message) } } };
  if (err instanceof SdkHttpError || typeof data.status === 'number') {
    // The gateway's refusal body: {jsonrpc, error: {message, data: {code}}}.
    const body = typeof data.body === 'string' ? data.body : typeof data.text === 'string' ? data.text : '';
    const match = /"code":"([a-z_.]+)"/.exec(body ?? '') ?? /"code":"([a-z_.]+)"/.exec(String(e.message));
    if (match) return { actual: { error: { code: match[1]!, message: String(e.message) } } };
    if (data.status === 401)
      return { actual: { error: { code: 'auth.unauthenticated', message: String(e.message) } } };
  }
  throw err;
}

export const mcpDriver: FaceDriver = {
  name: 'mcp',
  async list(gatewayUrl, token) {
    const client = await clientFor(gatewayUrl, token);
    return (await client.listTools()).tools.map((t) => t.name);
  },
  async invoke(gatewayUrl, { tool, version, inputs, token }) {
    try {
      const client = await clientFor(gatewayUrl, token);
      const result = await client.callTool({
        name: tool,
        arguments: inputs,
        ...(version !== undefined ? { _meta: { 'io.sculptor/version': version } } : {}),
      });
      if (result.isError) {
        const meta = result._meta?.['io.sculptor/error'] as { code: string } | undefined;
        const text = (result.content as Array<{ type: string; text?: string }>).find(
          (c) => c.type === 'text',
        );
        return { actual: { error: { code: meta?.code ?? 'unknown', message: text?.text ?? '' } } };
      }
      return { actual: { outputs: (result.structuredContent ?? {}) as Record<string, unknown> } };
    } catch (err) {
      return thrown(err);
    }
  },
  async close(gatewayUrl) {
    const byToken = clients.get(gatewayUrl);
    clients.delete(gatewayUrl);
    for (const client of byToken?.values() ?? []) {
      await client.then((c) => c.close()).catch(() => undefined);
    }
  },
};
