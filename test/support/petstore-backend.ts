import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

/**
 * A small Petstore on loopback, answering the operations the sample sculpts
 * call the way the real Swagger Petstore does, and recording what it saw.
 */
export interface PetstoreBackend {
  /** http://127.0.0.1:PORT */
  url: string;
  requests: Array<{ method: string; path: string; query: string; headers: Record<string, string> }>;
  close(): Promise<void>;
}

const BIG_ID = '9223372036854775807';

export const PETS = [
  {
    id: 1,
    name: 'Rex',
    status: 'available',
    category: { id: 1, name: 'Dogs' },
    tags: [{ id: 1, name: 'friendly' }],
    photoUrls: ['x'],
  },
  { id: 2, name: 'Tom', status: 'available', category: { id: 2, name: 'Cats' }, tags: [], photoUrls: [] },
  { id: 3, name: 'Polly', status: 'sold', tags: [{ id: 2, name: 'loud' }], photoUrls: [] },
  // Ids above 2^53 exist in the real Petstore (other users create them); the
  // sentinel is written out as the exact integer, as a Java backend would.
  { id: 'BIG_ID', name: 'Big', status: 'pending', tags: [], photoUrls: [] },
];

export async function startPetstoreBackend(): Promise<PetstoreBackend> {
  const requests: PetstoreBackend['requests'] = [];
  const app = new Hono();
  app.use('*', async (c, next) => {
    const url = new URL(c.req.url);
    requests.push({ method: c.req.method, path: url.pathname, query: url.search, headers: c.req.header() });
    await next();
  });
  const byStatus = (statuses: string[]) => PETS.filter((p) => statuses.includes(p.status));
  const asJson = (body: unknown, status = 200) =>
    new Response(JSON.stringify(body).replaceAll('"BIG_ID"', BIG_ID), {
      status,
      headers: { 'content-type': 'application/json' },
    });

  app.get('/v2/pet/findByStatus', (c) => asJson(byStatus(c.req.queries('status') ?? [])));
  app.get('/v2/pet/:id', (c) => {
    const pet = PETS.find((p) => String(p.id).replace('BIG_ID', BIG_ID) === c.req.param('id'));
    return pet ? asJson(pet) : asJson({ code: 1, type: 'error', message: 'Pet not found' }, 404);
  });
  app.get('/api/v3/store/inventory', () => asJson({ available: 2, sold: 1, pending: 1, 'weird status': 7 }));
  app.get('/api/v3/pet/findByStatus', (c) => asJson(byStatus([c.req.query('status') ?? 'available'])));

  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
