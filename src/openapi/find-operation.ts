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
  const refused = doc.unsupported?.find((u) => u.operation === ref);
  if (refused) {
    throw new SculptorError(
      'compile.unsupported_operation',
      `Operation '${ref}' of ${doc.file} cannot be called: ${refused.reason}.`,
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
  // An operationId the document does not use may still name a route in words (`getRates`).
  for (const route of wordMatches(ref, doc.operations)) {
    if (close.length < MAX_SUGGESTIONS && !close.includes(route)) close.push(route);
  }
  const noIds = doc.operations.every((op) => op.operationId === undefined) && !ROUTE.test(ref.trim());
  const how = noIds ? " The document names no operationIds: name an operation as 'METHOD /path'." : '';
  const hint = close.length > 0 ? ` Close matches: ${close.join(', ')}.` : '';
  return new SculptorError('compile.unknown_operation', `No operation '${ref}' in ${doc.file}.${how}${hint}`);
}

/** Words not worth matching on: methods and glue. */
const GLUE = new Set([
  'get',
  'list',
  'post',
  'put',
  'patch',
  'delete',
  'create',
  'update',
  'the',
  'a',
  'an',
  'of',
  'by',
  'for',
  'all',
  'to',
  'and',
  'v1',
  'v2',
  'v3',
  'api',
]);

function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1 && !GLUE.has(w))
    .map((w) => w.replace(/(ies)$/, 'y').replace(/(?<=[^s])s$/, ''));
}

/** Routes whose path, operationId or summary share the most words with `ref`, best first. */
function wordMatches(ref: string, operations: readonly Operation[]): string[] {
  const wanted = new Set(words(ref));
  if (wanted.size === 0) return [];
  const scored = operations.flatMap((op) => {
    const have = new Set(words(`${op.operationId ?? ''} ${op.path} ${op.summary ?? ''}`));
    const score = [...wanted].filter((w) => have.has(w)).length;
    return score > 0 ? [{ route: routeOf(op), score }] : [];
  });
  scored.sort((a, b) => b.score - a.score || a.route.localeCompare(b.route));
  return scored.slice(0, MAX_SUGGESTIONS).map((s) => s.route);
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
