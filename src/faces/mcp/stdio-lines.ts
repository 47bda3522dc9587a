import { Transform, type TransformCallback } from 'node:stream';
import { deserializeMessage, INVALID_REQUEST, PARSE_ERROR } from '@modelcontextprotocol/server';

/** A line of stdin refused before the SDK read it, with the JSON-RPC error code it is answered with. */
export interface RefusedLine {
  /** PARSE_ERROR or INVALID_REQUEST. */
  code: number;
  reason: 'oversize' | 'not_json' | 'not_jsonrpc' | 'batch';
  /** The line's length in bytes (for `oversize`: as far as it was read when refused). */
  bytes: number;
}

const NEWLINE = Buffer.from('\n');

/**
 * stdin's newline-delimited JSON-RPC, checked line by line on its way to the SDK's stdio
 * transport. The transport closes the whole connection once its buffer passes its bound
 * without a newline (and `sculptor mcp`, left with nothing to wait on, used to exit 0 without
 * a word), and drops a line that is not JSON in silence. Here every line that is not a
 * JSON-RPC message is refused and reported instead, and only whole, valid messages go on:
 * a line longer than `maxLineBytes` as soon as it passes the bound (its rest skipped up to its
 * newline), one that is not JSON, one that is JSON but not a JSON-RPC message. The lines
 * after it are served as if it had never been sent. Blank lines are skipped, as the SDK does.
 */
export class StdioLineGuard extends Transform {
  readonly #maxLineBytes: number;
  readonly #refuse: (refusal: RefusedLine) => void;
  #parts: Buffer[] = [];
  #bytes = 0;
  /** Inside a line already refused for its length: dropped up to its newline. */
  #skipping = false;

  constructor(maxLineBytes: number, refuse: (refusal: RefusedLine) => void) {
    super();
    this.#maxLineBytes = maxLineBytes;
    this.#refuse = refuse;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let start = 0;
    while (start <= chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline;
      if (!this.#skipping && end > start) {
        if (this.#bytes + (end - start) > this.#maxLineBytes) {
          this.#skipping = true;
          this.#report({ code: PARSE_ERROR, reason: 'oversize', bytes: this.#bytes + (end - start) });
          this.#parts = [];
          this.#bytes = 0;
        } else {
          this.#parts.push(chunk.subarray(start, end));
          this.#bytes += end - start;
        }
      }
      if (newline === -1) break;
      if (!this.#skipping) this.#line(Buffer.concat(this.#parts, this.#bytes));
      this.#skipping = false;
      this.#parts = [];
      this.#bytes = 0;
      start = newline + 1;
    }
    done();
  }

  #line(line: Buffer): void {
    const text = line.toString('utf8').replace(/\r$/, '');
    if (text.trim() === '') return;
    try {
      // The SDK's own reading of a line: what passes here, its transport accepts.
      deserializeMessage(text);
    } catch (err) {
      this.#report(
        err instanceof SyntaxError
          ? { code: PARSE_ERROR, reason: 'not_json', bytes: line.length }
          : {
              code: INVALID_REQUEST,
              // A 2025-03-26 client may still send a JSON-RPC batch: said as such, it knows what to change.
              reason: text.trimStart().startsWith('[') ? 'batch' : 'not_jsonrpc',
              bytes: line.length,
            },
      );
      return;
    }
    this.push(Buffer.concat([line, NEWLINE]));
  }

  #report(refusal: RefusedLine): void {
    try {
      this.#refuse(refusal);
    } catch {
      // A failing reporter must not stop the lines after this one.
    }
  }
}

/** The JSON-RPC 2.0 answer to a refused line (§5.1: its id could not be read, so it is null). */
export function refusalAnswer(refusal: RefusedLine, maxLineBytes: number): object {
  const message =
    refusal.reason === 'oversize'
      ? `Parse error: the line is longer than ${maxLineBytes} bytes; send smaller messages.`
      : refusal.reason === 'not_json'
        ? 'Parse error: the line is not JSON; send one JSON-RPC message per line.'
        : refusal.reason === 'batch'
          ? 'Invalid Request: JSON-RPC batches are not accepted over stdio; send each message on its own line.'
          : 'Invalid Request: the line is not a JSON-RPC 2.0 message (an object with "jsonrpc": "2.0" and a method, or a result or error for an id).';
  return { jsonrpc: '2.0', id: null, error: { code: refusal.code, message } };
}
