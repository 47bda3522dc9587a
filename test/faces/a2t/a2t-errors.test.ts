/** Problem details, the one writer: every code answered, load-time findings never leaked. */
import { describe, expect, it } from 'vitest';
import { CODES, type ErrorCode, phaseOf, SculptorError } from '../../../src/errors/sculptor-error.ts';
import { problemBody } from '../../../src/faces/common/problem-details.ts';

describe('problem details by phase', () => {
  it('knows the phase of every code by its prefix: load, compile (lint too), cli (eval), else request', () => {
    const phases = (Object.keys(CODES) as ErrorCode[]).map((code) => [code, phaseOf(code)]);
    for (const [code, phase] of phases) {
      const prefix = code!.split('.')[0];
      const expected =
        prefix === 'load'
          ? 'load'
          : prefix === 'compile' || prefix === 'lint'
            ? 'compile'
            : prefix === 'eval'
              ? 'cli'
              : 'request';
      expect(phase, code).toBe(expected);
    }
    expect(phaseOf('internal')).toBe('request');
  });

  it('writes request-time errors with their own detail, load-time findings with a generic one', () => {
    for (const code of Object.keys(CODES) as ErrorCode[]) {
      const error = new SculptorError(code, 'secret path /etc/sculpts/x.yaml', {
        problems: [{ parameter: 'p', reason: 'r' }],
      });
      const body = problemBody(error);
      expect(body.code).toBe(code);
      expect(body.status).toBe(CODES[code].status);
      if (phaseOf(code) !== 'request') {
        expect(code).toMatch(/^(load|compile|lint|eval)\./);
        expect(JSON.stringify(body)).not.toContain('/etc/sculpts');
      } else {
        expect(body.detail).toBe('secret path /etc/sculpts/x.yaml');
      }
    }
  });
});
