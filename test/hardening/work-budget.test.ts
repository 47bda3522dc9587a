/**
 * Per-invocation work budget (RELIABILITY C9): at most 8 steps (the sculpt
 * schema), and at most SCULPTOR_MAX_BACKEND_CALLS backend calls, retries
 * included (default 20), whatever the retries would otherwise do.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileSculpts } from '../../src/compile/compile-sculpts.ts';
import type { CompiledTool } from '../../src/compile/compile-tool.ts';
import { readSettings, SettingsError } from '../../src/config/settings.ts';
import { createEngine, MAX_BACKEND_CALLS } from '../../src/engine/invoke-tool.ts';
import { SculptorError } from '../../src/errors/sculptor-error.ts';
import type { BackendRequest, BackendResponse } from '../../src/http/backend-client.ts';
import { withResilience } from '../../src/http/resilient-sender.ts';
import { type FaultBackend, startFaultBackend } from '../http/fault-backend.ts';
import { invoke, startTestGateway } from '../support/start-test-gateway.ts';
import { toolIdFor } from '../../src/compile/tool-signature.ts';

const SCULPTS = 'test/hardening/fixtures/sculpts';
const EIGHT = { code: 503 };

describe('the call budget in the engine, retries included', () => {
  let tool: CompiledTool;
  beforeAll(async () => {
    const tools = await compileSculpts(SCULPTS, {
      FAULT_URL: 'http://127.0.0.1:9',
      HOSTILE_URL: 'http://127.0.0.1:9',
      KEYED_TOKEN: 'unused-token',
    });
    tool = tools.find((t) => t.signature.name === 'eight_calls')!;
  });

  /** 8 steps against a backend that always answers 503: without a budget, 8 × 3 attempts. */
  async function callsMade(maxBackendCalls?: number): Promise<{ calls: number; code: string }> {
    let calls = 0;
    const client = {
      send: async (_req: BackendRequest): Promise<BackendResponse> => {
        calls++;
        await new Promise((r) => setTimeout(r, 1));
        return { status: 503, headers: {}, contentType: 'application/json', body: {}, bytes: 2 };
      },
    };
    // Breaker, retry budget and backoff out of the way: only the call budget may stop the retries.
    const sender = withResilience(client, {
      breakerFailures: 1_000,
      retryBudgetMin: 1_000,
      backoffBaseMs: 1,
      backoffCapMs: 1,
    });
    const engine = createEngine({
      sender,
      cacheSecret: 'work-budget-secret-0123',
      ...(maxBackendCalls !== undefined ? { maxBackendCalls } : {}),
    });
    try {
      await engine.invoke(tool, EIGHT);
      return { calls, code: 'ok' };
    } catch (err) {
      return { calls, code: (err as SculptorError).code };
    }
  }

  it(`never makes more calls than the budget (default ${MAX_BACKEND_CALLS}) where retries alone would make 24`, async () => {
    expect(MAX_BACKEND_CALLS).toBe(20);
    expect(await callsMade(1_000)).toEqual({ calls: 24, code: 'upstream.unavailable' });
    const byDefault = await callsMade();
    expect(byDefault.calls).toBeLessThanOrEqual(20);
    expect(byDefault.code).toBe('upstream.unavailable');
    // A step whose retry is refused keeps the backend's answer and ends the
    // invocation, which stops the others: fewer calls than the budget is fine, more never.
    for (const budget of [1, 7, 8, 9, 12, 16, 23]) {
      const { calls, code } = await callsMade(budget);
      expect(calls, `budget ${budget}`).toBeLessThanOrEqual(budget);
      expect(calls, `budget ${budget}`).toBeGreaterThan(0);
      // Under 8, a step's first call is refused; from 8, only retries are.
      expect(code, `budget ${budget}`).toBe(budget < 8 ? 'upstream.call_budget' : 'upstream.unavailable');
    }
  });

  it('upstream.call_budget is a 502 that says not to retry', () => {
    const error = new SculptorError('upstream.call_budget', 'x');
    expect([error.status, error.retryable]).toEqual([502, false]);
  });
});

describe('SCULPTOR_MAX_BACKEND_CALLS on a real gateway', () => {
  let fault: FaultBackend;
  let tight: Awaited<ReturnType<typeof startTestGateway>>;
  let roomy: Awaited<ReturnType<typeof startTestGateway>>;
  const env = () => ({ FAULT_URL: fault.origin, HOSTILE_URL: fault.origin, KEYED_TOKEN: 'unused-token' });
  beforeAll(async () => {
    fault = await startFaultBackend();
    tight = await startTestGateway(SCULPTS, env(), { maxBackendCalls: 5 });
    roomy = await startTestGateway(SCULPTS, env());
  });
  afterAll(async () => {
    await Promise.all([tight?.close(), roomy?.close()]);
    await fault?.close();
  });
  const path = `/tools/${toolIdFor('eight_calls')}:invoke`;
  const ok = { name: 'eight_calls', input_parameters: [{ name: 'code', value: 200 }] };

  it('8 calls fit the default budget; with a budget of 5 no 6th is sent and the caller gets 502 upstream.call_budget', async () => {
    fault.reset();
    const fine = await invoke(roomy.url, path, ok);
    expect(fine.status).toBe(200);
    expect(fine.body.output_parameters).toEqual([{ name: 'count', value: 8 }]);
    expect(fault.requests).toHaveLength(8);

    fault.reset();
    const capped = await invoke(tight.url, path, ok);
    expect(capped.status).toBe(502);
    expect(capped.body).toMatchObject({ code: 'upstream.call_budget', retryable: false });
    // Give any straggler a moment to arrive. The failed step ends the invocation,
    // which aborts the 5 calls already let through: at most 5 reach the backend.
    await new Promise((r) => setTimeout(r, 100));
    expect(fault.requests.length).toBeLessThanOrEqual(5);
  });

  it('the setting is validated (1–1000)', () => {
    expect(readSettings({}).maxBackendCalls).toBe(20);
    expect(readSettings({ SCULPTOR_MAX_BACKEND_CALLS: '8' }).maxBackendCalls).toBe(8);
    for (const bad of ['0', '1001', 'many', '2.5']) {
      expect(() => readSettings({ SCULPTOR_MAX_BACKEND_CALLS: bad })).toThrow(SettingsError);
    }
  });
});
