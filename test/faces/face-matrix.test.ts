/**
 * The tenancy and limit cases, run through every face (FACE_DRIVERS, issue #22): what a caller
 * may see and call, and how the gateway refuses, must not depend on the protocol it speaks.
 * The sculpt test files run through every face in test/cases/tools/sculpt-cases.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LabBackend, labUser, startLabBackend } from '../engine/lab-backend.ts';
import { startTestGateway } from '../support/start-test-gateway.ts';
import { FACE_DRIVERS } from './drivers/index.ts';
import { ACME, GLOBEX, TENANCY_CALLERS, TENANCY_SCULPTS, tenancyEnv } from '../support/tenancy-fixture.ts';

const SCULPTS = TENANCY_SCULPTS;
const CALLERS = TENANCY_CALLERS;

type TestGateway = Awaited<ReturnType<typeof startTestGateway>>;

let lab: LabBackend;
const env = () => tenancyEnv(lab);

beforeAll(async () => {
  lab = await startLabBackend();
});
afterAll(async () => {
  await lab?.close();
});

for (const driver of FACE_DRIVERS) {
  describe(`the ${driver.name} face`, () => {
    describe('two tenants (RELIABILITY D1, D4, D5)', () => {
      let gateway: TestGateway;
      beforeAll(async () => {
        gateway = await startTestGateway(SCULPTS, env(), { callers: CALLERS });
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

    describe('limits', () => {
      let gateway: TestGateway;
      beforeAll(async () => {
        gateway = await startTestGateway(SCULPTS, env(), {
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
