/**
 * A worker of the JSONata pool (`expression-pool.ts`, RELIABILITY G6). It compiles each
 * expression from its source with the same options as `compile-expression.ts` (the load-time
 * checks already passed on the main thread), evaluates one job at a time, and answers with a
 * value that survives structured cloning, or with the error's code and position — never its
 * message or value, which may quote data (G9).
 */
import { parentPort, workerData } from 'node:worker_threads';
import type jsonata from 'jsonata';
import { compileJsonata, evaluateJsonata, type JsonataLimits } from './jsonata-options.ts';
import { isLimitError } from './evaluation-budget.ts';
import type { WorkerJob, WorkerReply } from './expression-pool.ts';

const port = parentPort!;
const limits = (workerData as { limits: JsonataLimits }).limits;

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
port.postMessage({ ready: true } satisfies WorkerReply);
