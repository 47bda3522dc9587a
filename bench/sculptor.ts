/**
 * A bench child running the real gateway: startGateway over a sculpts folder
 * with production settings (readSettings; egress policy on, the bench
 * backend is declared `allowPrivate` in its backends file), on loopback.
 *
 * Its ready message carries what start-up cost: the time startGateway took
 * (load, compile, catalog, listen) and the resident memory after it.
 *
 *   node bench/sculptor.ts <sculpts folder>
 *   env: BENCH_BACKEND_URL (and whatever the sculpts reference), REDIS_URL, SCULPTOR_SECRET,
 *   SCULPTOR_SHED_LAG_MS
 */
import { readSettings } from '../src/config/settings.ts';
import { startGateway } from '../src/server/start-gateway.ts';
import { failStart, type ReadyMessage, serveUntilStopped } from './child.ts';

export interface GatewayReady extends ReadyMessage {
  url: string;
  tools: number;
  /** startGateway, from the call to the listening server. */
  startMs: number;
  /** Process start to listening, module loading included. */
  processStartMs: number;
  /** Resident set after start-up (after a full GC when node runs with --expose-gc). */
  rssBytes: number;
  heapUsedBytes: number;
  /** Peak resident set so far (start-up's high-water mark). */
  maxRssBytes: number;
}

async function main(): Promise<void> {
  const sculpts = process.argv[2];
  if (!sculpts) throw new Error('usage: node bench/sculptor.ts <sculpts folder>');
  const settings = readSettings(
    {
      REDIS_URL: process.env.REDIS_URL,
      SCULPTOR_SECRET: process.env.SCULPTOR_SECRET,
      // bench/instructions.ts turns shedding off: under valgrind every call lags the event loop.
      SCULPTOR_SHED_LAG_MS: process.env.SCULPTOR_SHED_LAG_MS,
    },
    { port: 0, host: '127.0.0.1', sculpts },
  );
  const t0 = performance.now();
  const gateway = await startGateway({ settings, env: process.env });
  const startMs = performance.now() - t0;
  const processStartMs = performance.now();
  const cache = gateway.cache as { waitUntilReady?: (ms: number) => Promise<boolean> };
  if (cache.waitUntilReady && !(await cache.waitUntilReady(5_000))) throw new Error('Redis is not ready');

  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const memory = process.memoryUsage();
  const ready: Omit<GatewayReady, 'type'> = {
    url: gateway.url,
    tools: gateway.catalog().size,
    startMs,
    processStartMs,
    rssBytes: memory.rss,
    heapUsedBytes: memory.heapUsed,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
  };
  serveUntilStopped(ready, () => gateway.close());
}

main().catch(failStart);
