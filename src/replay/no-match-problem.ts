import type { RecordedExchange } from './load-recordings.ts';
import { pathSegments, splitTarget } from './request-key.ts';

export interface NoMatchCandidate {
  method: string;
  url: string;
  source: string;
}

/** RFC 9457 problem answered when no recording matches a request. */
export interface NoMatchProblem {
  type: 'about:blank';
  title: 'No recording matches';
  status: 404;
  detail: string;
  code: 'replay.no_match';
  /** Recorded requests most like the missed one, to show what to fix. */
  candidates: NoMatchCandidate[];
}

const MAX_CANDIDATES = 3;

export function noMatchProblem(
  method: string,
  target: string,
  exchanges: RecordedExchange[],
): NoMatchProblem {
  return {
    type: 'about:blank',
    title: 'No recording matches',
    status: 404,
    detail: `No recorded exchange for ${method} ${target}`,
    code: 'replay.no_match',
    candidates: candidates(method.toUpperCase(), target, exchanges),
  };
}

/**
 * Up to three recorded requests with the same path or the same method. The
 * same path ranks first (the query or method is usually what differs), then
 * the same method with the longest common path prefix; load order breaks ties.
 */
function candidates(method: string, target: string, exchanges: RecordedExchange[]): NoMatchCandidate[] {
  const wanted = segmentsOf(target);
  const ranked: Array<{ rank: number; order: number; candidate: NoMatchCandidate }> = [];
  const seen = new Set<string>();
  exchanges.forEach((exchange, order) => {
    const { method: recordedMethod, url } = exchange.request;
    const id = `${recordedMethod} ${url}`;
    if (seen.has(id)) return; // the same request recorded twice is one hint
    const recorded = segmentsOf(url);
    const shared = commonPrefix(wanted, recorded);
    const samePath = shared === wanted.length && shared === recorded.length;
    const sameMethod = recordedMethod === method;
    if (!samePath && !sameMethod) return;
    seen.add(id);
    // Same path beats any prefix; among same paths, the same method first.
    const rank = samePath ? Number.MAX_SAFE_INTEGER - (sameMethod ? 0 : 1) : shared;
    ranked.push({ rank, order, candidate: { method: recordedMethod, url, source: exchange.source } });
  });
  ranked.sort((a, b) => b.rank - a.rank || a.order - b.order);
  return ranked.slice(0, MAX_CANDIDATES).map((entry) => entry.candidate);
}

function segmentsOf(target: string): string[] {
  return pathSegments(splitTarget(target).path);
}

function commonPrefix(a: string[], b: string[]): number {
  let length = 0;
  while (length < a.length && length < b.length && a[length] === b[length]) length++;
  return length;
}
