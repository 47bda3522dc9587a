/**
 * A worker of the JSONata pool (`expression-pool.ts`, RELIABILITY G6). It compiles each
 * expression from its source with the same options as `compile-expression.ts` (the load-time
 * checks already passed on the main thread), evaluates one job at a time, and answers with a
 * value that survives structured cloning, or with the error's code and position — never its
 * message or value, which may quote data (G9).
 */
import { writeFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import type jsonata from 'jsonata';
import { compileJsonata, evaluateJsonata, type JsonataLimits } from './jsonata-options.ts';
import { isLimitError } from './evaluation-budget.ts';
import { LIMITS_ARGUMENT } from './evaluator-host.ts';
import type { WorkerJob, WorkerReply } from './expression-pool.ts';

/** A worker thread's port, or a child process's IPC channel (`evaluator-host.ts`). */
const port: {
  on(event: 'message', listener: (job: WorkerJob) => void): void;
  postMessage(reply: WorkerReply): void;
} = parentPort ?? {
  on: (event, listener) => process.on(event, listener as (message: unknown) => void),
  postMessage: (reply) => process.send!(reply),
};
const limits: JsonataLimits = parentPort
  ? (workerData as { limits: JsonataLimits }).limits
  : (JSON.parse(
      process.argv.find((a) => a.startsWith(LIMITS_ARGUMENT))!.slice(LIMITS_ARGUMENT.length),
    ) as JsonataLimits);

if (!parentPort) {
  // The gateway's parent gone, this process has no one to answer: it leaves too.
  process.on('disconnect', () => process.exit(0));
  // When the container runs short of memory, the kernel ends the largest process by this score:
  // an evaluator, never the gateway, whatever their sizes. Raising one's own score needs no
  // privilege; where /proc is absent it is simply not done.
  try {
    writeFileSync('/proc/self/oom_score_adj', '1000');
  } catch {
    // Not Linux, or /proc read-only: the heap limit still ends this process first.
  }
}

/** Compiled expressions by source; sculpts bound their number, reloads could grow it, hence the cap. */
const compiled = new Map<string, jsonata.Expression>();
const MAX_COMPILED = 5_000;

function compile(source: string): jsonata.Expression {
  let expression = compiled.get(source);
  if (!expression) {
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
    expression = compileJsonata(source, limits);
    compiled.set(source, expression);
  }
  return expression;
}

/** Thrown by `transferable` for values that cannot cross to the main thread (functions). */
const NOT_TRANSFERABLE = Symbol('not transferable');

/**
 * A copy of a jsonata result that structured cloning keeps exactly: the sequences' own
 * `push` guard (a function, which cannot be cloned) is left out, their data flags (`sequence`,
 * `keepSingleton`…) kept; objects with a null prototype — the ones jsonata builds — are listed
 * in `nullProtos`, and the main thread gives them their null prototype back (cloning keeps
 * object identity within one message). Any other function (a lambda as a result) → not
 * transferable.
 */
function transferable(value: unknown, nullProtos: object[], seen: Map<object, unknown>): unknown {
  if (typeof value === 'function') throw NOT_TRANSFERABLE;
  if (value === null || typeof value !== 'object') return value;
  const known = seen.get(value);
  if (known !== undefined) return known;
  if (Array.isArray(value)) {
    const copy: unknown[] & Record<string, unknown> = new Array(value.length) as never;
    seen.set(value, copy);
    for (const key of Object.keys(value)) {
      const item = (value as unknown as Record<string, unknown>)[key];
      if (typeof item === 'function' && !/^\d+$/.test(key)) continue;
      copy[key] = transferable(item, nullProtos, seen);
    }
    return copy;
  }
  const copy: Record<string, unknown> = {};
  seen.set(value, copy);
  if (Object.getPrototypeOf(value) === null) nullProtos.push(copy);
  for (const key of Object.keys(value)) {
    const item = transferable((value as Record<string, unknown>)[key], nullProtos, seen);
    // An own `__proto__` key (jsonata's objects may have one) must stay data, not set the prototype.
    if (key === '__proto__') {
      Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
    } else copy[key] = item;
  }
  return copy;
}

async function run(job: WorkerJob): Promise<WorkerReply> {
  let value: unknown;
  try {
    // Its budget is the same as in process; the pool kills it at the invocation's deadline.
    value = await evaluateJsonata(compile(job.source), job.input, job.bindings, limits);
  } catch (err) {
    const { code, position } = (err ?? {}) as { code?: unknown; position?: unknown };
    return {
      ok: false,
      ...(typeof code === 'string' ? { code } : {}),
      ...(typeof position === 'number' ? { position } : {}),
      // Sculptor's limit messages name the limit and quote no data.
      ...(isLimitError(err) ? { message: err.message } : {}),
    };
  }
  try {
    const nullProtos: object[] = [];
    return { ok: true, value: transferable(value, nullProtos, new Map()), nullProtos };
  } catch {
    // A function in the result, or a result too deep to copy.
    return { ok: false, code: 'W1006' };
  }
}

port.on('message', (job: WorkerJob) => {
  void run(job).then((reply) => {
    try {
      port.postMessage(reply);
    } catch {
      port.postMessage({ ok: false, code: 'W1006' } satisfies WorkerReply);
    }
  });
});
/**
 * A few evaluations through jsonata's evaluator, the bounded built-ins and the XML reader before
 * saying it is ready: a fresh evaluator's first evaluation otherwise runs cold code, and on a
 * loaded machine that alone reached jsonata's 250 ms limit. Not counted against any caller.
 */
const WARM_UP = [
  '$sum([1, 2]).$string($)',
  '$map(["a", "b"], function($v) { $uppercase($v) & "x" })',
  '$parseXml("<a><b>1</b></a>").a.b = "1"',
];
for (const source of WARM_UP) {
  await evaluateJsonata(compile(source), {}, {}, limits).catch(() => undefined);
}
port.postMessage({ ready: true } satisfies WorkerReply);
