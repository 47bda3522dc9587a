import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { JsonataLimits } from '../../config/jsonata-settings.ts';

/**
 * One evaluator of the pool (`expression-pool.ts`), in a worker thread or in a child process,
 * behind one interface. Why two: a worker thread shares the gateway's process, and a heap
 * exhausted inside it can abort the whole process — measured: a worker limited to 128 MiB grew
 * to 826 MB building one large array and `FATAL ERROR: Reached heap limit` ended the gateway
 * (exit 134, under `--max-old-space-size=384`). A child process has a heap of its own: when
 * V8 gives up there, the kernel ends that process only, the pool sees it exit and starts
 * another (`SCULPTOR_JSONATA_ISOLATION=process`, docs/SECURITY.md, "The boundary").
 */
export interface EvaluatorHost {
  /** Throws at once when the message cannot be serialized (nothing reached the evaluator). */
  post(message: unknown): void;
  onMessage(listener: (message: unknown) => void): void;
  /** The evaluator is gone: `outOfMemory` when its heap ran out. Called once. */
  onGone(listener: (outOfMemory: boolean, cause?: unknown) => void): void;
  /** Whether the evaluator keeps the gateway's event loop alive (only while it works). */
  ref(): void;
  unref(): void;
  terminate(): Promise<void>;
}

export type EvaluatorKind = 'worker' | 'process';

const WORKER_URL = new URL('./expression-worker.ts', import.meta.url);

export function startEvaluator(kind: EvaluatorKind, limits: JsonataLimits, heapMb: number): EvaluatorHost {
  return kind === 'process' ? startProcess(limits, heapMb) : startWorker(limits, heapMb);
}

function once(listener: (outOfMemory: boolean, cause?: unknown) => void) {
  let called = false;
  return (outOfMemory: boolean, cause?: unknown) => {
    if (called) return;
    called = true;
    listener(outOfMemory, cause);
  };
}

function startWorker(limits: JsonataLimits, heapMb: number): EvaluatorHost {
  const worker = new Worker(WORKER_URL, {
    workerData: { limits },
    resourceLimits: { maxOldGenerationSizeMb: heapMb },
  });
  worker.unref();
  let gone: (outOfMemory: boolean, cause?: unknown) => void = () => {};
  // Always listened to: an unhandled 'error' event would take the gateway down.
  worker.on('error', (err) => gone((err as { code?: unknown }).code === 'ERR_WORKER_OUT_OF_MEMORY', err));
  worker.on('exit', () => gone(false));
  return {
    post: (message) => worker.postMessage(message),
    onMessage: (listener) => worker.on('message', listener),
    onGone: (listener) => (gone = once(listener)),
    ref: () => worker.ref(),
    unref: () => worker.unref(),
    terminate: async () => void (await worker.terminate()),
  };
}

/** The limits travel in an argument: a child process has no `workerData`. */
export const LIMITS_ARGUMENT = '--sculptor-jsonata-limits=';

function startProcess(limits: JsonataLimits, heapMb: number): EvaluatorHost {
  const child: ChildProcess = fork(
    fileURLToPath(WORKER_URL),
    [`${LIMITS_ARGUMENT}${JSON.stringify(limits)}`],
    {
      // Its own heap limit, not the gateway's flags (`--import` of telemetry, inspector ports).
      execArgv: [`--max-old-space-size=${heapMb}`, '--max-semi-space-size=16'],
      // Structured cloning, as between threads: the same values cross as with a worker.
      serialization: 'advanced',
      // What V8 prints as it dies is not the gateway's log; the pool reports the loss.
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    },
  );
  const unref = () => {
    child.unref();
    child.channel?.unref();
  };
  unref();
  let gone: (outOfMemory: boolean, cause?: unknown) => void = () => {};
  child.on('error', (err) => gone(false, err));
  // V8 aborts (SIGABRT, or exit code 134 through a shell) when a heap is exhausted.
  child.on('exit', (code, signal) => gone(signal === 'SIGABRT' || signal === 'SIGTRAP' || code === 134));
  return {
    post(message) {
      if (!child.connected) throw new Error('The evaluator process is not connected.');
      child.send(message as never);
    },
    onMessage: (listener) => child.on('message', listener),
    onGone: (listener) => (gone = once(listener)),
    ref() {
      child.ref();
      child.channel?.ref();
    },
    unref,
    terminate: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        // Held until it has exited, so whoever awaits this is not left with an empty loop.
        child.ref();
        child.kill('SIGKILL');
      }),
  };
}
