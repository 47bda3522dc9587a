/**
 * An invocation's body as text, counted against a limit on the streamed bytes, chunked
 * bodies included (RELIABILITY A1).
 *
 * Served by @hono/node-server, the body is read straight from Node's IncomingMessage. Hono's
 * bodyLimit middleware, used before, asks `c.req.raw.body`, which makes the adapter build a
 * full web `Request` with a web stream over the socket for every invocation; reading that
 * stream cost about a fifth of the CPU of a single-operation invocation in the bench
 * (docs/PERFORMANCE.md). Anywhere else (`app.request` in tests) the web
 * stream is read, with the same count.
 */
import type { IncomingMessage } from 'node:http';
import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';
import { SculptorError } from '../../errors/sculptor-error.ts';

const tooLarge = (maxBytes: number) =>
  new SculptorError('request.too_large', `The body is over ${maxBytes} bytes.`);

export function readRequestBody(c: Context, maxBytes: number): Promise<string> {
  // A declared length over the limit is refused before a byte is read. Node's parser delivers
  // no more than a declared length, and a declared length with chunked coding is refused by it.
  const declared = c.req.header('content-length');
  if (declared !== undefined && Number(declared) > maxBytes) return Promise.reject(tooLarge(maxBytes));
  const incoming = (c.env as Partial<HttpBindings> | undefined)?.incoming;
  // Not an async function: the promise readIncoming settles is the one returned.
  return incoming ? readIncoming(incoming, maxBytes) : readStream(c.req.raw.body, maxBytes);
}

function readIncoming(incoming: IncomingMessage, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (error: SculptorError | undefined) => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('close', onClose);
      incoming.off('error', onClose);
      if (error) reject(error);
      else resolve((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)).toString('utf8'));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
      else {
        // Nothing more is read; Node discards the rest, if it ever comes, after the answer.
        incoming.pause();
        settle(tooLarge(maxBytes));
      }
    };
    const onEnd = () => settle(undefined);
    // The caller went away mid-body: there is no one to answer, but the promise must settle.
    const onClose = () =>
      settle(new SculptorError('request.malformed', 'The body ended before it was complete.'));
    if (incoming.readableEnded) return resolve('');
    // Gone before the handler got here (its 'close' already emitted): nothing would settle.
    if (incoming.destroyed) return onClose();
    // Plain listeners, not once: settle removes every one at the first event.
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('close', onClose);
    incoming.on('error', onClose);
  });
}

async function readStream(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<string> {
  if (!body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}
