/**
 * FastMCP's `from_openapi` (Python) over the NWS description, where a Python 3.10+ is at hand:
 * FastMCP (pinned below) is installed into a virtual environment under the bench cache folder
 * through pip as this machine configures it, once, and reused; the server is
 * bench/fastmcp_from_openapi.py. Without a Python, or when the install fails, the peer is
 * skipped and the reason printed.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

export const FASTMCP = { name: 'fastmcp', version: '4.0.10' };
export const FASTMCP_SERVER = new URL('fastmcp_from_openapi.py', import.meta.url).pathname;

const run = promisify(execFile);

export type FastMcpPeer = { python: string; versions: string } | { skipped: string };

/** The venv's python with FastMCP importable, or why there is none. */
export async function prepareFastMcp(cacheDir: string, log: (line: string) => void): Promise<FastMcpPeer> {
  const base = process.env.BENCH_PYTHON || 'python3';
  const venv = path.join(cacheDir, `${FASTMCP.name}-${FASTMCP.version}-venv`);
  const python = path.join(venv, 'bin', 'python');
  const versions = async () =>
    (
      await run(python, [
        '-c',
        'import fastmcp, mcp.types, importlib.metadata as m; print(f"FastMCP {fastmcp.__version__}, mcp {m.version(\'mcp\')}")',
      ])
    ).stdout.trim();
  if (existsSync(python)) {
    try {
      return { python, versions: await versions() };
    } catch {
      await rm(venv, { recursive: true, force: true });
    }
  }
  try {
    const { stdout } = await run(base, ['-c', 'import sys; print(sys.version_info >= (3, 10))']);
    if (stdout.trim() !== 'True') return { skipped: `${base} is older than 3.10, which FastMCP needs` };
  } catch {
    return { skipped: `no Python found (${base}; set BENCH_PYTHON to one)` };
  }
  log(`installing ${FASTMCP.name} ${FASTMCP.version} into ${venv} (pip, once; a few minutes)`);
  try {
    await run(base, ['-m', 'venv', venv], { timeout: 300_000 });
    await run(
      python,
      ['-m', 'pip', 'install', '--retries', '1', '--timeout', '30', `${FASTMCP.name}==${FASTMCP.version}`],
      { timeout: 900_000, maxBuffer: 64 * 1024 * 1024 },
    );
    return { python, versions: await versions() };
  } catch (err) {
    await rm(venv, { recursive: true, force: true });
    const message = (err as { stderr?: string }).stderr?.trim().split('\n').at(-1) ?? String(err);
    return { skipped: `pip could not install ${FASTMCP.name}==${FASTMCP.version}: ${message}` };
  }
}
