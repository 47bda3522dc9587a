import { type Document, isScalar, LineCounter, parseDocument } from 'yaml';
import { decodeContent } from './decode-content.ts';
import type { RecordedExchange } from './load-recordings.ts';
import { bodyFromBytes, type RecordedBody } from './recorded-body.ts';
import { addHeader, emptyHeaders, type RecordedHeaders } from './recorded-headers.ts';
import { malformedRecording, unparseableRecording } from './recording-error.ts';

type Path = Array<string | number>;

/**
 * Reads a vcrpy cassette: `interactions:` is a list of `{request, response}`,
 * headers are maps of name → list of values, the response body is
 * `body: {string: …}` (absent or empty for no body) and the uri is absolute.
 *
 * Parsed with the failsafe schema: vcrpy writes YAML 1.1 through PyYAML, which
 * leaves strings like `1e5` or `0x1f` unquoted because they are not numbers in
 * YAML 1.1; a 1.2 (or this library's 1.1) schema would turn such header values
 * into numbers. Failsafe keeps every scalar exactly as written; explicit tags
 * such as `!!binary` (bodies that were not valid UTF-8) are still honoured.
 *
 * Returns undefined for YAML that is not a cassette.
 */
export function parseVcrCassette(text: string, file: string): RecordedExchange[] | undefined {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { schema: 'failsafe', uniqueKeys: false, lineCounter });
  const syntaxError = doc.errors[0];
  if (syntaxError) {
    const pos = syntaxError.linePos?.[0];
    const firstLine = syntaxError.message.split('\n')[0] ?? syntaxError.message;
    throw unparseableRecording(file, firstLine, pos && { line: pos.line, column: pos.col });
  }

  const root: unknown = doc.toJS();
  if (!isRecord(root) || !('interactions' in root)) return undefined;
  const cassette = new CassetteReader(file, doc, lineCounter);
  if (!Array.isArray(root['interactions'])) cassette.fail(['interactions'], 'interactions must be a list');
  return (root['interactions'] as unknown[]).map((interaction, index) =>
    cassette.interaction(interaction, index),
  );
}

class CassetteReader {
  readonly file: string;
  readonly doc: Document;
  readonly lineCounter: LineCounter;

  constructor(file: string, doc: Document, lineCounter: LineCounter) {
    this.file = file;
    this.doc = doc;
    this.lineCounter = lineCounter;
  }

  interaction(value: unknown, index: number): RecordedExchange {
    const at: Path = ['interactions', index];
    const request = this.map(value, at, 'request');
    const response = this.map(value, at, 'response');

    const method = request['method'];
    if (typeof method !== 'string' || method.trim() === '') {
      this.fail([...at, 'request', 'method'], `interaction #${index}: request.method must be a string`);
    }
    const uri = request['uri'];
    if (typeof uri !== 'string' || !URL.canParse(uri)) {
      this.fail([...at, 'request', 'uri'], `interaction #${index}: request.uri must be an absolute URL`);
    }

    const requestHeaders = this.headers(request['headers'], [...at, 'request', 'headers'], index);
    const requestBody = this.body(
      isRecord(request['body']) ? request['body']['string'] : request['body'],
      isRecord(request['body']) ? [...at, 'request', 'body', 'string'] : [...at, 'request', 'body'],
      requestHeaders,
    );
    const responseHeaders = this.headers(response['headers'], [...at, 'response', 'headers'], index);
    const responseBody = this.body(
      isRecord(response['body']) ? response['body']['string'] : response['body'],
      isRecord(response['body']) ? [...at, 'response', 'body', 'string'] : [...at, 'response', 'body'],
      responseHeaders,
    );

    return {
      source: `${this.file}#${index}`,
      request: {
        method: method.toUpperCase(),
        url: uri,
        headers: requestHeaders,
        ...(requestBody.body === '' ? {} : requestBody),
      },
      response: {
        status: this.status(response['status'], [...at, 'response', 'status'], index),
        headers: responseHeaders,
        ...responseBody,
      },
    };
  }

  private map(parent: unknown, at: Path, key: string): Record<string, unknown> {
    const value = isRecord(parent) ? parent[key] : undefined;
    if (!isRecord(value)) this.fail([...at, key], `interaction #${at[1]}: ${key} must be a map`);
    return value;
  }

  private status(value: unknown, at: Path, index: number): number {
    // `status: {code: 200, message: OK}`; a bare code is accepted as well.
    const code = isRecord(value) ? value['code'] : value;
    const status = typeof code === 'string' && /^\d{3}$/.test(code.trim()) ? Number(code) : Number.NaN;
    if (!(status >= 200 && status <= 599)) {
      this.fail(
        isRecord(value) ? [...at, 'code'] : at,
        `interaction #${index}: response.status.code must be an HTTP status 200–599`,
      );
    }
    return status;
  }

  private headers(value: unknown, at: Path, index: number): RecordedHeaders {
    const headers = emptyHeaders();
    if (value === undefined || this.isPlainNull(at)) return headers;
    if (!isRecord(value))
      this.fail(at, `interaction #${index}: headers must be a map of name to list of values`);
    for (const [name, values] of Object.entries(value)) {
      for (const item of Array.isArray(values) ? values : [values]) {
        if (typeof item !== 'string') {
          this.fail([...at, name], `interaction #${index}: header ${name} must be a list of strings`);
        }
        addHeader(headers, name, item);
      }
    }
    return headers;
  }

  private body(value: unknown, at: Path, headers: RecordedHeaders): RecordedBody {
    if (value === undefined || this.isPlainNull(at)) return { body: '' };
    // A str body is text vcrpy already decoded; bytes may still carry the Content-Encoding.
    if (typeof value === 'string') return { body: value };
    if (value instanceof Uint8Array) return bodyFromBytes(decodeContent(value, headers['content-encoding']));
    return this.fail(at, `interaction #${at[1]}: ${at.slice(2).join('.')} must be a string or !!binary`);
  }

  /** Whether the node is YAML null (`~`, `null`, nothing), which failsafe reads as text. */
  private isPlainNull(at: Path): boolean {
    const node = this.doc.getIn(at, true);
    return (
      isScalar(node) &&
      node.type === 'PLAIN' &&
      ['', '~', 'null', 'Null', 'NULL'].includes(String(node.source))
    );
  }

  fail(at: Path, detail: string): never {
    throw malformedRecording(this.file, detail, this.position(at));
  }

  /** Where the deepest existing node on the path starts. */
  private position(at: Path): { line: number; column: number } | undefined {
    for (let depth = at.length; depth >= 0; depth--) {
      const node = this.doc.getIn(at.slice(0, depth), true) as
        { range?: [number, number, number] } | undefined;
      if (node?.range) {
        const { line, col } = this.lineCounter.linePos(node.range[0]);
        return { line, column: col };
      }
    }
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array)
  );
}
