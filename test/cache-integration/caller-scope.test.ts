import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisCacheStore } from '../../src/cache/redis-store.ts';
import { compileSculpts } from '../../src/compile/compile-sculpts.ts';
import type { CompiledTool } from '../../src/compile/compile-tool.ts';
import { toolIdFor } from '../../src/compile/tool-signature.ts';
import { createEngine, type Engine, type InvocationReport } from '../../src/engine/invoke-tool.ts';
import { type BackendClient, createBackendClient } from '../../src/http/backend-client.ts';
import { type LabBackend, labUser, startLabBackend } from '../engine/lab-backend.ts';
import { invoke, startTestGateway } from '../support/start-test-gateway.ts';
import {
  inspector,
  REDIS_URL,
  readyStore,
  SECRET,
  stepCache,
  storedValue,
  uniquePrefix,
} from './redis-harness.ts';

// whoami reads `me` with the caller's key (scope caller) and a public counter (scope shared).
// Two callers configured with different credentials share one Redis and one secret: neither
// may ever read the other's caller-scoped entry, while the shared entry is read by both.

const LAB_SCULPTS = 'test/engine/fixtures/lab';
let lab: LabBackend;
let client: BackendClient;
const redis = inspector();

beforeAll(async () => {
  lab = await startLabBackend();
  client = createBackendClient();
});
afterAll(async () => {
  await client?.close();
  await lab?.close();
  await redis.quit();
});

const trail = (report: InvocationReport) => report.steps.map((s) => `${s.id}:${s.cache}`);

describe('caller and shared scope, two credentials, one Redis (engine level)', () => {
  it('caller entries stay per credential, the shared entry is shared', async () => {
    const prefix = uniquePrefix('scope');
    const alice = `alice-${randomUUID()}`;
    const bob = `bob-${randomUUID()}`;
    const engines: Array<{ engine: Engine; tool: CompiledTool }> = [];
    const stores = [];
    try {
      for (const key of [alice, bob]) {
        const tools = await compileSculpts(LAB_SCULPTS, { LAB_URL: lab.url, LAB_API_KEY: key });
        const store = await readyStore(prefix);
        stores.push(store);
        engines.push({
          engine: createEngine({ sender: client, cache: stepCache(store), cacheSecret: SECRET }),
          tool: tools.find((t) => t.signature.name === 'whoami')!,
        });
      }
      const call = async (i: number) => {
        let report: InvocationReport | undefined;
        const { engine, tool } = engines[i]!;
        const result = await engine.invoke(
          tool,
          {},
          {
            onReport: (r) => {
              report = r;
            },
          },
        );
        return { outputs: result.outputs, report: report! };
      };
      const since = lab.requests.length;

      const a1 = await call(0);
      expect(a1.outputs).toEqual([
        { name: 'user', value: labUser(alice) },
        { name: 'visits', value: expect.any(Number) },
      ]);
      expect(trail(a1.report)).toEqual(['me:miss', 'stats:miss']);
      await redis.waitForKeys(prefix, 2);

      const b1 = await call(1);
      expect(b1.outputs[0]).toEqual({ name: 'user', value: labUser(bob) });
      expect(b1.outputs[1]).toEqual(a1.outputs[1]); // the shared counter, as alice's call stored it
      expect(trail(b1.report)).toEqual(['me:miss', 'stats:hit']);
      const keys = await redis.waitForKeys(prefix, 3);

      const a2 = await call(0);
      const b2 = await call(1);
      expect(a2.outputs[0]).toEqual({ name: 'user', value: labUser(alice) });
      expect(b2.outputs[0]).toEqual({ name: 'user', value: labUser(bob) });
      expect(trail(a2.report)).toEqual(['me:hit', 'stats:hit']);
      expect(trail(b2.report)).toEqual(['me:hit', 'stats:hit']);

      // The backend saw each key once, and the counter once.
      const seen = lab.requests.slice(since);
      expect(seen.filter((r) => r.path === '/me').map((r) => r.apiKey)).toEqual([alice, bob]);
      expect(seen.filter((r) => r.path === '/stats')).toHaveLength(1);

      // Three entries: one per credential for `me`, one for `stats`; no key shows a credential.
      expect(keys).toHaveLength(3);
      const users = await Promise.all(keys.map(async (k) => (await storedValue(redis, k)).body));
      expect(users).toEqual(
        expect.arrayContaining([
          { user: labUser(alice) },
          { user: labUser(bob) },
          { visits: expect.any(Number) },
        ]),
      );
      for (const key of keys) {
        expect(key).not.toContain(alice);
        expect(key).not.toContain(bob);
      }
    } finally {
      await Promise.all(stores.map((s) => s.close()));
      await redis.removeAll(prefix);
    }
  });
});

describe('two gateways with different credential settings, sharing Redis and secret', () => {
  it('never answer with each other’s caller-scoped data, and share the public entry', async () => {
    const alice = `alice-${randomUUID()}`;
    const bob = `bob-${randomUUID()}`;
    const settings = { redisUrl: REDIS_URL, secret: SECRET };
    const ga = await startTestGateway(LAB_SCULPTS, { LAB_URL: lab.url, LAB_API_KEY: alice }, settings);
    const gb = await startTestGateway(LAB_SCULPTS, { LAB_URL: lab.url, LAB_API_KEY: bob }, settings);
    try {
      for (const g of [ga, gb]) {
        expect(g.cache.kind).toBe('redis');
        expect(await (g.cache as RedisCacheStore).waitUntilReady(2000)).toBe(true);
      }
      const path = `/tools/${toolIdFor('whoami')}:invoke`;
      const body = { name: 'whoami', input_parameters: [] };
      const since = lab.requests.length;
      const user = (res: Awaited<ReturnType<typeof invoke>>) =>
        (res.body.output_parameters as Array<{ name: string; value: unknown }>)[0]!.value;

      const a1 = await invoke(ga.url, path, body);
      expect(a1.status).toBe(200);
      expect(user(a1)).toBe(labUser(alice));
      await new Promise((r) => setTimeout(r, 100)); // let the fire-and-forget SETs land
      const b1 = await invoke(gb.url, path, body);
      expect(user(b1)).toBe(labUser(bob));
      expect(trail(gb.reports.at(-1)!)).toEqual(['me:miss', 'stats:hit']);
      const a2 = await invoke(ga.url, path, body);
      const b2 = await invoke(gb.url, path, body);
      expect(user(a2)).toBe(labUser(alice));
      expect(user(b2)).toBe(labUser(bob));
      expect(trail(ga.reports.at(-1)!)).toEqual(['me:hit', 'stats:hit']);
      expect(trail(gb.reports.at(-1)!)).toEqual(['me:hit', 'stats:hit']);
      const keysSeen = lab.requests.slice(since).filter((r) => r.path === '/me');
      expect(keysSeen.map((r) => r.apiKey)).toEqual([alice, bob]);
    } finally {
      await Promise.all([ga.close(), gb.close()]);
      // The entries these gateways wrote have a 10 s TTL and expire on their own.
    }
  });
});
