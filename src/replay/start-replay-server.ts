import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RecordedExchange } from './load-recordings.ts';
import { noMatchProblem } from './no-match-problem.ts';
import { type PreparedAnswer, prepareAnswer } from './prepare-answer.ts';
import { requestKey } from './request-key.ts';

/**
 * 'repeat': every matching request gets the first matching recording.
 * 'once': matching recordings are used up in order, then the last repeats —
 * for flows where the same request is expected to get different answers.
 */
export type ReplayMode = 'repeat' | 'once';

export interface ReplayServerOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Defaults to 127.0.0.1: recordings are for this machine only. */
  host?: string;
  mode?: ReplayMode;
}

export interface ReplayedRequest {
  method: string;
  /** Path and query exactly as received. */
  path: string;
  /** `source` of the recording that answered, or null for a miss. */
  matched: string | null;
}

export interface ReplayServer {
  /** `http://HOST:PORT`, without a trailing slash. */
  url: string;
  /** Every request received, in order. */
  requests: ReplayedRequest[];
  /** How many requests a recording answered. */
  hits(): number;
  close(): Promise<void>;
}

interface AnswerQueue {
  answers: PreparedAnswer[];
  next: number;
}

/**
 * Serves recorded exchanges over real HTTP, so that code under test talks to
 * it exactly as it would to the backends. Matching is by method, path and
 * query (see request-key.ts); misses answer an RFC 9457 404 and are logged on
 * stderr, because a miss almost always means a recording is missing.
 */
export async function startReplayServer(
  exchanges: RecordedExchange[],
  options: ReplayServerOptions = {},
): Promise<ReplayServer> {
  const mode = options.mode ?? 'repeat';
  if (mode !== 'repeat' && mode !== 'once')
    throw new Error(`replay mode must be 'repeat' or 'once', got ${String(mode)}`);
  const host = options.host ?? '127.0.0.1';
  const log = (line: string): void => {
    process.stderr.write(`${line}\n`);
  };

  const queues = new Map<string, AnswerQueue>();
  for (const exchange of exchanges) {
    const key = requestKey(exchange.request.method, exchange.request.url);
    const queue = queues.get(key) ?? { answers: [], next: 0 };
    queue.answers.push(prepareAnswer(exchange, log));
    queues.set(key, queue);
  }

  const requests: ReplayedRequest[] = [];
  let hits = 0;

  const pick = (queue: AnswerQueue): PreparedAnswer => {
    if (mode === 'repeat') return queue.answers[0]!;
    const answer = queue.answers[Math.min(queue.next, queue.answers.length - 1)]!;
    queue.next++;
    return answer;
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    // Request bodies play no part in matching; drain them so keep-alive works.
    req.resume();
    const method = req.method ?? 'GET';
    const target = req.url ?? '/';
    const queue = queues.get(requestKey(method, target));

    if (!queue) {
      requests.push({ method, path: target, matched: null });
      const problem = noMatchProblem(method, target, exchanges);
      log(`replay: no recording matches ${method} ${target}`);
      const body = Buffer.from(JSON.stringify(problem, null, 2));
      res.writeHead(404, {
        'content-type': 'application/problem+json',
        'content-length': String(body.length),
      });
      res.end(body);
      return;
    }

    const answer = pick(queue);
    requests.push({ method, path: target, matched: answer.source });
    hits++;
    for (const [name, value] of answer.headers) res.setHeader(name, value);
    res.writeHead(answer.status);
    res.end(answer.body);
  };

  const server = createServer(handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    requests,
    hits: () => hits,
    close: () => {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Clients keep connections alive; do not wait for them to time out.
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
