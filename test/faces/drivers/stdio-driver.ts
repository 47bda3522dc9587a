import { execFile } from 'node:child_process';
import { Client, ProtocolError } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { clientOptions } from '../mcp/mcp-client.ts';
import type { FaceDriver } from './face-driver.ts';

/**
 * `sculptor mcp` over stdio, through the official SDK client driving a child process (Node 24,
 * `src/cli/main.ts`). stdio has no request headers: the caller is decided once, when the process
 * starts, from SCULPTOR_MCP_TOKEN, so this driver runs one process per token. A token the callers
 * file does not know (or none) is refused before the process serves anything: the process prints
 * `code: message` on stderr and exits 1, which the driver reports as that call's error.
 *
 * The "gateway" is not an HTTP server: `serve` records what to launch under a key of its own,
 * which `list` and `invoke` take where the other drivers take the gateway's URL.
 */
interface Served {
  sculpts: string;
  env: Record<string, string>;
  callers: string | undefined;
  sessions: Map<string, Promise<Session>>;
}

type Session = { client: Client } | { refused: { code: string; message: string } };

const served = new Map<string, Served>();
let launched = 0;

/** The environment variables the test runner may hold that would change whom the process serves. */
const DECIDED_HERE = ['SCULPTOR_CALLERS', 'SCULPTOR_MCP_TOKEN'];

async function start(target: Served, token: string | undefined): Promise<Session> {
  const env: Record<string, string> = { ...(process.env as Record<string, string>) };
  for (const name of DECIDED_HERE) delete env[name];
  // Load shedding off unless the case sets it, as in startTestGateway: it answers the event loop's
  // lag, which on a busy test machine is the other test files' doing, not the gateway's.
  Object.assign(env, { SCULPTOR_SHED_LAG_MS: '0' }, target.env, {
    SCULPTOR_ALLOW_PRIVATE_EGRESS: 'true',
    LOG_LEVEL: 'warn',
  });
  if (target.callers) env.SCULPTOR_CALLERS = target.callers;
  if (token) env.SCULPTOR_MCP_TOKEN = token;
  const args = ['src/cli/main.ts', 'mcp', target.sculpts];
  const transport = new StdioClientTransport({ command: process.execPath, args, env, stderr: 'ignore' });
  const client = new Client({ name: 'face-matrix', version: '1.0.0' }, clientOptions('2026-07-28'));
  try {
    await client.connect(transport);
    return { client };
  } catch (err) {
    // The process ended before it served. Its refusal is the `code: message` line it prints on
    // stderr; the SDK's transport does not keep what a process wrote as it died, so the same
    // command runs once more, beside no client, to read it (bounded by its timeout).
    const stderr = await new Promise<string>((resolve) => {
      execFile(process.execPath, args, { env, timeout: 20_000 }, (_error, _stdout, text) =>
        resolve(text),
      ).stdin?.end();
    });
    const line = /^([a-z_]+\.[a-z_.]+): (.*)$/m.exec(stderr);
    if (!line) throw new Error(`sculptor mcp ended without a refusal: ${stderr}`, { cause: err });
    return { refused: { code: line[1]!, message: line[2]! } };
  }
}

function session(key: string, token: string | undefined): Promise<Session> {
  const target = served.get(key);
  if (!target) throw new Error(`nothing is served as ${key}: start it with stdioDriver.serve`);
  let found = target.sessions.get(token ?? '');
  if (!found) target.sessions.set(token ?? '', (found = start(target, token)));
  return found;
}

export const stdioDriver: FaceDriver & {
  /** Records what a stdio process for this case runs: the sculpts, the environment, the callers file. */
  serve(
    sculpts: string,
    env: Record<string, string>,
    settings: { callers?: string },
  ): Promise<{ url: string; close(): Promise<void> }>;
} = {
  name: 'stdio',
  async serve(sculpts, env, { callers }) {
    const url = `stdio:${++launched}`;
    served.set(url, { sculpts, env, callers, sessions: new Map() });
    return { url, close: () => stdioDriver.close!(url) };
  },
  async list(key, token) {
    const s = await session(key, token);
    if ('refused' in s) throw new Error(`${s.refused.code}: ${s.refused.message}`);
    return (await s.client.listTools()).tools.map((t) => t.name);
  },
  async invoke(key, { tool, version, inputs, token }) {
    const s = await session(key, token);
    if ('refused' in s) return { actual: { error: s.refused } };
    let result: Awaited<ReturnType<Client['callTool']>>;
    try {
      result = await s.client.callTool({
        name: tool,
        arguments: inputs,
        ...(version !== undefined ? { _meta: { 'io.sculptor/version': version } } : {}),
      });
    } catch (err) {
      // A JSON-RPC error (an unknown tool): its code is in `data.code`, as over HTTP.
      if (!(err instanceof ProtocolError)) throw err;
      const code = (err.data as { code?: unknown } | undefined)?.code;
      if (typeof code !== 'string') throw err;
      return { actual: { error: { code, message: err.message } } };
    }
    if (result.isError) {
      const meta = result._meta?.['io.sculptor/error'] as { code: string } | undefined;
      const text = (result.content as Array<{ type: string; text?: string }>).find((c) => c.type === 'text');
      return { actual: { error: { code: meta?.code ?? 'unknown', message: text?.text ?? '' } } };
    }
    return { actual: { outputs: (result.structuredContent ?? {}) as Record<string, unknown> } };
  },
  async close(key) {
    const target = served.get(key);
    served.delete(key);
    for (const s of target?.sessions.values() ?? []) {
      const x = await s.catch(() => undefined);
      if (x && 'client' in x) await x.client.close().catch(() => undefined);
    }
  },
};
