/**
 * A credential a backend echoes in a 200 answer must not reach the caller as an output
 * value. Over real HTTP: the lab backend's /echo reflects every request header.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolIdFor } from '../../src/compile/tool-signature.ts';
import { type LabBackend, startLabBackend } from '../engine/lab-backend.ts';
import { invoke, startTestGateway } from '../support/start-test-gateway.ts';

const SECRETS = {
  ECHO_BEARER: 'echo-bearer-0123456789',
  ECHO_SERVICE_TOKEN: 'echo-service-token-9876',
  ACME_LAB_KEY: 'acme-echo-lab-key',
};
const ACME = 'acme-token-0123456789abcdefghij';
const USER_KEY = 'end-user-key-424242';

let lab: LabBackend;
let gateway: Awaited<ReturnType<typeof startTestGateway>>;

beforeAll(async () => {
  lab = await startLabBackend();
  gateway = await startTestGateway(
    'test/hardening/fixtures/echo',
    { LAB_URL: lab.url, ...SECRETS, ACME_TOKEN: ACME },
    { callers: 'test/hardening/fixtures/echo-callers.yaml' },
  );
});
afterAll(async () => {
  await gateway?.close();
  await lab?.close();
});

const call = (tool: string, headers: Record<string, string> = {}) =>
  invoke(
    gateway.url,
    `/tools/${toolIdFor(tool)}:invoke`,
    { name: tool, input_parameters: [] },
    { authorization: `Bearer ${ACME}`, ...headers },
  );

describe('outputs never carry a credential the gateway holds', () => {
  it('a header-less projection still answers: the control', async () => {
    const res = await call('echo_count');
    expect(res.status).toBe(200);
    expect(res.body.output_parameters).toEqual([{ name: 'count', value: expect.any(Number) }]);
  });

  it.each([
    ['echo_bearer', 'the configured Authorization value'],
    ['echo_token_only', 'the token without its scheme'],
    ['echo_service', 'a second credential header, inside a json output'],
    ['tenant_echo', "the tenant's own credential (callers file)"],
  ])('%s (%s): 502 upstream.secret_echoed, the value nowhere in the answer', async (tool) => {
    const res = await call(tool);
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ code: 'upstream.secret_echoed', retryable: false });
    const text = JSON.stringify(res.body);
    for (const secret of [...Object.values(SECRETS), ACME]) expect(text).not.toContain(secret);
    // The backend was called and did echo it: the refusal is the gateway's.
    expect(lab.requests.at(-1)?.path).toBe('/echo');
  });

  it("a user's pass-through credential echoed back is refused too", async () => {
    const res = await call('user_echo', { 'x-lab-user-key': USER_KEY });
    expect([res.status, res.body.code]).toEqual([502, 'upstream.secret_echoed']);
    expect(JSON.stringify(res.body)).not.toContain(USER_KEY);
  });

  it('the refusal is counted under its own outcome', async () => {
    const before = gateway.reports.length;
    await call('echo_bearer');
    expect(gateway.reports.slice(before).map((r) => r.outcome)).toEqual(['upstream.secret_echoed']);
  });
});
