import type { SuspensionSettings } from '../config/jsonata-settings.ts';
import type { CompiledTool } from '../compile/compile-tool.ts';
import { SculptorError } from '../errors/sculptor-error.ts';

/**
 * A tool whose expressions keep breaching their evaluation budget is suspended: for a while it
 * answers `tool.suspended` at once, without calling its backend or evaluating anything, and
 * every other tool goes on as before. Without this, one bad sculpt (or a backend whose answers
 * push a good one past its budget) spends an evaluator's time on every call, and in the
 * gateway's own thread its lag would shed every caller's invocations.
 *
 * A breach is a projection that failed on a limit of the sandbox (docs/SECURITY.md, "Expressions"):
 * Sculptor's `D9001`–`D9005`, jsonata's time limit `D1012`, an evaluator stopped at its cap or
 * out of memory (`W1002`, `W1003`, `W1004`). `breaches` of them within `windowMs` suspend the
 * tool for `suspendMs`; after that they are counted afresh. State is per compiled
 * tool, so a reload that fixes the sculpt starts clean.
 */

const BREACH_CODES = new Set([
  'D9001',
  'D9002',
  'D9003',
  'D9004',
  'D9005',
  'D1012',
  'W1002',
  'W1003',
  'W1004',
]);

/** Whether an invocation's error is a budget breach of one of its expressions. */
export function isBudgetBreach(err: unknown): boolean {
  if (!(err instanceof SculptorError) || err.code !== 'projection.failed') return false;
  const code = (err.cause as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' && BREACH_CODES.has(code);
}

/** What the suspension of one tool says, for the log line and the metric. */
export interface Suspension {
  tool: string;
  version: number;
  file: string;
  breaches: number;
  forMs: number;
}

interface State {
  /** When each recent breach happened (ms), oldest first. */
  breaches: number[];
  until: number;
}

export interface ToolSuspensions {
  /** Throws `tool.suspended` while the tool is suspended. */
  check(tool: CompiledTool): void;
  /** Records a finished invocation; the suspension it caused, if it caused one. */
  record(tool: CompiledTool, err: unknown): Suspension | undefined;
}

export function createToolSuspensions(
  settings: SuspensionSettings,
  now: () => number = Date.now,
): ToolSuspensions {
  const states = new WeakMap<CompiledTool, State>();
  return {
    check(tool) {
      const state = states.get(tool);
      if (!state || state.until <= now()) return;
      const seconds = Math.ceil((state.until - now()) / 1000);
      throw new SculptorError(
        'tool.suspended',
        `The tool '${tool.signature.name}' is suspended for ${seconds} s: its expressions kept exceeding their evaluation budget (a sculpt or backend answer the operator should look at). Other tools are not affected.`,
      );
    },
    record(tool, err) {
      if (settings.breaches === 0 || !isBudgetBreach(err)) return undefined;
      const at = now();
      let state = states.get(tool);
      if (!state) states.set(tool, (state = { breaches: [], until: 0 }));
      state.breaches.push(at);
      while (state.breaches.length > 0 && state.breaches[0]! <= at - settings.windowMs)
        state.breaches.shift();
      if (state.breaches.length < settings.breaches || state.until > at) return undefined;
      const breaches = state.breaches.length;
      state.until = at + settings.suspendMs;
      // Counted afresh after it ends: a tool still bad is suspended again after as many breaches.
      state.breaches = [];
      return {
        tool: tool.signature.name,
        version: tool.signature.version,
        file: tool.file,
        breaches,
        forMs: settings.suspendMs,
      };
    },
  };
}
