/** The requests every bench scenario and the profiler send, in one place. */

/** The hand-written handler's one route (Sculptor's is /tools/{toolId}:invoke). */
export const HAND_WRITTEN_PATH = '/tools/bench_forecast:invoke';

/** The bench sculpts folder (bench/sculpts). */
export const BENCH_SCULPTS = new URL('sculpts/', import.meta.url).pathname;

/** The A2T invocation of bench_forecast (and of the hand-written handler): New York's grid cell. */
export const FORECAST_BODY = JSON.stringify({
  name: 'bench_forecast',
  input_parameters: [
    { name: 'office', value: 'OKX' },
    { name: 'x', value: 33 },
    { name: 'y', value: 35 },
  ],
});

/** The A2T invocation of a chain tool for New York. */
export const chainBody = (tool: string): string =>
  JSON.stringify({ name: tool, input_parameters: [{ name: 'place', value: 'New York' }] });

export const JSON_POST = { method: 'POST' as const, headers: { 'content-type': 'application/json' } };

/**
 * The bench backend answers under this prefix too, SLOW_MS late, as a SaaS API across a network
 * would: the chain scenarios run against both, because what a cached step saves is mostly the wait.
 */
export const SLOW_PREFIX = '/slow';
export const SLOW_MS = 20;
