/**
 * A backend answer that holds a credential never reaches Redis, whatever the output makes of it:
 * over the real Redis, a cached step whose backend echoes the gateway's bearer credential or the
 * end user's pass-through key is answered but not stored; the same step without a credential is.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileSculpts } from '../../src/compile/compile-sculpts.ts';
import type { CompiledTool } from '../../src/compile/compile-tool.ts';
import { DEFAULT_CALLER, type InvocationCaller } from '../../src/engine/attach-credentials.ts';
import { createEngine, type Engine, type InvocationReport } from '../../src/engine/invoke-tool.ts';
import { type BackendClient, createBackendClient } from '../../src/http/backend-client.ts';
import type { RedisCacheStore } from '../../src/cache/redis-store.ts';
import type { StepCache } from '../../src/cache/step-cache.ts';
import { type LabBackend, startLabBackend } from '../engine/lab-backend.ts';
import { inspector, readyStore, SECRET, stepCache, uniquePrefix } from './redis-harness.ts';

const SCULPTS = 'test/cache-integration/fixtures/echo-cached';
const BEARER = 'echo-bearer-cached-0123456789';
const USER_KEY = 'end-user-key-cached-424242';

const prefix = uniquePrefix('secret-answers');
const redis = inspector();
let lab: LabBackend;
let client: BackendClient;
let store: RedisCacheStore;
let cache: StepCache;
let engine: Engine;
let tools: CompiledTool[];

beforeAll(async () => {
  lab = await startLabBackend();
  client = createBackendClient();
  // What is stored is under test, not how fast: a read slowed by a loaded machine must not pass for a miss.
  store = await readyStore(prefix, { getBudgetMs: 2000, commandTimeoutMs: 2000 });
  cache = stepCache(store);
  engine = createEngine({ sender: client, cache, cacheSecret: SECRET });
  tools = await compileSculpts(SCULPTS, { LAB_URL: lab.url, ECHO_BEARER: BEARER });
});
afterAll(async () => {
  await redis.removeAll(prefix);
  await store?.close();
  await client?.close();
  await lab?.close();
  redis.disconnect();
});

/** The end user's request carried their key for the pass-through. */
const user: InvocationCaller = {
  ...DEFAULT_CALLER,
  presented: (header) => (header === 'x-lab-user-key' ? USER_KEY : undefined),
};

async function call(name: string): Promise<{ count: unknown; cache: string | undefined }> {
  let report: InvocationReport | undefined;
  const result = await engine.invoke(
    tools.find((t) => t.signature.name === name)!,
    {},
    {
      caller: user,
      onReport: (r) => {
        report = r;
      },
    },
  );
  return { count: result.outputs.find((o) => o.name === 'count')?.value, cache: report?.steps[0]?.cache };
}

/** Every value stored under this test's prefix (leases aside). */
async function storedValues(): Promise<string[]> {
  const keys = (await redis.keys(prefix)).filter((key) => !key.includes('lease:'));
  return Promise.all(keys.map(async (key) => (await redis.get(key)) ?? ''));
}

describe('answers that hold a credential are not cached', () => {
  it("the backend's bearer and the user's pass-through key echoed: answered, never stored", async () => {
    for (const tool of ['keyed_echo_count', 'user_echo_count']) {
      // Both calls go to the backend: the first answer was not kept for the second.
      const first = await call(tool);
      const second = await call(tool);
      expect(first).toEqual({ count: expect.any(Number), cache: 'miss' });
      expect(second.cache).toBe('miss');
    }
    expect(lab.requests.filter((r) => r.path === '/echo')).toHaveLength(4);

    // The control: the same step without a credential is stored, and read back.
    expect((await call('plain_echo_count')).cache).toBe('miss');
    await redis.waitForKeys(prefix, 1);
    expect((await call('plain_echo_count')).cache).toBe('hit');

    const values = await storedValues();
    expect(values).toHaveLength(1);
    for (const value of values) {
      expect(value).not.toContain(BEARER);
      expect(value).not.toContain(USER_KEY);
    }
    expect(cache.stats()).toMatchObject({ stored: 1, secretsWithheld: 4 });
  });
});
