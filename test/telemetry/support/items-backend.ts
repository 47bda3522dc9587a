import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the backend saw of one request. */
export interface SeenRequest {
  method: string;
  url: string;
  traceparent: string | undefined;
  authorization: string | undefined;
  /** The per-user credential a pass-through put in x-user-key. */
  userKey: string | undefined;
}

export interface ItemsBackend {
  /** http://127.0.0.1:PORT */
  url: string;
  seen: SeenRequest[];
  /** Requests answered so far, and not yet answered (the slow ones). */
  pending(): number;
  close(): Promise<void>;
}

export interface ItemsBackendOptions {
  /** Put into the body of every /fail answer (a backend echoing a secret in its error). */
  errorBodyCanary?: string;
}

/** A stable id per name, so that different names never share a cache entry. */
export function itemIdFor(name: string): number {
  return Number.parseInt(createHash('sha256').update(name).digest('hex').slice(0, 7), 16);
}

/**
 * The loopback backend of the telemetry and lifecycle tests (test/telemetry/fixtures/sculpts):
 * /items?name= → one item (none for names starting with "none"), /items/{id} → its details, /slow?ms= → answers after ms,
 * /fail → 500 with a body naming the canary.
 */
export async function startItemsBackend(options: ItemsBackendOptions = {}): Promise<ItemsBackend> {
  const seen: SeenRequest[] = [];
  let pending = 0;
  const timers = new Set<NodeJS.Timeout>();
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://backend');
    seen.push({
      method: req.method ?? '',
      url: req.url ?? '',
      traceparent: req.headers.traceparent as string | undefined,
      authorization: req.headers.authorization,
      userKey: req.headers['x-user-key'] as string | undefined,
    });
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/items') {
      const name = url.searchParams.get('name') ?? '';
      // "none…" finds nothing: the sculpt's declared `empty` error.
      return json(200, { items: name.startsWith('none') ? [] : [{ id: itemIdFor(name), name }] });
    }
    const item = /^\/items\/(\d+)$/.exec(url.pathname);
    if (item) return json(200, { id: Number(item[1]), label: `Item ${item[1]}` });
    if (url.pathname === '/slow') {
      const ms = Math.min(Number(url.searchParams.get('ms') ?? 0), 60_000);
      pending++;
      const timer = setTimeout(() => {
        timers.delete(timer);
        pending--;
        json(200, { waited: ms });
      }, ms);
      timers.add(timer);
      res.once('close', () => {
        if (timers.delete(timer)) {
          clearTimeout(timer);
          pending--;
        }
      });
      return;
    }
    if (url.pathname === '/fail') {
      return json(500, {
        error: `invalid key ${options.errorBodyCanary ?? 'none'}`,
        note: url.searchParams.get('note'),
      });
    }
    json(404, { error: 'no such path' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    pending: () => pending,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
