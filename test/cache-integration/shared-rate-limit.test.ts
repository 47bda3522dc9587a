/**
 * The per-caller rate limit shared by replicas through Redis: three gateways on
 * the real Redis admit the configured burst once between them, not once each; with Redis
 * unreachable each falls back to its own bucket (documented slack: replicas × the limit).
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { RedisCacheStore } from '../../src/cache/redis-store.ts';
import { startTestGateway } from '../support/start-test-gateway.ts';
import { REDIS_URL } from './redis-harness.ts';
import { reportFigures } from '../support/report-figures.ts';

const BURST = 12;
type TestGateway = Awaited<ReturnType<typeof startTestGateway>>;
let replicas: TestGateway[] = [];
afterEach(async () => {
  await Promise.all(replicas.map((r) => r.close()));
  replicas = [];
});

async function threeReplicas(redisUrl: string) {
  const secret = `rate-${randomUUID()}`;
  replicas = await Promise.all(
    [1, 2, 3].map(() =>
      startTestGateway(
        'sculpts/petstore',
        {},
        { redisUrl, secret, rateLimitPerS: 0.5, rateLimitBurst: BURST },
      ),
    ),
  );
}

/** 3 replicas × 12 concurrent invocations by one caller: how many were admitted (not 429). */
async function burst(): Promise<{ admitted: number; limited: number }> {
  const token = `Bearer caller-${randomUUID()}`;
  const statuses = await Promise.all(
    replicas.flatMap((r) =>
      Array.from({ length: BURST }, () =>
        fetch(`${r.url}/tools/${randomUUID()}:invoke`, {
          method: 'POST',
          headers: { authorization: token, 'content-type': 'application/json' },
          body: '{}',
        }).then((res) => res.status),
      ),
    ),
  );
  const limited = statuses.filter((s) => s === 429).length;
  return { admitted: statuses.length - limited, limited };
}

describe('shared rate limit', () => {
  it('3 replicas × 12 requests with a burst of 12: 12 admitted in all (± 1 refilled meanwhile)', async () => {
    // A script Redis does not answer within the store's 50 ms budget falls back to the replica's
    // own bucket, as documented; on a busy machine that happens. The bound is asserted on a burst
    // Redis answered in full (no timeout, error or skip counted), tried at most 3 times.
    const unanswered = () =>
      replicas.reduce((n, r) => {
        const { timeouts, errors, skipped, unavailable } = (r.cache as RedisCacheStore).stats();
        return n + timeouts + errors + skipped + unavailable;
      }, 0);
    let result: { admitted: number; limited: number } | undefined;
    for (let attempt = 1; attempt <= 3; attempt++) {
      await threeReplicas(REDIS_URL);
      for (const r of replicas) expect(await (r.cache as RedisCacheStore).waitUntilReady(2000)).toBe(true);
      result = await burst();
      if (unanswered() === 0) break;
      reportFigures(`[rate limit] attempt ${attempt}: Redis missed its budget, replicas fell back; again`);
      await Promise.all(replicas.map((r) => r.close()));
      replicas = [];
      result = undefined;
    }
    expect(result, 'Redis missed its budget in each of 3 attempts').toBeDefined();
    const { admitted, limited } = result!;
    reportFigures(
      `[rate limit] shared through Redis: ${admitted} admitted, ${limited} limited (burst ${BURST})`,
    );
    expect(admitted).toBeGreaterThanOrEqual(BURST);
    expect(admitted).toBeLessThanOrEqual(BURST + 1);
  });

  it('with Redis unreachable, each replica keeps its own bucket: at most 3 × 12 admitted, never an error', async () => {
    await threeReplicas('redis://127.0.0.1:9');
    const { admitted, limited } = await burst();
    reportFigures(
      `[rate limit] Redis down: ${admitted} admitted, ${limited} limited (3 local buckets of ${BURST})`,
    );
    expect(admitted).toBe(3 * BURST);
  });
});
