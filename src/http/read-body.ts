/**
 * Reads a backend response body under the size caps of RELIABILITY B6.
 *
 * undici hands back the body exactly as sent (it does not decode
 * Content-Encoding, unlike `fetch`); the backend exchange counts a plain answer
 * itself and feeds an encoded one to a stream read here, decoded with node:zlib
 * streams. Sizes are counted while streaming: wire and decoded bytes against
 * `maxResponseBytes`, and decoded/consumed-encoded against
 * `maxCompressionRatio`, so a 200 KiB gzip bomb is stopped after about 1 MiB
 * of output instead of inflating 200 MiB. A cap reached fails the read, and
 * the exchange then aborts its request, which destroys the socket.
 */
import type { Readable } from 'node:stream';
import { Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { SculptorError } from '../errors/sculptor-error.ts';

export interface BodyLimits {
  /** Cap on decoded bytes, and on bytes read from the wire. */
  maxResponseBytes: number;
  /** Cap on decoded/encoded once more than RATIO_CHECK_FROM bytes are decoded. */
  maxCompressionRatio: number;
}

export interface ReadBodyResult {
  /** The decoded body, or undefined when not kept or empty. */
  data: Buffer | undefined;
  /** Decoded size in bytes. */
  bytes: number;
}

/** Small bodies may compress very well (a page of zeros) without being an attack. */
export const RATIO_CHECK_FROM = 1024 * 1024;

/** More layers than this is not something a real server sends. */
const MAX_CODINGS = 3;

/** An answer past `maxResponseBytes`, on the wire or decoded. */
export function answerTooLarge(): SculptorError {
  return tooLarge('The backend answer is too large.');
}

/** What a read kept: its chunks as one buffer (none when not kept, or empty), and its decoded size. */
export function readResult(chunks: Buffer[], bytes: number, keep: boolean): ReadBodyResult {
  if (!keep || bytes === 0) return { data: undefined, bytes };
  return { data: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, bytes), bytes };
}

function tooLarge(message: string): SculptorError {
  return new SculptorError('upstream.too_large', message);
}

function invalid(message: string, cause?: unknown): SculptorError {
  return new SculptorError('upstream.invalid_response', message, cause === undefined ? {} : { cause });
}

/** A zlib/brotli decoder; `bytesWritten` is the input its engine has consumed so far. */
type Decoder = Transform & zlib.Zlib;

function decoderFor(coding: string): Decoder {
  switch (coding) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip();
    case 'deflate':
      // RFC 9110 §8.4.1.2: "deflate" is the zlib format. Servers that send raw
      // deflate instead get upstream.invalid_response.
      return zlib.createInflate();
    case 'br':
      return zlib.createBrotliDecompress();
    default:
      throw invalid('The backend answered with an unsupported content encoding.');
  }
}

/** Content-Encoding lists codings in the order they were applied; decoding runs in reverse. */
export function decodersFor(contentEncoding: string | undefined): Decoder[] {
  if (contentEncoding === undefined) return [];
  const codings = contentEncoding
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  if (codings.length > MAX_CODINGS) throw invalid('The backend answered with too many content encodings.');
  return codings.reverse().map(decoderFor);
}

/** zlib and brotli failures: the body is not what its Content-Encoding says. */
function isDecodeError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as NodeJS.ErrnoException).code;
  return (
    typeof code === 'string' &&
    (code.startsWith('Z_') || code.startsWith('ERR__') || code.startsWith('ERR_BROTLI'))
  );
}

/**
 * Streams `body` through its decoders into memory (only when `keep`; the size
 * is counted either way) and settles when it ended, failed a cap, or
 * `signal` fired.
 */
export function readBody(
  body: Readable,
  contentEncoding: string | undefined,
  limits: BodyLimits,
  keep: boolean,
  signal: AbortSignal,
): Promise<ReadBodyResult> {
  // Not an async function: a plain body returns readPlain's promise itself, not one more promise
  // (and two more turns) around it. The backend exchange reads plain answers itself and hands
  // only encoded ones here.
  return contentEncoding === undefined
    ? readPlain(body, limits, keep, signal)
    : readDecoded(body, contentEncoding, limits, keep, signal);
}

async function readDecoded(
  body: Readable,
  contentEncoding: string,
  limits: BodyLimits,
  keep: boolean,
  signal: AbortSignal,
): Promise<ReadBodyResult> {
  const decoders = decodersFor(contentEncoding);
  if (decoders.length === 0) return readPlain(body, limits, keep, signal);
  // The ratio compares decoded output with the encoded input the first
  // decoder has actually consumed, not with what arrived: undici may have
  // buffered a whole 200 KiB bomb already, and dividing by that would only
  // trip the ratio after 20 MiB of output.
  const outer = decoders[0];
  let wireBytes = 0;
  let decodedBytes = 0;
  const chunks: Buffer[] = [];

  // Counts what comes off the socket: a stream of empty deflate blocks
  // decodes to nothing, so the decoded count alone would never stop it.
  const wireCounter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      wireBytes += chunk.length;
      if (wireBytes > limits.maxResponseBytes) return callback(answerTooLarge());
      callback(null, chunk);
    },
  });

  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      decodedBytes += chunk.length;
      if (decodedBytes > limits.maxResponseBytes) return callback(answerTooLarge());
      if (
        outer !== undefined &&
        decodedBytes > RATIO_CHECK_FROM &&
        decodedBytes > outer.bytesWritten * limits.maxCompressionRatio
      ) {
        return callback(tooLarge('The backend answer decompresses to too much data.'));
      }
      if (keep) chunks.push(chunk);
      callback();
    },
  });

  try {
    await pipeline([body, wireCounter, ...decoders, sink], { signal });
  } catch (err) {
    // An empty body with a Content-Encoding header (HEAD, 204, lazy servers)
    // is not a broken gzip stream.
    if (wireBytes === 0 && isDecodeError(err)) return { data: undefined, bytes: 0 };
    if (isDecodeError(err)) throw invalid('The backend answer could not be decompressed.', err);
    throw err;
  }
  return readResult(chunks, decodedBytes, keep);
}

/**
 * The common case, an answer with no Content-Encoding: wire and decoded bytes
 * are the same, so plain listeners count them. No pipeline, no intermediate
 * streams, no AbortController (whose abort builds a DOMException with a stack
 * trace on every call): the bench measured this at −22 % CPU per request.
 */
function ignore(): void {}

function readPlain(
  body: Readable,
  limits: BodyLimits,
  keep: boolean,
  signal: AbortSignal,
): Promise<ReadBodyResult> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    const settle = (error: unknown) => {
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', settle);
      signal.removeEventListener('abort', onAbort);
      if (error === undefined) {
        resolve(readResult(chunks, bytes, keep));
        return;
      }
      // Destroying the body destroys the socket: nothing more is read. undici
      // then emits its own AbortError on the body; with no listener left that
      // would be an uncaught exception, so one that ignores it stays.
      body.on('error', ignore);
      body.destroy();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > limits.maxResponseBytes) settle(answerTooLarge());
      else if (keep) chunks.push(chunk);
    };
    const onEnd = () => settle(undefined);
    const onAbort = () => settle(signal.reason);
    if (signal.aborted) return onAbort();
    // Plain listeners, not once: settle removes every one at the first event (a once wrapper
    // per listener was allocation on every call).
    body.on('data', onData);
    body.on('end', onEnd);
    body.on('error', settle);
    signal.addEventListener('abort', onAbort);
  });
}
