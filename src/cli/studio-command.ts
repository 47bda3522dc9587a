import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import { type CallerDirectory, loadCallers } from '../callers/load-callers.ts';
import { SettingsError } from '../config/settings.ts';
import { SculptLoadError } from '../errors/sculptor-error.ts';
import { createStudioApp } from '../studio/studio-app.ts';
import { openWorkspace } from '../studio/studio-workspace.ts';
import type { ParsedArgs } from './command-table.ts';
import { stopSignal } from '../server/stop-signal.ts';

/** Listening addresses that only this machine can reach. */
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** Why the Studio will not listen on a shared address unguarded. */
export const UNGUARDED_STUDIO =
  "The Studio runs tools against live backends and writes files: on an address other machines can reach it needs the callers' authentication. Set SCULPTOR_CALLERS (a callers file; the Studio then asks for one of its bearer tokens) or listen on 127.0.0.1.";

/**
 * `sculptor studio [dir]`: the designer's playground on 127.0.0.1 unless told
 * otherwise. On another address (--host) it needs SCULPTOR_CALLERS, whose bearer tokens then
 * guard its API. Runs until SIGINT or SIGTERM.
 */
export async function studioCommand({ values, positionals }: ParsedArgs): Promise<number> {
  const dir = positionals[0] ?? process.env.SCULPTOR_SCULPTS ?? 'sculpts';
  const host = typeof values.host === 'string' ? values.host : '127.0.0.1';
  const callers = await studioCallers(host, process.env);
  const workspace = await openWorkspace({
    dir,
    ...(typeof values.recordings === 'string' ? { recordings: values.recordings } : {}),
  });
  const port = Number(values.port ?? 7070);
  const app = createStudioApp(workspace, { root: true, ...(callers ? { callers: () => callers } : {}) });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: host, port }, () => resolve(s));
  });
  const address = server.address();
  const shown = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  const url =
    typeof address === 'object' && address
      ? `http://${shown}:${address.port}/studio/`
      : `http://${shown}:${port}/studio/`;
  // Listened for before printing the address (stop-signal.ts).
  const stopped = stopSignal();
  console.log(
    `Sculptor Studio on ${url} for ${workspace.dir}${callers ? " (behind the callers' bearer tokens)" : ''} (Ctrl-C stops it)`,
  );
  await stopped;
  server.close();
  await workspace.close();
  return 0;
}

/** The callers file that guards a Studio on `host`, if any; refuses a shared address without one. */
async function studioCallers(
  host: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<CallerDirectory | undefined> {
  if (!env.SCULPTOR_CALLERS) {
    if (LOOPBACK.has(host)) return undefined;
    throw new SettingsError(UNGUARDED_STUDIO);
  }
  const loaded = await loadCallers(env.SCULPTOR_CALLERS, env);
  if (loaded.errors.length > 0) throw new SculptLoadError(loaded.errors);
  return loaded.directory;
}

/**
 * `serve --studio`: the Studio mounted in the gateway under /studio, over the gateway's sculpts
 * and behind its callers' authentication. Without SCULPTOR_CALLERS the gateway must listen on
 * loopback (as `serve --watch` does), or it refuses to start.
 */
export async function studioMount(
  sculpts: string,
  host: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<{ mount: (callers: () => CallerDirectory | undefined) => Hono; close: () => Promise<void> }> {
  if (!env.SCULPTOR_CALLERS && !LOOPBACK.has(host)) throw new SettingsError(UNGUARDED_STUDIO);
  const workspace = await openWorkspace({ dir: sculpts, env });
  return {
    mount: (callers) => createStudioApp(workspace, { callers }),
    close: () => workspace.close(),
  };
}
