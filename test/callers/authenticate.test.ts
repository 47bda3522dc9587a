/**
 * Who is calling, decided at once where nothing needs to be fetched: the anonymous caller and a
 * static token's caller are values, not promises, and a refusal is thrown at once — the faces
 * await only an identity provider's verification (identity.test.ts covers that path end to end).
 */
import { expect, it } from 'vitest';
import { authenticate } from '../../src/callers/authenticate.ts';
import { ANONYMOUS, loadCallers } from '../../src/callers/load-callers.ts';
import { SculptorError } from '../../src/errors/sculptor-error.ts';

const GLOBEX_TOKEN = 'globex-token-0123456789abcdef';
const ENV = {
  ACME_LAB_KEY: 'a',
  GLOBEX_LAB_KEY: 'g',
  ACME_TOKEN: 'acme-token-0123456789abcdefgh',
  GLOBEX_TOKEN,
};

async function directory() {
  const { directory, errors } = await loadCallers('test/callers/fixtures/quota-callers.yaml', ENV);
  expect(errors).toEqual([]);
  return directory!;
}

it('answers the anonymous caller as a value when there is no callers file', () => {
  const caller = authenticate(undefined, 'Bearer anything');
  expect(caller).not.toBeInstanceOf(Promise);
  expect(caller).toBe(ANONYMOUS);
});

it("answers a static token's caller as a value", async () => {
  const callers = await directory();
  const caller = authenticate(callers, `Bearer ${GLOBEX_TOKEN}`);
  expect(caller).not.toBeInstanceOf(Promise);
  expect(caller).toMatchObject({ name: 'globex-agent', tenant: { name: 'globex' } });
});

it('refuses a missing or unknown token at once, saying what to send', async () => {
  const callers = await directory();
  const refusal = (authorization: string | undefined) => {
    try {
      authenticate(callers, authorization);
    } catch (err) {
      return err;
    }
    throw new Error('authenticate did not throw');
  };
  expect(refusal(undefined)).toMatchObject({
    code: 'auth.unauthenticated',
    message: 'Send Authorization: Bearer <token>.',
  });
  const unknown = refusal('Bearer not-a-token');
  expect(unknown).toBeInstanceOf(SculptorError);
  expect(unknown).toMatchObject({ code: 'auth.unauthenticated', message: 'The bearer token is not valid.' });
});
