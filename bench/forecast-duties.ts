/**
 * The duties of bench/sculpts/bench_forecast.v1.sculpt.yaml, written by hand once, for the two
 * hand-written comparators: the lean Hono handler (hand-written.ts) and the bare `node:http`
 * proxy (bare-proxy.ts). Everything is known in advance: one route, one tool, one backend.
 *
 * - the invocation: JSON content type, a declared length over 64 KiB refused before a byte is
 *   read, the streamed bytes counted (chunked bodies too), the A2T body validated;
 * - the backend call: a pooled undici `Pool` (connect/headers/body timeouts, the answer bounded
 *   by `maxResponseSize`), the invocation's deadline as an `AbortSignal.timeout`;
 * - the answer: the two fields picked from the 13 KB forecast, A2T `output_parameters`, and
 *   problem details for every failure.
 */
import type { IncomingMessage } from 'node:http';
import { Pool } from 'undici';

const OFFICES = new Set(['BOX', 'LWX', 'OKX', 'PHI']);
export const MAX_BODY_BYTES = 64 * 1024;
/** The backend answer's cap (Sculptor's default is 10 MiB; the forecast is 13 KB). */
const MAX_ANSWER_BYTES = 10 * 1024 * 1024;
/** The invocation's deadline (the sculpt's default timeout). */
const DEADLINE_MS = 10_000;
const JSON_TYPE = /^application\/json\s*(;\s*charset="?utf-8"?\s*)?$/i;

interface Forecast {
  properties?: { periods?: Array<{ temperature?: unknown; shortForecast?: unknown }> };
}

/** An answer: status, body text and its content type. */
export interface Answer {
  status: number;
  body: string;
  type: 'application/json' | 'application/problem+json';
}

const problem = (status: 400 | 413 | 415 | 502 | 504, title: string, detail: string): Answer => ({
  status,
  body: JSON.stringify({ type: 'about:blank', status, title, detail }),
  type: 'application/problem+json',
});

export function createPool(backendUrl: string): Pool {
  return new Pool(backendUrl, {
    connections: 64,
    connectTimeout: 2_000,
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
    maxResponseSize: MAX_ANSWER_BYTES,
  });
}

class TooLarge extends Error {}

/** The body, counted against MAX_BODY_BYTES: a declared length first, then the streamed bytes. */
function readBody(incoming: IncomingMessage): Promise<string> {
  const declared = incoming.headers['content-length'];
  if (declared !== undefined && Number(declared) > MAX_BODY_BYTES) return Promise.reject(new TooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    incoming.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        incoming.pause();
        reject(new TooLarge());
      } else chunks.push(chunk);
    });
    incoming.once('end', () =>
      resolve((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)).toString('utf8')),
    );
    incoming.once('error', reject);
  });
}

/** The grid point asked for, or the list of what is wrong with the call. */
function readInputs(body: unknown): { office: string; x: number; y: number } | string[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return ['body must be an object'];
  const { name, input_parameters: given, ...rest } = body as Record<string, unknown>;
  const errors = Object.keys(rest).map((k) => `${k} is not part of an A2T invocation`);
  if (name !== 'bench_forecast') errors.push('name must be "bench_forecast"');
  if (!Array.isArray(given)) return [...errors, 'input_parameters must be an array'];
  const values = new Map<string, unknown>();
  for (const item of given as unknown[]) {
    const p = item as { name?: unknown; value?: unknown } | null;
    if (typeof p !== 'object' || p === null || typeof p.name !== 'string') {
      errors.push('each input parameter must be {name, value}');
    } else if (values.has(p.name)) errors.push(`${p.name} is given twice`);
    else values.set(p.name, p.value);
  }
  for (const key of values.keys()) {
    if (key !== 'office' && key !== 'x' && key !== 'y') errors.push(`${key} is not an input`);
  }
  const office = values.get('office');
  if (typeof office !== 'string' || !OFFICES.has(office)) errors.push('office must be BOX, LWX, OKX or PHI');
  const grid = (key: 'x' | 'y'): number => {
    const v = values.get(key);
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0 || v > 500) {
      errors.push(`${key} must be an integer from 0 to 500`);
    }
    return v as number;
  };
  const x = grid('x');
  const y = grid('y');
  return errors.length > 0 ? errors : { office: office as string, x, y };
}

/** One invocation of the forecast tool, from Node's request to the answer. */
export async function invokeForecast(pool: Pool, incoming: IncomingMessage): Promise<Answer> {
  if (!JSON_TYPE.test((incoming.headers['content-type'] ?? '').trim())) {
    return problem(415, 'Unsupported Media Type', 'Send application/json.');
  }
  let body: unknown;
  try {
    body = JSON.parse(await readBody(incoming));
  } catch (err) {
    return err instanceof TooLarge
      ? problem(413, 'Payload Too Large', `The body is over ${MAX_BODY_BYTES} bytes.`)
      : problem(400, 'Bad Request', 'The body is not JSON.');
  }
  const inputs = readInputs(body);
  if (Array.isArray(inputs)) return problem(400, 'Invalid tool call', inputs.join('; '));

  let answer: Forecast;
  try {
    const res = await pool.request({
      method: 'GET',
      path: `/gridpoints/${inputs.office}/${inputs.x},${inputs.y}/forecast`,
      headers: { accept: 'application/geo+json' },
      signal: AbortSignal.timeout(DEADLINE_MS),
    });
    if (res.statusCode !== 200) {
      await res.body.dump();
      return problem(502, 'Bad Gateway', `Backend answered ${res.statusCode}.`);
    }
    answer = (await res.body.json()) as Forecast;
  } catch (err) {
    const name = (err as { name?: string; code?: string }).name;
    const timeout =
      name === 'TimeoutError' || ((err as { code?: string }).code?.includes('TIMEOUT') ?? false);
    return timeout
      ? problem(504, 'Gateway Timeout', 'The backend did not answer in time.')
      : problem(502, 'Bad Gateway', 'The backend could not be reached.');
  }

  const period = answer.properties?.periods?.[0];
  if (typeof period?.temperature !== 'number' || typeof period.shortForecast !== 'string') {
    return problem(502, 'Bad Gateway', 'The backend answered no forecast.');
  }
  return {
    status: 200,
    body: JSON.stringify({
      output_parameters: [
        { name: 'temperature', value: period.temperature },
        { name: 'short_forecast', value: period.shortForecast },
      ],
    }),
    type: 'application/json',
  };
}
