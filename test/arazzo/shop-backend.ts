import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The shop of test/arazzo/fixtures/shop on 127.0.0.1, a real HTTP server with the states the
 * workflows branch on:
 *
 *   GET  /pets?status=S   available: {items: [{id: 1, name: "Rex", status: "available"}], count: 1}; else no items
 *   GET  /pets/{id}       1: {id: 1, name: "Rex"}; else 404
 *   POST /orders          201 {id: "ord-<n>", status: "placed"}; quantity > 5: 201 {status: "rejected"}
 *   GET  /waitlist        {position: 3}
 *   GET  /jobs/{id}       {state: "running"} until the id's third poll (the digits after "after-"), then {state: "done", result}
 *   GET  /flaky/{key}     "ok-after-N": 503 (Retry-After absent) N times, then {value}; "down": always 503
 */
export interface ShopBackend {
  url: string;
  requests: Array<{ method: string; path: string; body?: unknown; apiKey?: string }>;
  close(): Promise<void>;
}

export async function startShopBackend(): Promise<ShopBackend> {
  const requests: ShopBackend['requests'] = [];
  const counts = new Map<string, number>();
  let orders = 0;
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://shop');
      const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : undefined;
      requests.push({
        method: req.method ?? 'GET',
        path: `${url.pathname}${url.search}`,
        ...(body ? { body } : {}),
        ...(typeof req.headers['x-api-key'] === 'string' ? { apiKey: req.headers['x-api-key'] } : {}),
      });
      const send = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      const count = (key: string) => {
        const n = (counts.get(key) ?? 0) + 1;
        counts.set(key, n);
        return n;
      };
      const parts = url.pathname.split('/').filter(Boolean);
      if (url.pathname === '/pets') {
        const items =
          url.searchParams.get('status') === 'available' ? [{ id: 1, name: 'Rex', status: 'available' }] : [];
        return send(200, { items, count: items.length });
      }
      if (parts[0] === 'pets')
        return parts[1] === '1' ? send(200, { id: 1, name: 'Rex' }) : send(404, { error: 'no such pet' });
      if (url.pathname === '/orders' && req.method === 'POST') {
        if (Number(body?.quantity) > 5) return send(201, { status: 'rejected' });
        return send(201, { id: `ord-${++orders}`, status: 'placed' });
      }
      if (url.pathname === '/waitlist') return send(200, { position: 3 });
      if (parts[0] === 'jobs') {
        const polls = count(`job:${parts[1]}`);
        const needed = Number(/after-(\d+)/.exec(parts[1] ?? '')?.[1] ?? Infinity);
        return polls >= needed
          ? send(200, { state: 'done', result: 'built', polls })
          : send(200, { state: 'running', polls });
      }
      if (parts[0] === 'flaky') {
        const n = count(`flaky:${parts[1]}`);
        const needed = Number(/ok-after-(\d+)/.exec(parts[1] ?? '')?.[1] ?? Infinity);
        return n > needed ? send(200, { value: `value-${parts[1]}` }) : send(503, { error: 'busy' });
      }
      send(404, { error: 'not found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
