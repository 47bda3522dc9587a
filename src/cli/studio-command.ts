import { serve } from '@hono/node-server';
import { createStudioApp } from '../studio/studio-app.ts';
import { openWorkspace } from '../studio/studio-workspace.ts';
import type { ParsedArgs } from './command-table.ts';

/**
 * `sculptor studio [dir]`: the designer's playground (issue #17) on 127.0.0.1 unless told
 * otherwise — it runs tools against live backends and writes test files, so it is not for
 * a shared network. Runs until SIGINT or SIGTERM.
 */
export async function studioCommand({ values, positionals }: ParsedArgs): Promise<number> {
  const dir = positionals[0] ?? process.env.SCULPTOR_SCULPTS ?? 'sculpts';
  const workspace = await openWorkspace({
    dir,
    ...(typeof values.recordings === 'string' ? { recordings: values.recordings } : {}),
  });
  const host = typeof values.host === 'string' ? values.host : '127.0.0.1';
  const port = Number(values.port ?? 7070);
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: createStudioApp(workspace).fetch, hostname: host, port }, () => resolve(s));
  });
  const address = server.address();
  const url =
    typeof address === 'object' && address ? `http://${host}:${address.port}` : `http://${host}:${port}`;
  console.log(`Sculptor Studio on ${url} for ${workspace.dir} (Ctrl-C stops it)`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  server.close();
  await workspace.close();
  return 0;
}
