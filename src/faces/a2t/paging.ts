import type { CatalogTool } from '../../catalog/catalog.ts';
import type { PageCursors } from '../../catalog/page-cursor.ts';
import { SculptorError } from '../../errors/sculptor-error.ts';

export const DEFAULT_PAGE_LIMIT = 20;
export const MAX_PAGE_LIMIT = 100;

/**
 * `pageLimit`: an integer, clamped to [1, 100] (A2T §6.4: the server answers
 * with the limit it actually offers); anything else, or given twice, is a 400.
 */
export function parsePageLimit(values: string[]): number {
  if (values.length === 0) return DEFAULT_PAGE_LIMIT;
  const text = values[0]!;
  if (values.length > 1 || !/^-?\d{1,12}$/.test(text)) {
    throw new SculptorError('request.bad_paging', 'pageLimit must be one whole number (1 to 100).');
  }
  return Math.min(MAX_PAGE_LIMIT, Math.max(1, Number(text)));
}

export function parsePageCursor(values: string[]): string | undefined {
  if (values.length > 1) throw new SculptorError('request.bad_paging', 'pageCursor may be given once.');
  return values[0] || undefined;
}

/** One page of a keyed listing, with the cursor for the next page (or null). */
export function pageOf<T>(
  items: T[],
  limit: number,
  keyOf: (item: T) => string,
  cursors: PageCursors,
  listing: string,
): { page: T[]; next: string | null } {
  const page = items.slice(0, limit);
  const next = items.length > limit ? cursors.encode(listing, keyOf(page[page.length - 1]!)) : null;
  return { page, next };
}

export type { CatalogTool };
