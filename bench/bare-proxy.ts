/**
 * The floor of a proxy on this machine: the forecast tool's duties
 * (forecast-duties.ts: the same validation, bounded body, pooled backend call with a
 * deadline, the same pick and A2T answer) served by a bare `node:http` server with no
 * framework: no Hono, no web Request/Response, no routing table beyond one comparison.
 * Not a comparator for Sculptor (nobody would ship it as a gateway); it says how far each
 * layer is from what node and undici cost alone.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { failStart, serveUntilStopped } from './child.ts';
import { createPool, invokeForecast } from './forecast-duties.ts';
import { HAND_WRITTEN_PATH } from './invocations.ts';

async function main(): Promise<void> {
  const backendUrl = process.env.BENCH_BACKEND_URL;
  if (!backendUrl) throw new Error('BENCH_BACKEND_URL is not set');
  const pool = createPool(backendUrl);
  const server = createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
    if (req.method !== 'POST' || req.url !== HAND_WRITTEN_PATH) {
      res.writeHead(404, { 'content-type': 'application/problem+json' });
      res.end('{"type":"about:blank","status":404,"title":"Not Found"}');
      return;
    }
    invokeForecast(pool, req).then(
      (answer) => {
        res.writeHead(answer.status, {
          'content-type': answer.type,
          'content-length': Buffer.byteLength(answer.body),
          'cache-control': 'no-store',
        });
        res.end(answer.body);
      },
      () => {
        res.writeHead(500).end();
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  serveUntilStopped({ url: `http://127.0.0.1:${port}` }, async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await pool.close();
  });
}

if (import.meta.main) main().catch(failStart);
