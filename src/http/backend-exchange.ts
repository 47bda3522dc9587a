/**
 * One backend exchange on undici's dispatch API: the request sent, the answer's bytes counted and
 * kept as they arrive, then decoded. One handler object carries the whole exchange, so an answer
 * reaches the parse through no Readable stream, no stream events and no promise per phase: the
 * bench's lean handler cost 1.23× as much CPU per call on `request()` + `body.json()` as the same
 * handler on `dispatch` (docs/PERFORMANCE.md, "Measured facts"). An answer with a Content-Encoding
 * is the exception: its bytes are fed to a stream that `readBody` decodes under the size caps.
 */
import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { BackendResponse } from './backend-client.ts';
import { SculptorError } from '../errors/sculptor-error.ts';
import { bodyKind, decodeBody, mediaType } from './decode-body.ts';
import { toBackendError } from './map-error.ts';
import type { JsonLimits } from './parse-json.ts';
import { answerTooLarge, type BodyLimits, readBody, type ReadBodyResult, readResult } from './read-body.ts';
import { filterResponseHeaders } from './response-headers.ts';

export interface ExchangeLimits {
  body: BodyLimits;
  json: JsonLimits;
}

/**
 * Sends `request` through `dispatcher` and settles with the decoded answer, or with the error
 * `toBackendError` makes of what went wrong. `signal` (the invocation's deadline) ends it in every
 * phase: while the connect is pending too, when undici itself could not act on an abort (it only
 * can once the request has a connection), so the exchange settles at once and the request is
 * dropped unsent when its connection comes. Whatever ends an exchange early (the deadline, a
 * cap, a redirect) aborts the request, which destroys its socket: nothing more is read.
 */
export function exchange(
  dispatcher: Dispatcher,
  request: Dispatcher.DispatchOptions,
  signal: AbortSignal,
  limits: ExchangeLimits,
): Promise<BackendResponse> {
  return new Promise((resolve, reject) => {
    const handler = new Exchange(resolve, reject, signal, limits, request.method === 'HEAD');
    // The handler is the listener (handleEvent): no closure per call. It is removed when the
    // exchange settles, so a signal aborts at most once into it.
    signal.addEventListener('abort', handler);
    dispatcher.dispatch(request, handler);
  });
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/** No chunk read yet, or none kept any more: shared, never written (a settled exchange reads nothing). */
const NO_CHUNKS: Buffer[] = [];
const NO_HEADERS: Record<string, string | string[] | undefined> = {};

class Exchange implements Dispatcher.DispatchHandler {
  #resolve: (answer: BackendResponse) => void;
  #reject: (error: SculptorError) => void;
  readonly #signal: AbortSignal;
  readonly #limits: ExchangeLimits;
  readonly #head: boolean;
  #controller: Dispatcher.DispatchController | undefined;
  /** Why the exchange ended early, once it has: a request started later is aborted with it. */
  #failure: unknown;
  #settled = false;
  #status = 0;
  #headers: Record<string, string | string[] | undefined> = NO_HEADERS;
  #keep = false;
  /** The answer's media type without parameters, read once from its headers. */
  #mediaType = '';
  /** The answer's chunks, a list made with the first (an answer usually comes in one). */
  #chunks: Buffer[] = NO_CHUNKS;
  #bytes = 0;
  /** Set for an answer with a Content-Encoding: its bytes go through readBody's decoders. */
  #encoded: Readable | undefined;

  constructor(
    resolve: (answer: BackendResponse) => void,
    reject: (error: SculptorError) => void,
    signal: AbortSignal,
    limits: ExchangeLimits,
    head: boolean,
  ) {
    this.#resolve = resolve;
    this.#reject = reject;
    this.#signal = signal;
    this.#limits = limits;
    this.#head = head;
  }

  /** The signal's abort. */
  handleEvent(): void {
    this.#fail(this.#signal.reason);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    // Ended while the connect was pending: the request is dropped before it is written.
    if (this.#settled) controller.abort(this.#failure as Error);
    else this.#controller = controller;
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    status: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (this.#settled || status < 200) return; // 1xx: informational, the answer follows
    if (status >= 300 && status < 400) {
      // Reading the rest would be wasted; aborting closes the socket.
      this.#fail(new SculptorError('upstream.redirect', `The backend answered with a redirect (${status}).`));
      return;
    }
    this.#status = status;
    this.#headers = headers;
    // Framing comes from the raw headers: a backend naming Content-Type in `Connection` hides it
    // from the caller, not from the decoder.
    this.#mediaType = mediaType(single(headers['content-type']));
    this.#keep = bodyKind(this.#mediaType) !== 'none' && status !== 204 && !this.#head;
    const encoding = single(headers['content-encoding']);
    if (encoding === undefined) return;
    // Backpressure as a stream asks for it: undici pauses the socket while the decoders catch up.
    const encoded = new Readable({ read: () => controller.resume() });
    this.#encoded = encoded;
    readBody(encoded, encoding, this.#limits.body, this.#keep, this.#signal).then(
      (read) => this.#finish(read),
      (err: unknown) => this.#fail(err),
    );
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#settled) return;
    if (this.#encoded) {
      if (!this.#encoded.push(chunk)) controller.pause();
      return;
    }
    this.#bytes += chunk.length;
    if (this.#bytes > this.#limits.body.maxResponseBytes) {
      this.#fail(answerTooLarge());
    } else if (this.#keep) {
      if (this.#chunks === NO_CHUNKS) this.#chunks = [chunk];
      else this.#chunks.push(chunk);
    }
  }

  onResponseEnd(): void {
    if (this.#settled) return;
    if (this.#encoded)
      this.#encoded.push(null); // readBody settles the exchange
    else this.#finish(readResult(this.#chunks, this.#bytes, this.#keep));
  }

  onResponseError(_controller: Dispatcher.DispatchController | null, error: Error): void {
    this.#fail(error);
  }

  #finish({ data, bytes }: ReadBodyResult): void {
    if (this.#settled) return;
    const rawContentType = single(this.#headers['content-type']) ?? '';
    let body: unknown;
    try {
      body = decodeBody(data, rawContentType, this.#limits.json);
    } catch (err) {
      this.#fail(err);
      return;
    }
    const answer: BackendResponse = {
      status: this.#status,
      headers: filterResponseHeaders(this.#headers),
      contentType: this.#mediaType,
      body,
      bytes,
    };
    const resolve = this.#resolve;
    this.#settle();
    resolve(answer);
  }

  #fail(error: unknown): void {
    if (this.#settled) return;
    const reject = this.#reject;
    // A request that ended (the parse failed) is not aborted again; one in flight loses its socket.
    this.#controller?.abort(error as Error);
    this.#encoded?.destroy();
    this.#failure = error;
    this.#settle();
    reject(toBackendError(error, this.#signal));
  }

  /**
   * Ends the exchange and lets go of everything it read. A finished request's handler stays
   * reachable from undici for a while after the answer: with the chunks and the promise's
   * resolver (which reaches the answer once resolved) still held, answers outlived their calls
   * into the old generation, 10.9 KiB promoted a call against 1.7 (`single-op-ab.ts --gc`).
   */
  #settle(): void {
    this.#settled = true;
    this.#signal.removeEventListener('abort', this);
    this.#resolve = this.#reject = settled;
    this.#chunks = NO_CHUNKS;
    this.#headers = NO_HEADERS;
    this.#encoded = undefined;
  }
}

/** What a settled exchange's resolver became: nothing to settle. */
function settled(): void {}
