/**
 * The gateway's engine path with no socket under it: what `bench_forecast` costs when its code runs
 * call after call, hot in the processor's caches, beside what the lean handler does with the same
 * answer. It separates the instructions a call executes from what they cost inside a server, where
 * everything else a request touches runs between them: docs/PERFORMANCE.md ("Where the gap to the
 * lean handler lives") compares the two.
 *
 * The engine is the one the gateway composes (`createCore`: retries, breaker, bulkhead, metrics);
 * only the backend client is replaced, by one that decodes the recorded forecast's bytes as the
 * real client does (strict UTF-8, the parse, the limits walk) instead of reading them from a socket.
 * The handler's side is its own decode and pick (`JSON.parse` of the bytes, two fields).
 *
 *   npx node bench/engine-alone.ts [--rounds 7] [--calls 50000] [--concurrency 8]
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { PRODUCTION_NODE_FLAGS } from './child.ts';
import { median } from './stats.ts';
import { compileSculpts } from '../src/compile/compile-sculpts.ts';
import type { BackendClient } from '../src/http/backend-client.ts';
import { DEFAULTS } from '../src/http/backend-client.ts';
import { decodeBody } from '../src/http/decode-body.ts';
import { outputRecord } from '../src/invoke/call-service.ts';
import { createCore } from '../src/server/create-core.ts';
import { createMetrics } from '../src/telemetry/metrics.ts';

// Under V8's default young generation the collector, not the code, sets both figures: run under
// production's flags, as every bench server does.
if (!PRODUCTION_NODE_FLAGS.every((flag) => process.execArgv.includes(flag))) {
  const script = new URL(import.meta.url).pathname;
  const run = spawnSync(process.execPath, [...PRODUCTION_NODE_FLAGS, script, ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
  process.exit(run.status ?? 1);
}

const { values: args } = parseArgs({
  options: {
    calls: { type: 'string', default: '50000' },
    rounds: { type: 'string', default: '7' },
    concurrency: { type: 'string', default: '8' },
  },
});
const calls = Number(args.calls);
const concurrency = Number(args.concurrency);
const rounds = Number(args.rounds);

const CONTENT_TYPE = 'application/geo+json';
const bytes = readFileSync(new URL('fixtures/nws-forecast-okx.json', import.meta.url));
const limits = { maxDepth: DEFAULTS.maxJsonDepth, maxArrayLength: DEFAULTS.maxArrayLength };

const client: BackendClient = {
  send: () =>
    Promise.resolve({
      status: 200,
      headers: { 'content-type': CONTENT_TYPE },
      contentType: CONTENT_TYPE,
      body: decodeBody(bytes, CONTENT_TYPE, limits),
      bytes: bytes.length,
    }),
  close: () => Promise.resolve(),
};

// The bench sculpts name their backend by this variable; nothing is dialled.
process.env.BENCH_BACKEND_URL ??= 'http://127.0.0.1:9';
const tools = await compileSculpts(new URL('sculpts/', import.meta.url).pathname);
const tool = tools.find((t) => t.signature.name === 'bench_forecast')!;
const core = createCore({ client, resilience: true, instrument: { metrics: createMetrics() } });
const inputs = { office: 'OKX', x: 33, y: 35 };
const invoke = () => core.engine.invoke(tool, inputs);

interface Forecast {
  properties: { periods: Array<{ temperature: number; shortForecast: string }> };
}
const handler = (): Promise<unknown> => {
  const { temperature, shortForecast } = (JSON.parse(bytes.toString('utf8')) as Forecast).properties
    .periods[0]!;
  return Promise.resolve({ temperature, short_forecast: shortForecast });
};

/** Microseconds per call over `calls` calls, `concurrency` in flight. */
async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = 0; i < calls / concurrency; i++) await run();
    }),
  );
  return Number(process.hrtime.bigint() - started) / calls / 1000;
}

// Both sides must give the same answer before either is timed.
const { outputs } = await invoke();
const expected = JSON.stringify(await handler());
if (JSON.stringify(outputRecord(outputs)) !== expected) {
  throw new Error(`The engine answered ${JSON.stringify(outputs)}, the handler ${expected}.`);
}
// A shared machine drifts within seconds: the two run in turn, and each figure is a median of rounds.
await timed(invoke);
await timed(handler);
const engine: number[] = [];
const hand: number[] = [];
const own: number[] = [];
for (let round = 0; round < rounds; round++) {
  engine.push(await timed(invoke));
  hand.push(await timed(handler));
  own.push(engine.at(-1)! - hand.at(-1)!);
}
const us = (values: number[]) => median(values).toFixed(1);
console.log(
  `${rounds} rounds of ${calls} calls each, ${concurrency} in flight, hot: the gateway's engine path ${us(engine)} µs a call, ` +
    `the handler's decode and pick ${us(hand)} µs; the engine's own work ${us(own)} µs (per round: ${own.map((v) => v.toFixed(1)).join(', ')}). ` +
    'A machine busy elsewhere slows both alike: compare the own work with the handler figure of the same run.',
);
await core.close();
