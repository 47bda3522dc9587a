import type { StepCache } from '../cache/step-cache.ts';
import { isLimitError } from '../compile/jsonata/evaluation-budget.ts';
import { processJsonataSettings, type SuspensionSettings } from '../config/jsonata-settings.ts';
import { BAIL } from '../compile/compile-expression.ts';
import type { CompiledStep, CompiledTool } from '../compile/compile-tool.ts';
import { SculptorError, toSculptorError } from '../errors/sculptor-error.ts';
import type { CallBudget } from '../http/resilient-sender.ts';
import { createTokenSource, type TokenSource } from '../oauth/token-source.ts';
import { DEFAULT_CALLER, type InvocationCaller } from './attach-credentials.ts';
import { checkOutput, type OutputValue } from './check-output.ts';
import { NO_SECRETS, refuseEchoedSecrets } from './echoed-secrets.ts';
import {
  type BackendSender,
  runStep,
  type StepContext,
  type StepDebugHook,
  type StepReport,
} from './run-step.ts';
import { runToolWorkflow } from './run-tool-workflow.ts';
import { describeStep, NO_TRACING, type StepTracer } from './step-tracer.ts';
import { createToolSuspensions, type Suspension } from './tool-suspension.ts';
import type { TrackStep } from './run-workflow.ts';
import { type ToolArguments, validateArguments } from './validate-arguments.ts';

export interface EngineOptions {
  sender: BackendSender;
  /** Absent: steps are never cached. */
  cache?: StepCache;
  /** Keys caller-scoped cache entries; the same on every replica sharing a cache. */
  cacheSecret: string;
  /** Lets every backend reach loopback and private addresses (tests, local demos). */
  allowPrivateEgress?: boolean;
  /** Off by default: per-step requests and answers for a designer (`sculptor invoke --debug`). */
  debug?: StepDebugHook;
  /** Step spans and trace propagation; none by default (the core builder installs telemetry's). */
  tracer?: StepTracer;
  /** Backend calls per invocation, retries included (RELIABILITY C9). Default MAX_BACKEND_CALLS. */
  maxBackendCalls?: number;
  /** OAuth tokens for backends; default: kept in this process only. */
  tokens?: TokenSource;
  /**
   * The host's drain (RELIABILITY J1): once aborted, in-flight invocations are stopped and end as
   * `gateway.draining` (503, retryable), not as a reset connection. One listener for all of them.
   */
  drain?: AbortSignal;
  /** When a tool's budget breaches suspend it (`tool-suspension.ts`); default: the process's settings. */
  suspension?: SuspensionSettings;
}

/** The default work budget: 8 steps may each retry, but 20 calls in all (RELIABILITY C9). */
export const MAX_BACKEND_CALLS = 20;

/** A tool's outputs, declared ones only, in signature order; each face gives them its own shape. */
export interface InvocationResult {
  outputs: OutputValue[];
}

/** Everything known about one invocation, for telemetry and logs; never holds values. */
export interface InvocationReport {
  tool: string;
  version: number;
  outcome: 'ok' | string;
  durationMs: number;
  steps: StepReport[];
  /** Set on the invocation whose breach suspended its tool (logged and counted by telemetry). */
  suspended?: Suspension;
}

export interface InvokeOptions {
  signal?: AbortSignal;
  onReport?: (report: InvocationReport) => void;
  /** Who the invocation is for; DEFAULT_CALLER (one tenant, no context) when absent. */
  caller?: InvocationCaller;
  /**
   * Steps finished so far, of the tool's steps: once with 0 when the steps start, then after each
   * step that succeeds (a face that reports progress, MCP's `notifications/progress`, reads it).
   */
  onProgress?: (done: number, total: number) => void;
  /** The face the invocation came through (`a2t`, `mcp`…), for telemetry; the engine ignores it. */
  face?: string;
}

/**
 * Named arguments, or a function that reads them from a face's envelope: called where the
 * engine validates, so an envelope's problems (A2T's `input_parameters`) are the invocation's
 * `input.invalid`, counted, traced and logged like every other outcome.
 */
export type InvocationArguments = ToolArguments | (() => ToolArguments);

export interface Engine {
  /** Runs one invocation of `tool` with named arguments (see validateArguments). */
  invoke(tool: CompiledTool, args: InvocationArguments, options?: InvokeOptions): Promise<InvocationResult>;
}

/**
 * The invoke engine: validate → run the steps (each as soon as the steps it
 * reads are done, so independent steps run concurrently) → project → check.
 * It knows nothing of HTTP faces, so a CLI or a test runner can drive it too.
 */
export function createEngine(options: EngineOptions): Engine {
  const tokens = options.tokens ?? createTokenSource({ secret: options.cacheSecret });
  const { drain } = options;
  const tracer = options.tracer ?? NO_TRACING;
  const suspensions = createToolSuspensions(options.suspension ?? processJsonataSettings().suspension);
  // What stops each invocation in flight when the drain comes: a set, so the drain signal keeps
  // one listener however many invocations run (an EventTarget's removal is a linear search).
  // It holds each invocation's controller, never a closure over the invocation's scope: with
  // closures in it, the scopes of finished invocations (the backend's parsed answer among what
  // they reach) survived young collections into the old generation, 8 KiB a call at 8 concurrent
  // calls against under 2 with controllers (docs/PERFORMANCE.md, "Measured facts").
  const stopOnDrain = new Set<AbortController>();
  drain?.addEventListener('abort', () => {
    for (const abort of stopOnDrain) abort.abort(drain.reason);
  });
  return {
    async invoke(tool, args, { signal, onReport, onProgress, caller = DEFAULT_CALLER } = {}) {
      const started = performance.now();
      const reports: StepReport[] = [];
      const run = new InvocationRun(tool, signal, options.maxBackendCalls ?? MAX_BACKEND_CALLS);
      try {
        suspensions.check(tool);
        const inputs = validateArguments(tool, typeof args === 'function' ? args() : args);
        run.start();
        // Whatever it ends, the invocation answers gateway.draining (the catch below).
        if (drain?.aborted) run.abort.abort(drain.reason);
        else if (drain) stopOnDrain.add(run.abort);
        const ctx: StepContext = {
          inputs,
          caller,
          steps: {},
          signal: run.abort.signal,
          deadlineAt: run.deadlineAt,
          sender: options.sender,
          calls: run,
          cache: options.cache,
          cacheSecret: options.cacheSecret,
          tokens,
          allowPrivate: options.allowPrivateEgress ?? false,
          debug: options.debug,
          secrets: NO_SECRETS,
          tracer,
        };
        let outputBindings: Record<string, unknown>;
        try {
          if (tool.workflow) {
            const outputs = await runWorkflowTool(tool, ctx, reports, onProgress);
            outputBindings = { inputs, steps: ctx.steps, outputs };
          } else {
            await runChain(tool, ctx, reports, run.abort, onProgress);
            outputBindings = { inputs, steps: ctx.steps };
          }
        } catch (err) {
          run.pastDeadline();
          throw run.stopped(err);
        }
        let projected = tool.output.evaluateSync(inputs, outputBindings);
        try {
          if (projected === BAIL)
            projected = await tool.output.evaluate(inputs, outputBindings, {
              signal: run.abort.signal,
              deadlineAt: ctx.deadlineAt,
            });
        } catch (err) {
          // A worker evaluation killed at the deadline (G6), or one whose jsonata timeout was cut
          // short to the deadline, is the deadline's doing, not the sculpt's.
          if (run.pastDeadline() || run.callerLeft) throw run.stopped(err);
          const code = (err as { code?: string }).code ?? 'error';
          const limit = isLimitError(err) ? ` ${err.message}` : '';
          throw new SculptorError(
            'projection.failed',
            `The output projection failed (JSONata ${code}).${limit}`,
            {
              cause: err,
            },
          );
        }
        const outputs = checkOutput(tool, projected);
        refuseEchoedSecrets(outputs, ctx.secrets);
        if (onReport) onReport(invocationReport(tool, 'ok', started, reports));
        return { outputs };
      } catch (err) {
        // Whatever ended an invocation once the drain came, its caller is told to retry elsewhere.
        const error = drain?.aborted
          ? new SculptorError('gateway.draining', 'The gateway is shutting down; retry.', { cause: err })
          : toSculptorError(err);
        const suspended = suspensions.record(tool, error);
        if (onReport) onReport(invocationReport(tool, error.code, started, reports, suspended));
        throw error;
      } finally {
        run.end();
        stopOnDrain.delete(run.abort);
      }
    },
  };
}

/**
 * The chain: each step starts as soon as the steps it reads are done, so independent steps run
 * concurrently; results are written per step id, so the outcome does not depend on timing.
 */
function runChain(
  tool: CompiledTool,
  ctx: StepContext,
  reports: StepReport[],
  abort: AbortController,
  onProgress: InvokeOptions['onProgress'],
): Promise<void> {
  const total = tool.steps.length;
  onProgress?.(0, total);
  const stepDone = onProgress && progressCounter(onProgress, total);
  // One step: nothing to schedule, no other step to stop when it fails, no promise around its own,
  // and no closure to start it.
  if (total === 1) {
    const step = tool.steps[0]!;
    // A tool of one step: its step is folded into the execute_tool span.
    return tracedStep(step, ctx, pushReport(reports, step), stepDone, true);
  }
  return runConcurrently(
    tool,
    (step) => {
      const report = pushReport(reports, step);
      return () => tracedStep(step, ctx, report, stepDone, false);
    },
    abort,
  );
}

/** A step's report, listed in the invocation's in the order the steps are declared. */
function pushReport(reports: StepReport[], step: CompiledStep): StepReport {
  const report: StepReport = {
    id: step.id,
    backend: step.backend.name,
    operation: step.operationRef,
    outcome: 'not_run',
    cache: 'off',
    durationMs: 0,
  };
  reports.push(report);
  return report;
}

function tracedStep(
  step: CompiledStep,
  ctx: StepContext,
  report: StepReport,
  stepDone: (() => void) | undefined,
  fold: boolean,
): Promise<void> {
  return ctx.tracer.traceStep(
    describeStep(step),
    report,
    () => runReported(step, ctx, report, stepDone),
    fold,
  );
}

/** Tells `onProgress` of each step done, of `total`. */
function progressCounter(onProgress: (done: number, total: number) => void, total: number): () => void {
  let done = 0;
  return () => onProgress(++done, total);
}

async function runConcurrently(
  tool: CompiledTool,
  starter: (step: CompiledStep) => () => Promise<void>,
  abort: AbortController,
): Promise<void> {
  const running = new Map<string, Promise<unknown>>();
  for (const step of tool.steps) {
    const start = starter(step);
    // A step that reads no other starts at once, not a turn later behind an empty Promise.all.
    const run =
      step.dependsOn.length === 0
        ? start()
        : Promise.all(step.dependsOn.map((id) => running.get(id))).then(start);
    // A failed step ends the invocation: stop the others' backend calls.
    run.catch(() => abort.abort());
    running.set(step.id, run);
  }
  try {
    await Promise.all(running.values());
  } catch (err) {
    await Promise.allSettled(running.values());
    throw err;
  }
}

/** Runs one chain step inside its report, keeping its result: inReport's work, with no closure to run. */
async function runReported(
  step: CompiledStep,
  ctx: StepContext,
  report: StepReport,
  stepDone: (() => void) | undefined,
): Promise<void> {
  const t0 = performance.now();
  try {
    ctx.steps[step.id] = await runStep(step, ctx, report);
    stepDone?.();
  } catch (err) {
    throw reportFailure(report, err);
  } finally {
    report.durationMs = performance.now() - t0;
  }
}

/** Runs one step execution inside its report: its duration, and the error's code and hint when it fails. */
async function inReport<T>(report: StepReport, run: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  try {
    return await run();
  } catch (err) {
    throw reportFailure(report, err);
  } finally {
    report.durationMs = performance.now() - t0;
  }
}

/** Records why a step failed in its report; returns the error, to be thrown on as it is. */
function reportFailure(report: StepReport, err: unknown): unknown {
  const error = toSculptorError(err);
  report.errorCode = error.code;
  if (error.hint !== undefined) report.errorHint = error.hint;
  if (report.outcome === 'not_run') report.outcome = 'error';
  return err;
}

/**
 * One invocation's state beside its context: the controller that stops it, its deadline and
 * timer, why it stopped, and its allowance of backend calls. One object with methods rather than
 * closures over the invocation's scope: a closure makes every invocation allocate that scope as a
 * context object, and the object is also the caller's abort listener (an EventListener object)
 * and the deadline timer's argument.
 */
class InvocationRun implements CallBudget {
  /** Aborted by the deadline (reason: a TimeoutError), by the caller going away, or by a failed step. */
  readonly abort = new AbortController();
  /** When the invocation must have ended (epoch ms), set by start. */
  deadlineAt = 0;
  deadlineHit = false;
  callerLeft = false;
  #timer: NodeJS.Timeout | undefined;
  #callsLeft: number;
  readonly #tool: CompiledTool;
  readonly #signal: AbortSignal | undefined;

  constructor(tool: CompiledTool, signal: AbortSignal | undefined, maxCalls: number) {
    this.#tool = tool;
    this.#signal = signal;
    this.#callsLeft = maxCalls;
  }

  /** Starts the deadline and listens for the caller going away. */
  start(): void {
    this.deadlineAt = Date.now() + this.#tool.timeoutMs;
    this.#timer = setTimeout(deadlinePassed, this.#tool.timeoutMs, this);
    if (this.#signal?.aborted) this.handleEvent();
    // A signal aborts once, and end() removes the listener: no `once` to parse.
    else this.#signal?.addEventListener('abort', this);
  }

  /** Lets go of the timer and of the caller's signal, however the invocation ended. */
  end(): void {
    clearTimeout(this.#timer);
    this.#signal?.removeEventListener('abort', this);
  }

  tryTake(): boolean {
    return this.#callsLeft-- > 0;
  }

  /** The caller went away: its signal aborted. */
  handleEvent(): void {
    this.callerLeft = true;
    this.abort.abort(this.#signal?.reason);
  }

  /** Whether the deadline has passed; an in-process evaluation stopped at it ends before the timer can fire. */
  pastDeadline(): boolean {
    return (this.deadlineHit ||= Date.now() >= this.deadlineAt);
  }

  /**
   * The error an invocation that ended with `err` answers: whoever ended it says why — the
   * deadline, or the caller (a caller hanging up is not the backend's timeout), whose signal may
   * carry its own error.
   */
  stopped(err: unknown): unknown {
    if (this.deadlineHit) return deadlineError(this.#tool);
    return this.callerLeft ? cancelledError(this.#signal?.reason) : err;
  }
}

/** The deadline timer's callback: a function of the module, handed its invocation. */
function deadlinePassed(run: InvocationRun): void {
  run.deadlineHit = true;
  run.abort.abort(new DOMException('The invocation deadline passed.', 'TimeoutError'));
}

function invocationReport(
  tool: CompiledTool,
  outcome: string,
  started: number,
  steps: StepReport[],
  suspended?: Suspension,
): InvocationReport {
  const report: InvocationReport = {
    tool: tool.signature.name,
    version: tool.signature.version,
    outcome,
    durationMs: performance.now() - started,
    steps,
  };
  if (suspended) report.suspended = suspended;
  return report;
}

/** An Arazzo workflow tool's run, each step tracked in its own report. */
function runWorkflowTool(
  tool: CompiledTool,
  ctx: StepContext,
  reports: StepReport[],
  onProgress: InvokeOptions['onProgress'],
): Promise<Record<string, unknown>> {
  const track: TrackStep = (id, step, label, run) => {
    const report: StepReport = { id, ...label, outcome: 'not_run', cache: 'off', durationMs: 0 };
    reports.push(report);
    const body = () => inReport(report, () => run(report));
    return step ? ctx.tracer.traceStep(describeStep(step), report, body) : body();
  };
  return runToolWorkflow(tool, ctx.inputs, ctx, track, onProgress);
}

function cancelledError(reason: unknown): SculptorError {
  if (reason instanceof SculptorError) return reason;
  return new SculptorError('request.cancelled', 'The caller closed the request before the answer.', {
    cause: reason,
  });
}

function deadlineError(tool: CompiledTool): SculptorError {
  return new SculptorError(
    'upstream.timeout',
    `${tool.signature.name} did not finish within ${tool.timeoutMs} ms.`,
  );
}
