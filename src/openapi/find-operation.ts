/**
 * Resolves how a sculpt names an operation: its `operationId`, or
 * `"METHOD /path/template"` for documents (or operations) without ids.
 * RELIABILITY H3: an operationId must resolve exactly once.
 */
import { SculptorError } from '../errors/sculptor-error.ts';
import type { OpenApiDocument, Operation } from './load-openapi.ts';

const MAX_SUGGESTIONS = 5;
const ROUTE = /^([A-Za-z]+)\s+(\/\S*)$/;

export function findOperation(doc: OpenApiDocument, ref: string): Operation {
  const route = ROUTE.exec(ref.trim());
  if (route) {
    const method = route[1]!.toUpperCase();
    const found = doc.operations.find((op) => op.method === method && op.path === route[2]);
    if (found) return found;
    throw unknown(doc, ref, doc.operations.map(routeOf));
  }
  const matches = doc.operations.filter((op) => op.operationId === ref);
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1) {
    throw new SculptorError(
      'compile.ambiguous_operation',
      `operationId '${ref}' is used by ${matches.length} operations in ${doc.file} ` +
        `(${matches.map(routeOf).join(', ')}); name one as "METHOD /path" instead.`,
    );
  }
  const ids = doc.operations.flatMap((op) => (op.operationId === undefined ? [] : [op.operationId]));
  throw unknown(doc, ref, ids);
}

function routeOf(op: Operation): string {
  return `${op.method} ${op.path}`;
}

function unknown(doc: OpenApiDocument, ref: string, candidates: string[]): SculptorError {
  const close = closeMatches(ref, candidates);
  const hint = close.length > 0 ? ` Close matches: ${close.join(', ')}.` : '';
  return new SculptorError('compile.unknown_operation', `No operation '${ref}' in ${doc.file}.${hint}`);
}

/**
 * Up to 5 candidates closest to `target`, by edit distance once case and
 * separators are ignored (so `gridpointForecast` finds `gridpoint_forecast`);
 * containing one another counts as close.
 */
export function closeMatches(target: string, candidates: readonly string[]): string[] {
  const t = squash(target);
  const scored: { candidate: string; distance: number }[] = [];
  for (const candidate of new Set(candidates)) {
    const c = squash(candidate);
    const contained = t.length > 0 && c.length > 0 && (c.includes(t) || t.includes(c));
    const distance = contained ? Math.abs(c.length - t.length) / 100 : editDistance(t, c);
    if (contained || distance <= Math.max(2, Math.floor(t.length / 3))) scored.push({ candidate, distance });
  }
  scored.sort((a, b) => a.distance - b.distance || a.candidate.localeCompare(b.candidate));
  return scored.slice(0, MAX_SUGGESTIONS).map((s) => s.candidate);
}

function squash(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9/{}]/g, '');
}

/** Levenshtein distance, two rows. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length]!;
}
