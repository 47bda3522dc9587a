import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import type { CacheStore } from '../cache/cache-store.ts';
import { createMemoryStore } from '../cache/memory-store.ts';
import { createRedisStore } from '../cache/redis-store.ts';
import { StepCache } from '../cache/step-cache.ts';
import { Catalog } from '../catalog/catalog.ts';
import { pageCursors } from '../catalog/page-cursor.ts';
import { compileSculpts } from '../compile/compile-sculpts.ts';
import type { Settings } from '../config/settings.ts';
import { createEngine, type InvocationReport } from '../engine/invoke-tool.ts';
import { SculptorError } from '../errors/sculptor-error.ts';
import { createA2tFace, problem } from '../faces/a2t/a2t-face.ts';
import { createBackendClient } from '../http/backend-client.ts';

export interface Gateway {
  url: string;
  catalog: () => Catalog;
  /**
   * Recompiles the sculpts and swaps the catalog atomically. On errors it
   * throws SculptLoadError and the gateway keeps serving the last good catalog.
   */
  reload(): Promise<Catalog>;
  cache: CacheStore;
  /** Stops accepting, lets in-flight requests finish up to `drainMs`, closes everything. */
  close(): Promise<void>;
}

export interface GatewayOptions {
  settings: Settings;
  env?: Readonly<Record<string, string | undefined>>;
  onInvocation?: (report: InvocationReport) => void;
}

/**
 * The composition root: compile the sculpts once, then wire catalog, engine,
 * cache and faces, and listen. Refuses to start when any sculpt has errors.
 */
export async function startGateway({
  settings,
  env = process.env,
  onInvocation,
}: GatewayOptions): Promise<Gateway> {
  let catalog = new Catalog(await compileSculpts(settings.sculpts, env));
  let draining = false;

  const store = settings.redisUrl ? createRedisStore(settings.redisUrl) : createMemoryStore();
  const client = createBackendClient();
  const engine = createEngine({
    sender: client,
    cache: new StepCache(store, { secret: settings.secret }),
    cacheSecret: settings.secret,
    allowPrivateEgress: settings.allowPrivateEgress,
  });

  const app = new Hono();
  // Liveness answers from the event loop alone; readiness never depends on
  // Redis or backends, so a shared outage cannot empty the pool (RELIABILITY J3/J4).
  app.get('/livez', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', (c) =>
    draining ? c.json({ status: 'draining' }, 503) : c.json({ status: 'ready', tools: catalog.size }),
  );
  app.use('*', async (c, next) => {
    if (draining)
      return problem(c, new SculptorError('gateway.draining', 'The gateway is shutting down; retry.'));
    await next();
  });
  app.route(
    '/',
    createA2tFace({
      catalog: () => catalog,
      engine,
      cursors: pageCursors(settings.secret),
      prefix: settings.prefix,
      ...(onInvocation ? { onInvocation } : {}),
    }),
  );
  app.notFound((c) => problem(c, new SculptorError('request.not_found', 'Not found.')));

  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve(
      {
        fetch: app.fetch,
        port: settings.port,
        hostname: settings.host,
        // Slow clients cannot hold sockets forever (RELIABILITY A2/A3).
        serverOptions: {
          requestTimeout: 30_000,
          headersTimeout: 10_000,
          keepAliveTimeout: 5_000,
          maxHeaderSize: 16_384,
        },
      },
      () => resolve(s),
    );
    s.once('error', reject);
  });
  if ('maxHeadersCount' in server) server.maxHeadersCount = 100;
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  return {
    url: `http://${host}:${address.port}`,
    catalog: () => catalog,
    async reload() {
      catalog = new Catalog(await compileSculpts(settings.sculpts, env));
      return catalog;
    },
    cache: store,
    async close() {
      draining = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      if ('closeIdleConnections' in server) server.closeIdleConnections();
      const timer = setTimeout(() => {
        if ('closeAllConnections' in server) server.closeAllConnections();
      }, settings.drainMs);
      await closed;
      clearTimeout(timer);
      await Promise.allSettled([client.close(), store.close()]);
    },
  };
}
