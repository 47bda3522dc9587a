import { validateHeaderName, validateHeaderValue } from 'node:http';
import type { RecordedExchange } from './load-recordings.ts';
import { bodyBytes } from './recorded-body.ts';
import { wireValues } from './recorded-headers.ts';

/** A recorded response made ready to write: computed once, at server start. */
export interface PreparedAnswer {
  source: string;
  status: number;
  headers: Array<[name: string, value: string | string[]]>;
  body: Buffer;
}

/**
 * Headers that described the original connection or the original encoding of
 * the bytes, not the answer: hop-by-hop fields (RFC 9110 §7.6.1) and the
 * framing ones. Content-Length is recomputed; Content-Encoding is dropped
 * because bodies are loaded decoded (see decode-content.ts).
 */
const NOT_REPLAYED = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'content-length',
  'content-encoding',
]);

/** Statuses whose answers never have content, so no Content-Length either. */
const NO_CONTENT = new Set([204, 304]);

export function prepareAnswer(exchange: RecordedExchange, warn: (line: string) => void): PreparedAnswer {
  const { response } = exchange;
  // Loaders only produce 200–599; exchanges built in code are checked here, at
  // start, because Node throws from inside the request handler otherwise.
  if (!Number.isInteger(response.status) || response.status < 200 || response.status > 599) {
    throw new Error(`${exchange.source}: status ${response.status} cannot be replayed (200–599 only)`);
  }
  const body = NO_CONTENT.has(response.status) ? Buffer.alloc(0) : bodyBytes(response);
  const headers: PreparedAnswer['headers'] = [];
  // Fields named in Connection are hop-by-hop too.
  const connectionFields = (response.headers['connection'] ?? '')
    .split(',')
    .map((field) => field.trim().toLowerCase());
  for (const [name, value] of Object.entries(response.headers)) {
    if (NOT_REPLAYED.has(name) || connectionFields.includes(name)) continue;
    const values = wireValues(name, value);
    try {
      validateHeaderName(name);
      for (const one of Array.isArray(values) ? values : [values]) validateHeaderValue(name, one);
    } catch {
      // Node would refuse to send it and fail the whole answer: leave it out, say so once.
      warn(`replay: ${exchange.source}: header ${JSON.stringify(name)} is not valid on the wire, left out`);
      continue;
    }
    headers.push([name, values]);
  }
  if (!NO_CONTENT.has(response.status)) headers.push(['content-length', String(body.length)]);
  return { source: exchange.source, status: response.status, headers, body };
}
