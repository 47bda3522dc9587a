/**
 * Two texts as the rows of a side-by-side view (the Studio's Versions panel): lines both texts
 * share face each other; a run of lines only the left has, next to a run only the right has, is
 * paired row by row as changed; what is left over is removed (left only) or added (right only).
 * Lines are matched by a longest common subsequence, as `diff` does; a signature is a few hundred
 * lines at most, so the quadratic table costs nothing worth a library.
 */
export interface SideBySideRow {
  kind: 'same' | 'changed' | 'removed' | 'added';
  /** 1-based line number and text on each side; absent on the side a line is missing from. */
  left?: { line: number; text: string };
  right?: { line: number; text: string };
}

export function sideBySide(before: string, after: string): SideBySideRow[] {
  const a = before.split('\n');
  const b = after.split('\n');
  // common[i][j]: the length of the longest common subsequence of a[i..] and b[j..].
  const common = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      common[i]![j] =
        a[i] === b[j] ? common[i + 1]![j + 1]! + 1 : Math.max(common[i + 1]![j]!, common[i]![j + 1]!);
    }
  }
  const rows: SideBySideRow[] = [];
  let removed: number[] = [];
  let added: number[] = [];
  const flush = () => {
    for (let k = 0; k < Math.max(removed.length, added.length); k++) {
      const l = removed[k];
      const r = added[k];
      rows.push({
        kind: l !== undefined && r !== undefined ? 'changed' : l !== undefined ? 'removed' : 'added',
        ...(l !== undefined ? { left: { line: l + 1, text: a[l]! } } : {}),
        ...(r !== undefined ? { right: { line: r + 1, text: b[r]! } } : {}),
      });
    }
    removed = [];
    added = [];
  };
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      flush();
      rows.push({ kind: 'same', left: { line: i + 1, text: a[i]! }, right: { line: j + 1, text: b[j]! } });
      i++;
      j++;
    } else if (j >= b.length || (i < a.length && common[i + 1]![j]! >= common[i]![j + 1]!)) {
      removed.push(i++);
    } else {
      added.push(j++);
    }
  }
  flush();
  return rows;
}
