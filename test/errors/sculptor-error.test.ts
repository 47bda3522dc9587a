/**
 * The one error type: codes are stable and grouped by phase, each with the status and retry
 * advice a face answers; what reaches the wire is the code, the message and the problems — never
 * the cause, the hint or a position naming a deployment's files.
 */
import { describe, expect, it } from 'vitest';
import {
  CODES,
  type ErrorCode,
  SculptLoadError,
  SculptorError,
  toSculptorError,
} from '../../src/errors/sculptor-error.ts';

const PHASES = [
  'load',
  'compile',
  'lint',
  'request',
  'auth',
  'tool',
  'input',
  'upstream',
  'projection',
  'gateway',
  'eval',
];

describe('CODES', () => {
  it('names each code by its phase, with an HTTP error status and a title', () => {
    for (const [code, info] of Object.entries(CODES)) {
      expect(code === 'internal' || PHASES.includes(code.split('.')[0]!), code).toBe(true);
      expect(info.status, code).toBeGreaterThanOrEqual(400);
      expect(info.status, code).toBeLessThan(600);
      expect(info.title.length, code).toBeGreaterThan(0);
    }
  });

  it('advises a retry only where one can succeed later', () => {
    const retryable = (Object.keys(CODES) as ErrorCode[]).filter((c) => CODES[c].retryable);
    // Nothing a designer or a caller must change is worth retrying as it is.
    for (const code of retryable) expect(code).not.toMatch(/^(load|compile|lint|input)\.|^tool\.not_found/);
    expect(retryable).toEqual(expect.arrayContaining(['upstream.timeout', 'gateway.overloaded']));
  });
});

describe('SculptorError', () => {
  const cause = new Error('connect ECONNREFUSED 10.0.0.7:5432');
  const error = new SculptorError('upstream.unavailable', 'The backend is unavailable.', {
    cause,
    hint: 'set PET_KEY in the gateway environment',
    at: { file: '/etc/sculpts/pets/get_pet.v1.sculpt.yaml', line: 3, column: 7 },
    retryAfter: 2,
  });

  it('answers its status and retry advice from CODES', () => {
    expect(error.status).toBe(503);
    expect(error.retryable).toBe(true);
    expect(error.cause).toBe(cause);
  });

  it('puts only the code, message, retry advice and problems on the wire', () => {
    const wire = JSON.stringify(error);
    expect(JSON.parse(wire)).toEqual({
      code: 'upstream.unavailable',
      message: 'The backend is unavailable.',
      retryable: true,
    });
    for (const secret of ['ECONNREFUSED', 'PET_KEY', '/etc/sculpts']) expect(wire).not.toContain(secret);
    const invalid = new SculptorError('input.invalid', 'Invalid input.', {
      problems: [{ parameter: 'id', reason: 'must be an integer' }],
    });
    expect(invalid.toJSON().problems).toEqual([{ parameter: 'id', reason: 'must be an integer' }]);
  });

  it('formats for designers as file:line:col code message', () => {
    expect(error.format()).toBe(
      '/etc/sculpts/pets/get_pet.v1.sculpt.yaml:3:7 upstream.unavailable The backend is unavailable.',
    );
    expect(new SculptorError('tool.error', 'No such pet.').format()).toBe('tool.error No such pet.');
  });
});

describe('toSculptorError', () => {
  it('keeps a SculptorError and wraps anything else as internal, its text kept only as the cause', () => {
    expect(toSculptorError(error())).toBeInstanceOf(SculptorError);
    const thrown = new TypeError('Cannot read properties of undefined (reading "secret")');
    const wrapped = toSculptorError(thrown);
    expect(wrapped.code).toBe('internal');
    expect(wrapped.message).not.toContain('secret');
    expect(wrapped.cause).toBe(thrown);
    expect(toSculptorError('a string').code).toBe('internal');
  });

  function error(): SculptorError {
    return new SculptorError('tool.not_found', 'No tool named x.');
  }
});

describe('SculptLoadError', () => {
  it('carries every finding and lists each in its message', () => {
    const findings = [
      new SculptorError('load.yaml', 'Bad indentation.', {
        at: { file: 'a.sculpt.yaml', line: 2, column: 1 },
      }),
      new SculptorError('compile.unknown_operation', 'No operation getPets.', {
        at: { file: 'b.sculpt.yaml', line: 5, column: 7 },
      }),
    ];
    const error = new SculptLoadError(findings);
    expect(error.errors).toBe(findings);
    expect(error.message).toContain('2 error(s)');
    expect(error.message).toContain('a.sculpt.yaml:2:1 load.yaml Bad indentation.');
    expect(error.message).toContain('b.sculpt.yaml:5:7 compile.unknown_operation');
  });
});
