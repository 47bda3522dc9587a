import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Http2Bindings, type HttpBindings, serve } from '@hono/node-server';
import type { Settings } from '../config/settings.ts';

/** The Node HTTP server the gateway answers on, and what its drain needs of it. */
export interface Listener {
  /** `http://host:port`, the address as bound (an ephemeral port resolved). */
  url: string;
  /** Requests whose response is not finished yet. */
  readonly inFlight: number;
  /** Stops accepting connections and closes the idle ones; resolves once the server has closed. */
  stopAccepting(): Promise<void>;
  /** Resolves once no request is in flight, or after `ms`, whichever comes first. */
  settled(ms: number): Promise<void>;
  /** Cuts every connection still open. */
  closeAll(): void;
}

/**
 * Listens with the inbound bounds (RELIABILITY A2/A3): slow heads and bodies time out, checked
 * four times per timeout (Node's default check, every 30 s, let a slow head live 30 s whatever
 * headersTimeout said); heads at most 16 KiB and 100 headers. Counts requests in flight, which
 * the drain waits for.
 */
export async function listen(
  fetch: (request: Request, env: HttpBindings | Http2Bindings) => Response | Promise<Response>,
  settings: Pick<Settings, 'port' | 'host' | 'requestTimeoutMs' | 'headersTimeoutMs'>,
): Promise<Listener> {
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve(
      {
        fetch,
        port: settings.port,
        hostname: settings.host,
        serverOptions: {
          requestTimeout: settings.requestTimeoutMs,
          headersTimeout: settings.headersTimeoutMs,
          connectionsCheckingInterval: Math.max(50, Math.min(1_000, settings.headersTimeoutMs / 4)),
          keepAliveTimeout: 5_000,
          maxHeaderSize: 16_384,
        },
      },
      () => resolve(s),
    );
    s.once('error', reject);
  });
  if ('maxHeadersCount' in server) server.maxHeadersCount = 100;

  let inFlight = 0;
  let idle: (() => void) | undefined;
  // One listener for every response ('close' comes once): no closure or once wrapper per request.
  const ended = () => {
    inFlight--;
    if (inFlight === 0) idle?.();
  };
  server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
    inFlight++;
    res.on('close', ended);
  });

  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    get inFlight() {
      return inFlight;
    },
    stopAccepting() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      if ('closeIdleConnections' in server) server.closeIdleConnections();
      return closed;
    },
    settled: (ms) =>
      inFlight === 0
        ? Promise.resolve()
        : new Promise((resolve) => {
            const timer = setTimeout(done, ms);
            function done() {
              clearTimeout(timer);
              idle = undefined;
              resolve();
            }
            idle = done;
          }),
    closeAll() {
      if ('closeAllConnections' in server) server.closeAllConnections();
    },
  };
}
