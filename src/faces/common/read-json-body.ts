import type { Context } from 'hono';
import { SculptorError } from '../../errors/sculptor-error.ts';
import { readRequestBody } from './read-request-body.ts';

/** JSON only (RELIABILITY A9): `application/json`, optionally `; charset=utf-8`. */
const JSON_TYPE = /^application\/json\s*(;\s*charset="?utf-8"?\s*)?$/i;

/**
 * A request's JSON body, for every face: the content type checked, the streamed bytes counted
 * against `maxBytes` (chunked bodies included, RELIABILITY A1), then parsed. `what` names the
 * body in the errors ("the invocation", "the JSON-RPC message").
 */
export function readJsonBody(c: Context, maxBytes: number, what: string): Promise<unknown> {
  const type = c.req.header('content-type') ?? '';
  if (!JSON_TYPE.test(type.trim())) {
    return Promise.reject(
      new SculptorError('request.unsupported_media_type', `Send ${what} as application/json.`),
    );
  }
  // Not an async function: the read's promise, parsed, with no frame suspended around it.
  return readRequestBody(c, maxBytes).then(parseBody);
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new SculptorError('request.malformed', 'The body is not valid JSON.');
  }
}
