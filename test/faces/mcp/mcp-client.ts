/**
 * The official MCP client (@modelcontextprotocol/client) as the tests use it: a real client over
 * real HTTP or stdio, in one of the protocol revisions Sculptor serves.
 */
import { Client, type ClientOptions, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

export type Revision = '2026-07-28' | '2025-11-25' | '2025-06-18';
export const REVISIONS: readonly Revision[] = ['2026-07-28', '2025-11-25', '2025-06-18'];

export function clientOptions(revision: Revision, extra: ClientOptions = {}): ClientOptions {
  return revision === '2026-07-28'
    ? { versionNegotiation: { mode: { pin: '2026-07-28' } }, ...extra }
    : // A 2025 client offers the first pre-2026 revision of this list in `initialize`.
      { supportedProtocolVersions: [revision], ...extra };
}

export async function httpClient(
  url: string,
  revision: Revision,
  { token, ...extra }: ClientOptions & { token?: string } = {},
): Promise<Client> {
  const client = new Client({ name: 'sculptor-test', version: '1.0.0' }, clientOptions(revision, extra));
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

/** `node src/cli/main.ts mcp DIR` as a child process (Node 24: the one running the tests). */
export async function stdioClient(
  dir: string,
  revision: Revision,
  env: Record<string, string>,
  extra: ClientOptions = {},
): Promise<{ client: Client; stderr: () => string; pid: number | undefined }> {
  const client = new Client({ name: 'sculptor-test', version: '1.0.0' }, clientOptions(revision, extra));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['src/cli/main.ts', 'mcp', dir],
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  await client.connect(transport);
  return { client, stderr: () => stderr, pid: transport.pid ?? undefined };
}
