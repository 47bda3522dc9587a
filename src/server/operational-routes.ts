import type { Hono } from 'hono';
import type { GatewayMetrics } from '../telemetry/metrics.ts';

/** Paths answered outside every face: no server span, no drain refusal, no Host check, no log line. */
export const OPERATIONAL_PATHS = new Set(['/livez', '/readyz', '/metrics']);

export interface OperationalState {
  draining: () => boolean;
  overloaded: () => boolean;
  tools: () => number;
  metrics: GatewayMetrics;
}

/**
 * Liveness answers from the event loop alone; readiness never depends on Redis or backends, so
 * a shared outage cannot empty the pool (RELIABILITY J3/J4); metrics for the in-cluster scraper.
 */
export function addOperationalRoutes(app: Hono, state: OperationalState): void {
  app.get('/livez', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', (c) => {
    if (state.draining()) return c.json({ status: 'draining' }, 503);
    if (state.overloaded()) return c.json({ status: 'overloaded' }, 503);
    return c.json({ status: 'ready', tools: state.tools() });
  });
  app.get('/metrics', async (c) =>
    c.body(await state.metrics.render(), 200, { 'content-type': state.metrics.contentType }),
  );
}
