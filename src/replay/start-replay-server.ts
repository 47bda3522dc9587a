import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RecordedExchange } from './load-recordings.ts';
import { noMatchProblem } from './no-match-problem.ts';
import { type PreparedAnswer, prepareAnswer } from './prepare-answer.ts';
import { bodyBytes } from './recorded-body.ts';
import { requestBodyKey } from './request-body-key.ts';
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
  /** The request body, when it had one (at most 5 MiB is kept). */
  body?: string;
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
  answers: Array<PreparedAnswer & { bodyKey: string | undefined }>;
  next: number;
}

/** A request body larger than this is not compared (recorded SOAP calls are a few KiB). */
const MAX_REQUEST_BODY = 5 * 1024 * 1024;

/**
 * Serves recorded exchanges over real HTTP, so that code under test talks to
 * it exactly as it would to the backends. Matching is by method, path and
 * query (see request-key.ts), then, among recordings that hold a request body,
 * by the body (request-body-key.ts: XML as XML, JSON as JSON); misses answer an RFC 9457 404 and are logged on
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
    const { body, headers } = exchange.request;
    const bodyKey =
      body === undefined
        ? undefined
        : requestBodyKey(
            headers['content-type'],
            bodyBytes({
              body,
              ...(exchange.request.bodyEncoding ? { bodyEncoding: exchange.request.bodyEncoding } : {}),
            }).toString('utf8'),
          );
    queue.answers.push({ ...prepareAnswer(exchange, log), bodyKey: bodyKey === '' ? undefined : bodyKey });
    queues.set(key, queue);
  }

  const requests: ReplayedRequest[] = [];
  let hits = 0;

  /**
   * The recordings of one method, path and query that this body matches: those recorded with
   * the same body (request-body-key.ts), and those recorded without one, which match any.
   */
  const pick = (
    queue: AnswerQueue,
    body: string,
    contentType: string | undefined,
  ): PreparedAnswer | undefined => {
    const needsBody = queue.answers.some((a) => a.bodyKey !== undefined);
    const key = needsBody ? requestBodyKey(contentType, body) : undefined;
    const matching = needsBody
      ? queue.answers.filter((a) => a.bodyKey === undefined || a.bodyKey === key)
      : queue.answers;
    if (matching.length === 0) return undefined;
    if (mode === 'repeat') return matching[0]!;
    const answer = matching[Math.min(queue.next, matching.length - 1)]!;
    queue.next++;
    return answer;
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_REQUEST_BODY) chunks.push(chunk);
    });
    req.on('end', () =>
      answer(req, res, size <= MAX_REQUEST_BODY ? Buffer.concat(chunks).toString('utf8') : ''),
    );
  };

  const answer = (req: IncomingMessage, res: ServerResponse, body: string): void => {
    const method = req.method ?? 'GET';
    const target = req.url ?? '/';
    const queue = queues.get(requestKey(method, target));
    const found = queue && pick(queue, body, req.headers['content-type']);
    const sent = body === '' ? {} : { body };

    if (!found) {
      requests.push({ method, path: target, matched: null, ...sent });
      const problem = noMatchProblem(method, target, exchanges);
      log(`replay: no recording matches ${method} ${target}${queue ? ' with this request body' : ''}`);
      const payload = Buffer.from(JSON.stringify(problem, null, 2));
      res.writeHead(404, {
        'content-type': 'application/problem+json',
        'content-length': String(payload.length),
      });
      res.end(payload);
      return;
    }

    requests.push({ method, path: target, matched: found.source, ...sent });
    hits++;
    for (const [name, value] of found.headers) res.setHeader(name, value);
    res.writeHead(found.status);
    res.end(found.body);
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
