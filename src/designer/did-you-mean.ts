import { editDistance } from '../catalog/tool-search.ts';

/**
 * " Did you mean 'x'?" for a name that is not there: the closest known names by
 * edit distance (at most a third of the name, at least 2), or those that contain
 * it. Empty when nothing is close, so a message can always append it.
 */
export function didYouMean(name: string, known: Iterable<string>): string {
  const wanted = name.toLowerCase();
  const limit = Math.max(2, Math.floor(wanted.length / 3));
  const close: Array<[number, string]> = [];
  for (const candidate of new Set(known)) {
    const c = candidate.toLowerCase();
    const distance = c.includes(wanted) || wanted.includes(c) ? 1 : editDistance(wanted, c, limit);
    if (distance <= limit) close.push([distance, candidate]);
  }
  close.sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : 1));
  const names = close.slice(0, 3).map(([, n]) => `'${n}'`);
  return names.length === 0 ? '' : ` Did you mean ${names.join(' or ')}?`;
}
