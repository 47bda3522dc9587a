import { execFile } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toolIdFor } from '../../../src/compile/tool-signature.ts';

/**
 * Helpers of the checks run against a real Docker engine (test/deploy/docker/run.sh): the
 * docker client with a bound on every call, bounded polls, loopback servers.
 */

export const DOCKER = process.env.DOCKER ?? 'docker';

/** Runs the docker client (or docker-compose); rejects with its output on a non-zero exit or after timeoutMs. */
export function run(command: string, args: string[], timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout: timeoutMs, maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command} ${args.join(' ')}: ${error.message}\n${stdout}${stderr}`));
      else resolve(stdout.trim());
    });
  });
}

export const docker = (args: string[], timeoutMs?: number) => run(DOCKER, args, timeoutMs);

/** Polls until check returns a value other than undefined; throws `what` after timeoutMs. */
export async function until<T>(
  what: string,
  timeoutMs: number,
  check: () => Promise<T | undefined>,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`${what}: not within ${timeoutMs} ms${last ? ` (last: ${String(last)})` : ''}`);
}

export function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`check failed: ${message}`);
}

/** A free loopback port (containers run with --network host: their ports are the machine's). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ server: Server; port: number }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

export const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

export const WEATHER_TOOL = 'lookup_weather_by_city';

/** Invokes the weather tool over A2T; resolves with the status and the JSON body. */
export async function invokeWeather(
  gatewayUrl: string,
  inputs: Record<string, string>,
  timeoutMs = 20_000,
): Promise<{ status: number; body: { output_parameters?: { name: string; value: unknown }[] } }> {
  const res = await fetch(`${gatewayUrl}/tools/${toolIdFor(WEATHER_TOOL)}:invoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      name: WEATHER_TOOL,
      input_parameters: Object.entries(inputs).map(([name, value]) => ({ name, value })),
    }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  return { status: res.status, body: (await res.json()) as never };
}

export const outputOf = (body: { output_parameters?: { name: string; value: unknown }[] }, name: string) =>
  body.output_parameters?.find((p) => p.name === name)?.value;

/** Seconds with two decimals, for the figures printed. */
export const seconds = (ms: number) => (ms / 1000).toFixed(2);
