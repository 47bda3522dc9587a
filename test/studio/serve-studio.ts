import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { createStudioApp, type StudioAppOptions } from '../../src/studio/studio-app.ts';
import type { Workspace } from '../../src/studio/studio-workspace.ts';

/** The Studio of `workspace` on a loopback port, as `sculptor studio` serves it; `url` ends in `/`. */
export async function serveStudio(
  workspace: Workspace,
  options: StudioAppOptions = { root: true },
): Promise<{ server: ReturnType<typeof serve>; url: string }> {
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve(
      { fetch: createStudioApp(workspace, options).fetch, hostname: '127.0.0.1', port: 0 },
      () => resolve(s),
    );
  });
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
}
