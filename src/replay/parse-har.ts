import type { RecordedExchange } from './load-recordings.ts';
import { bodyFromBytes, type RecordedBody } from './recorded-body.ts';
import { addHeader, emptyHeaders, type RecordedHeaders } from './recorded-headers.ts';
import { malformedRecording, unparseableRecording } from './recording-error.ts';

/**
 * Reads a HAR 1.2 file (what browsers, Polly.js and most proxies write):
 * `log.entries[]` of `{request: {method, url, headers[]}, response: {status,
 * headers[], content: {text, encoding?, mimeType}}}`. HAR stores content
 * already decoded from any Content-Encoding; `content.encoding: "base64"` only
 * says how binary content was put into the JSON string.
 *
 * Entries with status 0 or 1xx are skipped: browsers log blocked or aborted
 * requests with status 0 and WebSocket handshakes with 101, and neither is an
 * answer that can be replayed.
 *
 * Returns undefined for JSON that has no `log.entries` array.
 */
export function parseHar(text: string, file: string): RecordedExchange[] | undefined {
  let root: unknown;
  try {
    // Some tools (Fiddler, older Windows browsers) write a byte-order mark.
    root = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw unparseableRecording(file, `invalid JSON: ${(error as Error).message}`);
  }
  const log = isRecord(root) ? root['log'] : undefined;
  const entries = isRecord(log) ? log['entries'] : undefined;
  if (!Array.isArray(entries)) return undefined;

  const exchanges: RecordedExchange[] = [];
  entries.forEach((entry: unknown, index) => {
    const exchange = readEntry(entry, index, file);
    if (exchange) exchanges.push(exchange);
  });
  return exchanges;
}

function readEntry(entry: unknown, index: number, file: string): RecordedExchange | undefined {
  const fail = (detail: string): never => {
    throw malformedRecording(file, `log.entries[${index}]: ${detail}`);
  };
  const request = isRecord(entry) ? entry['request'] : undefined;
  const response = isRecord(entry) ? entry['response'] : undefined;
  if (!isRecord(request)) return fail('request must be an object');
  if (!isRecord(response)) return fail('response must be an object');

  const status = response['status'];
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 0 || status > 599) {
    return fail('response.status must be an HTTP status');
  }
  if (status < 200) return undefined;

  const method = request['method'];
  if (typeof method !== 'string' || method.trim() === '') return fail('request.method must be a string');
  const url = request['url'];
  if (typeof url !== 'string' || !URL.canParse(url)) return fail('request.url must be an absolute URL');

  const requestHeaders = readHeaders(request['headers'], 'request.headers', fail);
  const postData = request['postData'];
  const requestText = isRecord(postData) ? postData['text'] : undefined;

  const responseHeaders = readHeaders(response['headers'], 'response.headers', fail);
  const content = response['content'] ?? {};
  if (!isRecord(content)) return fail('response.content must be an object');
  const body = readContent(content, fail);
  const mimeType = content['mimeType'];
  // Content-Type is normally among the headers; HAR also has it in mimeType.
  if (responseHeaders['content-type'] === undefined && typeof mimeType === 'string' && mimeType !== '') {
    addHeader(responseHeaders, 'content-type', mimeType);
  }

  return {
    source: `${file}#${index}`,
    request: {
      method: method.toUpperCase(),
      url,
      headers: requestHeaders,
      ...(typeof requestText === 'string' && requestText !== '' ? { body: requestText } : {}),
    },
    response: { status, headers: responseHeaders, ...body },
  };
}

function readHeaders(value: unknown, where: string, fail: (detail: string) => never): RecordedHeaders {
  const headers = emptyHeaders();
  if (value === undefined) return headers;
  if (!Array.isArray(value)) return fail(`${where} must be an array`);
  for (const header of value) {
    const name: unknown = isRecord(header) ? header['name'] : undefined;
    const headerValue: unknown = isRecord(header) ? header['value'] : undefined;
    if (typeof name !== 'string' || typeof headerValue !== 'string') {
      return fail(`${where} must hold {name, value} strings`);
    }
    // HTTP/2 pseudo-headers (":status", ":authority") are not fields to replay.
    if (name.startsWith(':')) continue;
    addHeader(headers, name, headerValue);
  }
  return headers;
}

function readContent(content: Record<string, unknown>, fail: (detail: string) => never): RecordedBody {
  const text = content['text'];
  const encoding = content['encoding'];
  // Browsers leave `text` out when they did not keep the body.
  if (text === undefined || text === null) return { body: '' };
  if (typeof text !== 'string') return fail('response.content.text must be a string');
  if (encoding === undefined || encoding === null || encoding === '') return { body: text };
  if (encoding !== 'base64') return fail(`response.content.encoding "${String(encoding)}" is not supported`);
  if (!/^[A-Za-z0-9+/\s]*={0,2}\s*$/.test(text)) return fail('response.content.text is not valid base64');
  return bodyFromBytes(Buffer.from(text, 'base64'));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
