/**
 * JSONata in a killable worker pool (RELIABILITY G6), opt-in: `SCULPTOR_JSONATA_ISOLATION=worker`.
 *
 * jsonata's guardrails (G2) stop what jsonata itself evaluates, but not native work inside a
 * built-in (`$sort` of a huge array, a big `$string`), and in-process nothing can stop a loop
 * that escapes them: it starves the event loop (RELIABILITY M1). Here each evaluation runs in a
 * `worker_threads` Worker with a heap limit; at the invocation's deadline (its AbortSignal), or
 * after a per-evaluation cap whatever the caller says, the worker is terminated and replaced.
 * The caller gets a JSONata-style error (`code`, which run-step maps to `projection.failed`):
 *
 * | code  | meaning |
 * | ----- | ------- |
 * | W1001 | stopped at the caller's signal (deadline passed, caller gone, another step failed) |
 * | W1002 | ran past the per-evaluation cap (`SCULPTOR_JSONATA_WORKER_TIMEOUT_MS`) |
 * | W1003 | the worker ran out of heap (`SCULPTOR_JSONATA_WORKER_HEAP_MB`) |
 * | W1004 | the worker stopped otherwise (crashed, or the pool was closed) |
 * | W1005 | every worker busy and the queue full: refused at once, not queued without bound |
 * | W1006 | the input or the result cannot be passed between threads (e.g. a function) |
 *
 * The pool is process-wide, like the compiled expressions that use it (they outlive a gateway's
 * reload, and several gateways share them in tests). Its workers are unref'd: an idle pool never
 * keeps the process alive, so the gateway needs no close step; a running evaluation does, by its
 * cap timer. Tests close it (`closeSharedExpressionPool`) so no worker outlives them.
 */
import {
  type ExpressionPoolOptions,
  POOL_DEFAULTS,
  processJsonataSettings,
} from '../../config/jsonata-settings.ts';
import { type EvaluatorHost, type EvaluatorKind, startEvaluator } from './evaluator-host.ts';

export { type ExpressionPoolOptions, POOL_DEFAULTS } from '../../config/jsonata-settings.ts';

/** What the main thread sends a worker: one evaluation. */
export interface WorkerJob {
  source: string;
  input: unknown;
  bindings: Record<string, unknown>;
}

/** What a worker answers: ready once loaded, then one reply per job. */
export type WorkerReply =
  | { ready: true }
  | { ok: true; value: unknown; nullProtos: object[] }
  | { ok: false; code?: string; position?: number; message?: string };

export interface PoolStats {
  /** Workers alive (started or starting). */
  workers: number;
  busy: number;
  queued: number;
  /** Workers terminated at a signal or the cap. */
  killed: number;
  /** Workers lost otherwise: out of memory, crashed. */
  lost: number;
}

export interface ExpressionPool {
  evaluate(
    source: string,
    input: unknown,
    bindings: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<unknown>;
  /** Starts the workers now rather than at the first evaluation. */
  warm(): void;
  stats(): PoolStats;
  /** Terminates every worker; waiting and running evaluations fail with W1004. */
  close(): Promise<void>;
}

const MESSAGES = {
  W1001: 'The evaluation was stopped: the invocation ended (deadline or caller gone).',
  W1002: 'The evaluation ran too long and its worker was stopped.',
  W1003: 'The evaluation ran out of memory and its worker was stopped.',
  W1004: 'The evaluation worker stopped.',
  W1005: 'Every evaluation worker is busy and the queue is full.',
  W1006: 'The value cannot be passed to or from an evaluation worker.',
} as const;

export type WorkerErrorCode = keyof typeof MESSAGES;

/** The pool's errors: a `code` like jsonata's own, so run-step reports `projection.failed (JSONata W100x)`. */
export class ExpressionWorkerError extends Error {
  override readonly name = 'ExpressionWorkerError';
  readonly code: WorkerErrorCode;

  constructor(code: WorkerErrorCode, options?: { cause?: unknown }) {
    super(MESSAGES[code], options);
    this.code = code;
  }
}

interface Job extends WorkerJob {
  signal: AbortSignal | undefined;
  resolve(value: unknown): void;
  reject(err: unknown): void;
  onAbort: (() => void) | undefined;
  slot: Slot | undefined;
}

interface Slot {
  worker: EvaluatorHost;
  ready: boolean;
  job: Job | undefined;
  timer: NodeJS.Timeout | undefined;
}

export function createExpressionPool(
  options: Partial<ExpressionPoolOptions> = {},
  kind: EvaluatorKind = 'worker',
): ExpressionPool {
  const { size, heapMb, capMs, maxQueue, limits } = { ...POOL_DEFAULTS, ...options };
  const slots = new Set<Slot>();
  const idle: Slot[] = [];
  const queue: Job[] = [];
  const counts = { killed: 0, lost: 0 };
  let closed = false;

  function spawn(): void {
    const worker = startEvaluator(kind, limits, heapMb);
    const slot: Slot = { worker, ready: false, job: undefined, timer: undefined };
    slots.add(slot);
    idle.push(slot);
    worker.onMessage((reply) => answered(slot, reply as WorkerReply));
    worker.onGone((outOfMemory, cause) => lost(slot, outOfMemory ? 'W1003' : 'W1004', cause));
  }

  /** Keeps `size` workers, so a replacement is loading before it is needed. */
  function fill(): void {
    while (!closed && slots.size < size) spawn();
  }

  function start(slot: Slot, job: Job): void {
    slot.job = job;
    job.slot = slot;
    // Held while it works, so the process waits for the answer (a CLI run has nothing else).
    slot.worker.ref();
    if (slot.ready) startCap(slot);
    try {
      slot.worker.post({ source: job.source, input: job.input, bindings: job.bindings });
    } catch (err) {
      // Not cloneable (DataCloneError): nothing reached the worker, which stays usable.
      finish(slot, job);
      idle.push(slot);
      job.reject(new ExpressionWorkerError('W1006', { cause: err }));
      next();
    }
  }

  /** The cap runs from when the worker can evaluate, so its own loading is not counted. */
  function startCap(slot: Slot): void {
    slot.timer = setTimeout(() => kill(slot, 'W1002'), capMs);
  }

  function finish(slot: Slot, job: Job): void {
    clearTimeout(slot.timer);
    slot.worker.unref();
    slot.timer = undefined;
    slot.job = undefined;
    job.slot = undefined;
    if (job.onAbort) job.signal?.removeEventListener('abort', job.onAbort);
  }

  function next(): void {
    while (queue.length > 0 && idle.length > 0) start(idle.pop()!, queue.shift()!);
  }

  function answered(slot: Slot, reply: WorkerReply): void {
    if (!slots.has(slot)) return;
    if ('ready' in reply) {
      slot.ready = true;
      if (slot.job) startCap(slot);
      return;
    }
    const job = slot.job;
    if (!job) return;
    finish(slot, job);
    idle.push(slot);
    if (reply.ok) {
      for (const object of reply.nullProtos) Object.setPrototypeOf(object, null);
      job.resolve(reply.value);
    } else {
      // The shape jsonata throws; code and position only (RELIABILITY G9).
      job.reject({
        ...(reply.code !== undefined ? { code: reply.code } : {}),
        ...(reply.position !== undefined ? { position: reply.position } : {}),
        message: reply.message ?? `JSONata ${reply.code ?? 'error'} (evaluated in a worker)`,
      });
    }
    next();
  }

  /**
   * Removes a slot for good, failing its job, and starts a replacement — unless the pool is
   * closed, or the worker died before it ever loaded (respawning that at once would loop; the
   * next evaluation tries again).
   */
  function drop(slot: Slot, code: WorkerErrorCode, respawn: boolean, cause?: unknown): boolean {
    if (!slots.delete(slot)) return false;
    const at = idle.indexOf(slot);
    if (at >= 0) idle.splice(at, 1);
    const job = slot.job;
    if (job) {
      finish(slot, job);
      job.reject(new ExpressionWorkerError(code, cause === undefined ? undefined : { cause }));
    }
    if (respawn) fill();
    if (slots.size === 0) {
      // No worker left to wait for: nothing queued may hang.
      for (const waiting of queue.splice(0)) {
        if (waiting.onAbort) waiting.signal?.removeEventListener('abort', waiting.onAbort);
        waiting.reject(new ExpressionWorkerError('W1004'));
      }
    }
    next();
    return true;
  }

  function kill(slot: Slot, code: WorkerErrorCode): void {
    if (drop(slot, code, true)) {
      counts.killed++;
      void slot.worker.terminate();
    }
  }

  function lost(slot: Slot, code: WorkerErrorCode, cause?: unknown): void {
    if (drop(slot, code, slot.ready, cause)) counts.lost++;
  }

  return {
    evaluate(source, input, bindings, signal) {
      if (signal?.aborted) return Promise.reject(new ExpressionWorkerError('W1001'));
      if (closed) return Promise.reject(new ExpressionWorkerError('W1004'));
      fill();
      return new Promise((resolve, reject) => {
        const job: Job = {
          source,
          input,
          bindings,
          signal,
          resolve,
          reject,
          onAbort: undefined,
          slot: undefined,
        };
        if (idle.length === 0 && queue.length >= maxQueue) {
          reject(new ExpressionWorkerError('W1005'));
          return;
        }
        if (signal) {
          job.onAbort = () => {
            if (job.slot) return kill(job.slot, 'W1001');
            const at = queue.indexOf(job);
            if (at >= 0) queue.splice(at, 1);
            reject(new ExpressionWorkerError('W1001'));
          };
          signal.addEventListener('abort', job.onAbort, { once: true });
        }
        if (idle.length > 0) start(idle.pop()!, job);
        else queue.push(job);
      });
    },
    warm: fill,
    stats: () => ({
      workers: slots.size,
      busy: [...slots].filter((s) => s.job).length,
      queued: queue.length,
      ...counts,
    }),
    async close() {
      closed = true;
      for (const job of queue.splice(0)) {
        if (job.onAbort) job.signal?.removeEventListener('abort', job.onAbort);
        job.reject(new ExpressionWorkerError('W1004'));
      }
      const workers = [...slots].map((slot) => slot.worker);
      for (const slot of [...slots]) drop(slot, 'W1004', false);
      await Promise.all(workers.map((worker) => worker.terminate()));
    },
  };
}

// --- the process-wide pool, configured from the environment (config/jsonata-settings.ts) ------

let shared: ExpressionPool | undefined;

/** The process-wide pool, created at first use (again after `closeSharedExpressionPool`). */
export function sharedExpressionPool(): ExpressionPool {
  const { pool, isolation } = processJsonataSettings();
  shared ??= createExpressionPool(pool, isolation === 'process' ? 'process' : 'worker');
  return shared;
}

export async function closeSharedExpressionPool(): Promise<void> {
  const pool = shared;
  shared = undefined;
  await pool?.close();
}
