/**
 * The official MCP client (@modelcontextprotocol/client) as the tests use it: a real client over
 * real HTTP or stdio, in one of the protocol revisions Sculptor serves.
 */
import type { ChildProcess } from 'node:child_process';
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
  /** More arguments to `sculptor mcp DIR` (`--watch`). */
  flags: readonly string[] = [],
): Promise<{
  client: Client;
  stderr: () => string;
  pid: number | undefined;
  /** Everything the server wrote on stdout, as read beside the client. */
  stdout: () => string;
  /** Writes bytes to the server's stdin as they are: what no client would send. */
  write: (bytes: string) => void;
}> {
  const client = new Client({ name: 'sculptor-test', version: '1.0.0' }, clientOptions(revision, extra));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['src/cli/main.ts', 'mcp', dir, ...flags],
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  await client.connect(transport);
  // The SDK's transport keeps its child process private; only a test that sends what no client
  // would (a line that is not JSON) reaches for it.
  const child = (transport as unknown as { _process?: ChildProcess })._process;
  if (!child?.stdin || !child.stdout) throw new Error("the SDK's stdio transport no longer keeps _process");
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  return {
    client,
    stderr: () => stderr,
    pid: transport.pid ?? undefined,
    stdout: () => stdout,
    write: (bytes) => void child.stdin!.write(bytes),
  };
}
