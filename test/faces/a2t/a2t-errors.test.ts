/** The A2T face's error table (issue #22): every code answered, load-time findings never leaked. */
import { describe, expect, it } from 'vitest';
import { CODES, type ErrorCode, SculptorError } from '../../../src/errors/sculptor-error.ts';
import { A2T_ERRORS } from '../../../src/faces/a2t/a2t-errors.ts';
import { problemBody } from '../../../src/faces/shared/problem-details.ts';

describe('A2T_ERRORS', () => {
  it('answers exactly the codes of CODES', () => {
    expect(Object.keys(A2T_ERRORS).sort()).toEqual(Object.keys(CODES).sort());
  });

  it('writes request-time errors with their own detail, load-time findings with a generic one', () => {
    for (const code of Object.keys(CODES) as ErrorCode[]) {
      const error = new SculptorError(code, 'secret path /etc/sculpts/x.yaml', {
        problems: [{ parameter: 'p', reason: 'r' }],
      });
      const body = problemBody(error, A2T_ERRORS[code] === 'never');
      expect(body.code).toBe(code);
      expect(body.status).toBe(CODES[code].status);
      if (A2T_ERRORS[code] === 'never') {
        expect(code).toMatch(/^(load|compile|lint)\./);
        expect(JSON.stringify(body)).not.toContain('/etc/sculpts');
      } else {
        expect(body.detail).toBe('secret path /etc/sculpts/x.yaml');
      }
    }
  });
});
