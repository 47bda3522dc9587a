/**
 * A recorded body is a string: the text itself when the bytes are UTF-8 (so
 * cassettes stay readable in diffs and assertions), otherwise base64 with
 * `bodyEncoding: 'base64'` — the same convention as HAR's `content.encoding`.
 */

export type BodyEncoding = 'base64';

export interface RecordedBody {
  body: string;
  bodyEncoding?: BodyEncoding;
}

// Fatal so that invalid UTF-8 is detected, ignoreBOM so that a leading BOM is
// kept in the text and the bytes round-trip exactly.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function bodyFromBytes(bytes: Uint8Array): RecordedBody {
  try {
    return { body: strictUtf8.decode(bytes) };
  } catch {
    return { body: Buffer.from(bytes).toString('base64'), bodyEncoding: 'base64' };
  }
}

export function bodyBytes(recorded: RecordedBody): Buffer {
  return Buffer.from(recorded.body, recorded.bodyEncoding === 'base64' ? 'base64' : 'utf8');
}
