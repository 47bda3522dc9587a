import { createHmac, timingSafeEqual } from 'node:crypto';
import { SculptorError } from '../errors/sculptor-error.ts';

export const MAX_CURSOR_LENGTH = 512;

/**
 * Opaque paging cursors: "continue after key K, for this listing". Keyed on
 * the last item rather than an offset, so a catalog reload between pages
 * neither repeats nor skips tools; signed, so a client cannot forge one; bound
 * to the listing and its filters, so one cannot be replayed on another.
 */
export interface PageCursors {
  encode(listing: string, afterKey: string): string;
  /** The key to continue after; throws SculptorError('request.bad_paging') when invalid. */
  decode(listing: string, cursor: string): string;
}

export function pageCursors(secret: string): PageCursors {
  const sign = (payload: string) => createHmac('sha256', secret).update(payload).digest().subarray(0, 16);
  return {
    encode(listing, afterKey) {
      const payload = Buffer.from(JSON.stringify([listing, afterKey])).toString('base64url');
      return `${payload}.${sign(payload).toString('base64url')}`;
    },
    decode(listing, cursor) {
      const invalid = () =>
        new SculptorError('request.bad_paging', 'pageCursor is not valid here; start again without it.');
      if (cursor.length > MAX_CURSOR_LENGTH) throw invalid();
      const [payload, mac, extra] = cursor.split('.');
      if (!payload || !mac || extra !== undefined) throw invalid();
      const expected = sign(payload);
      const given = Buffer.from(mac, 'base64url');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
      const decoded: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      if (!Array.isArray(decoded) || decoded[0] !== listing || typeof decoded[1] !== 'string')
        throw invalid();
      return decoded[1];
    },
  };
}
