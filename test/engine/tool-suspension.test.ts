/**
 * A tool's budget breaches suspend it (`src/engine/tool-suspension.ts`): counted within the
 * window only, the suspension timed, other failures and other tools not counted, a recompiled
 * tool clean. Over a real gateway: `test/hardening/sandbox-boundary.test.ts`.
 */
import { describe, expect, it } from 'vitest';
import type { CompiledTool } from '../../src/compile/compile-tool.ts';
import { createToolSuspensions, isBudgetBreach } from '../../src/engine/tool-suspension.ts';
import { SculptorError } from '../../src/errors/sculptor-error.ts';

const tool = (name: string) =>
  ({ file: `sculpts/${name}.v1.sculpt.yaml`, signature: { name, version: 1 } }) as unknown as CompiledTool;
const breach = (code = 'D9001') =>
  new SculptorError('projection.failed', `The output projection failed (JSONata ${code}).`, {
    cause: { code },
  });

describe('tool suspension', () => {
  it('counts budget breaches only: Sculptor limits, the time limit, an evaluator stopped or out of memory', () => {
    for (const code of ['D9001', 'D9002', 'D9003', 'D9004', 'D9005', 'D1012', 'W1002', 'W1003', 'W1004'])
      expect(isBudgetBreach(breach(code)), code).toBe(true);
    expect(isBudgetBreach(breach('T2001'))).toBe(false);
    expect(isBudgetBreach(breach('W1001'))).toBe(false); // the caller's deadline or departure
    expect(isBudgetBreach(new SculptorError('upstream.timeout', 'late', { cause: { code: 'D1012' } }))).toBe(
      false,
    );
  });

  it('suspends after N breaches within the window, for the suspension time, then counts afresh', () => {
    let now = 0;
    const suspensions = createToolSuspensions({ breaches: 3, windowMs: 1_000, suspendMs: 5_000 }, () => now);
    const bad = tool('bad');
    const good = tool('good');
    expect(suspensions.record(bad, breach())).toBeUndefined();
    now = 600;
    expect(suspensions.record(bad, breach())).toBeUndefined();
    now = 1_200; // the first breach has left the window
    expect(suspensions.record(bad, breach())).toBeUndefined();
    suspensions.record(good, breach());
    suspensions.record(bad, new SculptorError('upstream.error', 'backend said no'));
    now = 1_300;
    const suspended = suspensions.record(bad, breach());
    expect(suspended).toEqual({
      tool: 'bad',
      version: 1,
      file: 'sculpts/bad.v1.sculpt.yaml',
      breaches: 3,
      forMs: 5_000,
    });
    expect(() => suspensions.check(bad)).toThrow(expect.objectContaining({ code: 'tool.suspended' }));
    expect(() => suspensions.check(good)).not.toThrow();
    now = 6_300;
    expect(() => suspensions.check(bad)).not.toThrow();
    expect(suspensions.record(bad, breach())).toBeUndefined();
    // A reload compiles new tool objects: the same name starts clean.
    expect(() => suspensions.check(tool('bad'))).not.toThrow();
  });

  it('never suspends with breaches set to 0', () => {
    const suspensions = createToolSuspensions({ breaches: 0, windowMs: 1_000, suspendMs: 5_000 });
    const bad = tool('bad');
    for (let i = 0; i < 100; i++) expect(suspensions.record(bad, breach())).toBeUndefined();
    expect(() => suspensions.check(bad)).not.toThrow();
  });
});
