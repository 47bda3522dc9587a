import { expect } from 'vitest';
import { type ErrorCode, SculptorError } from '../../src/errors/sculptor-error.ts';

/** Awaits `promise`, expects it to reject with a SculptorError of `code`, and returns that error. */
export async function expectCode(promise: Promise<unknown>, code: ErrorCode): Promise<SculptorError> {
  const err = await promise.then(
    (value) => {
      throw new Error(`expected ${code}, got a value: ${JSON.stringify(value)?.slice(0, 200)}`);
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SculptorError);
  expect((err as SculptorError).code).toBe(code);
  return err as SculptorError;
}
