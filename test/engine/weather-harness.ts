import type { StepCache } from '../../src/cache/step-cache.ts';
import { compileSculpts } from '../../src/compile/compile-sculpts.ts';
import type { CompiledTool } from '../../src/compile/compile-tool.ts';
import { createEngine, type Engine, type InvocationReport } from '../../src/engine/invoke-tool.ts';
import { type BackendClient, createBackendClient } from '../../src/http/backend-client.ts';
import {
  loadRecordings,
  type RecordedExchange,
  type ReplayServer,
  startReplayServer,
} from '../../src/replay/index.ts';
import { replayEnv } from '../../src/testing/index.ts';

export const WEATHER_SCULPTS = 'sculpts/weather';
export const WEATHER_RECORDINGS = 'sculpts/weather/recordings';

export const NYC_CALLS = {
  geocode: 'GET /v1/search?name=New+York&count=5&format=json&language=en',
  point: 'GET /points/40.7143,-74.006',
  forecast: 'GET /gridpoints/OKX/33,35/forecast',
} as const;

/**
 * The weather sculpts compiled against a replay server of their recordings,
 * pointed there the way an operator would (NWS_BASE_URL, GEOCODER_BASE_URL).
 */
export interface WeatherHarness {
  replay: ReplayServer;
  env: Record<string, string>;
  /** The latest version (2) and version 1. */
  v2: CompiledTool;
  v1: CompiledTool;
  client: BackendClient;
  /** An engine as the gateway builds one, over the given step cache (none: caching off). */
  engine(cache?: StepCache, secret?: string): Engine;
  /** "METHOD path" of every request the replay server got from index `since` on. */
  callsSince(since: number): string[];
  close(): Promise<void>;
}

/** `transform` may rewrite the recorded exchanges (each test labels what it derives). */
export async function startWeather(
  transform: (exchanges: RecordedExchange[]) => RecordedExchange[] = (e) => e,
): Promise<WeatherHarness> {
  const replay = await startReplayServer(transform(await loadRecordings([WEATHER_RECORDINGS])));
  const env = await replayEnv(WEATHER_SCULPTS, replay.url);
  const tools = await compileSculpts(WEATHER_SCULPTS, env);
  const client = createBackendClient();
  const version = (v: number) => tools.find((t) => t.signature.version === v)!;
  return {
    replay,
    env,
    v2: version(2),
    v1: version(1),
    client,
    engine: (cache, secret = 'engine-test-secret-0123456789') =>
      createEngine({
        sender: client,
        ...(cache ? { cache } : {}),
        cacheSecret: secret,
        allowPrivateEgress: true,
      }),
    callsSince: (since) => replay.requests.slice(since).map((r) => `${r.method} ${r.path}`),
    close: async () => {
      await replay.close();
      await client.close();
    },
  };
}

/** Invokes lookup_weather_by_city and returns its outputs by name and the engine's report. */
export async function lookup(
  engine: Engine,
  tool: CompiledTool,
  inputs: Record<string, unknown>,
): Promise<{ outputs: Record<string, unknown>; report: InvocationReport }> {
  let report: InvocationReport | undefined;
  const result = await engine.invoke(tool, inputs, {
    onReport: (r) => {
      report = r;
    },
  });
  return {
    outputs: Object.fromEntries(result.outputs.map((p) => [p.name, p.value])),
    report: report!,
  };
}

/** Like `lookup`, for invocations that must fail: the error and the report. */
export async function lookupError(
  engine: Engine,
  tool: CompiledTool,
  inputs: Record<string, unknown>,
): Promise<{ error: { code: string; message: string }; report: InvocationReport }> {
  let report: InvocationReport | undefined;
  try {
    await engine.invoke(tool, inputs, {
      onReport: (r) => {
        report = r;
      },
    });
  } catch (err) {
    const { code, message } = err as { code: string; message: string };
    return { error: { code, message }, report: report! };
  }
  throw new Error(`expected ${tool.signature.name} ${JSON.stringify(inputs)} to fail`);
}

/** Each step's id, cache outcome and status, in step order. */
export function cacheTrail(report: InvocationReport): string[] {
  return report.steps.map((s) => `${s.id}:${s.cache}:${s.status ?? '-'}`);
}
