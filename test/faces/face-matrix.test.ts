/**
 * The tenancy and limit cases, run through every face (FACE_DRIVERS) and `sculptor mcp` over
 * stdio: what a caller may see and call, and how the gateway refuses, must not depend on the
 * protocol it speaks. The sculpt test files run through every face in
 * test/cases/tools/sculpt-cases.test.ts.
 *
 * Admission runs the same gate everywhere: a stdio process composes the gateway's (the
 * settings come from its environment, as `sculptor mcp` reads them), so its caller meets the
 * same in-flight cap and rate. One kind of case does not apply to stdio: the Host/Origin rule
 * (test/server/host-policy.test.ts) guards an HTTP listener a web page could reach by rebinding
 * its own name to 127.0.0.1. stdio has no listener, no Host and no Origin: only the process
 * that launched it holds its pipes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LabBackend, labUser, startLabBackend } from '../engine/lab-backend.ts';
import { startTestGateway } from '../support/start-test-gateway.ts';
import { FACE_DRIVERS } from './drivers/index.ts';
import { ACME, GLOBEX, TENANCY_CALLERS, TENANCY_SCULPTS, tenancyEnv } from '../support/tenancy-fixture.ts';
import { type FaultBackend, startFaultBackend } from '../http/fault-backend.ts';
import type { FaceDriver } from './drivers/face-driver.ts';
import { stdioDriver } from './drivers/stdio-driver.ts';

const SCULPTS = TENANCY_SCULPTS;
const CALLERS = TENANCY_CALLERS;

/** What a case talks to: the HTTP gateway, or for stdio what its driver launches per token. */
type TestGateway = { url: string; close(): Promise<void> };

/** The HTTP faces and stdio; only the HTTP faces run the sculpt cases (they need no process each). */
const DRIVERS: readonly FaceDriver[] = [...FACE_DRIVERS, stdioDriver];

type GatewaySettings = Parameters<typeof startTestGateway>[2] & { callers: string };

/** A stdio process reads its settings from its environment, as `sculptor mcp` does. */
function settingsEnv(settings: GatewaySettings): Record<string, string> {
  const named: Array<[keyof GatewaySettings, string]> = [
    ['maxInflightPerCaller', 'SCULPTOR_MAX_INFLIGHT_PER_CALLER'],
    ['rateLimitPerS', 'SCULPTOR_RATE_LIMIT_PER_S'],
    ['rateLimitBurst', 'SCULPTOR_RATE_LIMIT_BURST'],
  ];
  return Object.fromEntries(
    named.filter(([key]) => settings[key] !== undefined).map(([key, name]) => [name, String(settings[key])]),
  );
}

function serve(
  driver: FaceDriver,
  sculpts: string,
  env: Record<string, string>,
  settings: GatewaySettings,
): Promise<TestGateway> {
  return driver === stdioDriver
    ? stdioDriver.serve(sculpts, { ...env, ...settingsEnv(settings) }, { callers: settings.callers })
    : startTestGateway(sculpts, env, settings);
}

const STDIO_TIMEOUT_MS = 90_000;

let lab: LabBackend;
let fault: FaultBackend;
const env = () => tenancyEnv(lab);

/** Two callers of one tenant and a backend that answers slowly (the in-flight cap case). */
const SLOW_SCULPTS = 'test/hardening/fixtures/sculpts';
const SLOW = 'slow-caller-token-0123456789';
const OTHER = 'other-caller-token-0123456789';
const slowEnv = () => ({
  FAULT_URL: fault.origin,
  HOSTILE_URL: fault.origin,
  KEYED_TOKEN: 'unused-token',
  SLOW_TOKEN: SLOW,
  OTHER_TOKEN: OTHER,
});

beforeAll(async () => {
  lab = await startLabBackend();
  fault = await startFaultBackend();
});
afterAll(async () => {
  await lab?.close();
  await fault?.close();
});

for (const driver of DRIVERS) {
  // A stdio case starts `sculptor mcp` processes (one per token) inside the test: on a loaded
  // machine each start takes seconds, which the default timeout was not sized for.
  describe(`the ${driver.name} face`, driver === stdioDriver ? { timeout: STDIO_TIMEOUT_MS } : {}, () => {
    describe('two tenants (RELIABILITY D1, D4, D5)', () => {
      let gateway: TestGateway;
      beforeAll(async () => {
        gateway = await serve(driver, SCULPTS, env(), { callers: CALLERS });
      });
      afterAll(async () => {
        await driver.close?.(gateway.url);
        await gateway?.close();
      });

      it("lists each tenant's own tools", async () => {
        expect(await driver.list(gateway.url, ACME)).toContain('public_stats');
        expect(await driver.list(gateway.url, GLOBEX)).toEqual([
          'tenant_balance',
          'tenant_whoami',
          'tenant_whoami_fresh',
          'user_whoami',
        ]);
      });

      it('answers a tool outside the tenant like a missing one, and calls no backend', async () => {
        const before = lab.requests.length;
        const hidden = await driver.invoke(gateway.url, { tool: 'public_stats', inputs: {}, token: GLOBEX });
        const missing = await driver.invoke(gateway.url, { tool: 'no_such_tool', inputs: {}, token: GLOBEX });
        expect(hidden.actual).toMatchObject({ error: { code: 'tool.not_found' } });
        expect(missing.actual).toMatchObject({ error: { code: 'tool.not_found' } });
        expect(hidden.status).toBe(missing.status);
        expect(lab.requests.length).toBe(before);
      });

      it("each tenant's credentials reach the backend, and its data comes back to it alone", async () => {
        const a = await driver.invoke(gateway.url, { tool: 'tenant_whoami', inputs: {}, token: ACME });
        const g = await driver.invoke(gateway.url, { tool: 'tenant_whoami', inputs: {}, token: GLOBEX });
        expect(a.actual).toEqual({ outputs: { user: labUser('acme-lab-key') } });
        expect(g.actual).toEqual({ outputs: { user: labUser('globex-lab-key') } });
      });

      it('refuses a call without a token or with a wrong one (auth.unauthenticated)', async () => {
        for (const token of [undefined, 'not-a-known-token-0123456789']) {
          const res = await driver.invoke(gateway.url, {
            tool: 'tenant_whoami',
            inputs: {},
            ...(token ? { token } : {}),
          });
          expect(res.actual).toMatchObject({ error: { code: 'auth.unauthenticated' } });
        }
      });

      it('reports every invalid input at once (input.invalid), calling no backend', async () => {
        const before = lab.requests.length;
        const res = await driver.invoke(gateway.url, {
          tool: 'tenant_whoami',
          inputs: { bogus: 1 },
          token: ACME,
        });
        expect(res.actual).toMatchObject({ error: { code: 'input.invalid' } });
        expect(lab.requests.length).toBe(before);
      });
    });

    describe('the in-flight cap (RELIABILITY A7)', () => {
      let gateway: TestGateway;
      const K = 3;
      const N = 7;
      beforeAll(async () => {
        gateway = await serve(driver, SLOW_SCULPTS, slowEnv(), {
          callers: 'test/server/fixtures/two-callers.yaml',
          maxInflightPerCaller: K,
        });
        // A stdio process starts on its first use: started here, the case times its calls only.
        for (const token of [SLOW, OTHER])
          expect(await driver.list(gateway.url, token)).toContain('delayed_json');
      }, STDIO_TIMEOUT_MS);
      afterAll(async () => {
        await driver.close?.(gateway.url);
        await gateway?.close();
      });

      it(`${N} calls at once against a cap of ${K}: ${K} run, the rest request.too_many_in_flight; the other caller is served`, async () => {
        fault.reset();
        const calls = Array.from({ length: N }, () =>
          driver.invoke(gateway.url, { tool: 'delayed_json', inputs: { ms: 800 }, token: SLOW }),
        );
        const until = performance.now() + 10_000;
        while (fault.requests.filter((r) => r.url.startsWith('/delay')).length < K) {
          if (performance.now() > until) throw new Error('the calls never reached the backend');
          await new Promise((r) => setTimeout(r, 10));
        }
        const other = await driver.invoke(gateway.url, { tool: 'fetch_json', inputs: {}, token: OTHER });
        expect(other.actual).toMatchObject({ outputs: {} });
        const codes = (await Promise.all(calls)).map((r) =>
          'error' in r.actual ? r.actual.error.code : 'ok',
        );
        expect(codes.filter((c) => c === 'ok')).toHaveLength(K);
        expect(codes.filter((c) => c === 'request.too_many_in_flight')).toHaveLength(N - K);
        expect(fault.requests.filter((r) => r.url.startsWith('/delay'))).toHaveLength(K);
      });
    });

    describe('limits', () => {
      let gateway: TestGateway;
      beforeAll(async () => {
        gateway = await serve(driver, SCULPTS, env(), {
          callers: CALLERS,
          rateLimitPerS: 1,
          rateLimitBurst: 2,
        });
      });
      afterAll(async () => {
        await driver.close?.(gateway.url);
        await gateway?.close();
      });

      it("refuses a caller past its rate (request.rate_limited), not the other tenant's callers", async () => {
        const codes: string[] = [];
        for (let i = 0; i < 4; i++) {
          const res = await driver.invoke(gateway.url, { tool: 'tenant_whoami', inputs: {}, token: ACME });
          codes.push('error' in res.actual ? res.actual.error.code : 'ok');
        }
        expect(codes.filter((c) => c === 'ok').length).toBeLessThanOrEqual(3);
        expect(codes).toContain('request.rate_limited');
        const other = await driver.invoke(gateway.url, { tool: 'tenant_whoami', inputs: {}, token: GLOBEX });
        expect(other.actual).toEqual({ outputs: { user: labUser('globex-lab-key') } });
      });
    });
  });
}
