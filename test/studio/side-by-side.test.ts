import { describe, expect, it } from 'vitest';
import { sideBySide } from '../../src/studio/side-by-side.ts';

const rows = (a: string[], b: string[]) =>
  sideBySide(a.join('\n'), b.join('\n')).map(
    (r) => `${r.kind} ${r.left?.text ?? '·'} | ${r.right?.text ?? '·'}`,
  );

describe('sideBySide', () => {
  it('faces shared lines, pairs a replaced run as changed and leaves the rest removed or added', () => {
    expect(rows(['a', 'b', 'c', 'd'], ['a', 'B', 'c', 'd', 'e'])).toEqual([
      'same a | a',
      'changed b | B',
      'same c | c',
      'same d | d',
      'added · | e',
    ]);
    expect(rows(['a', 'x', 'y', 'b'], ['a', 'X', 'b'])).toEqual([
      'same a | a',
      'changed x | X',
      'removed y | ·',
      'same b | b',
    ]);
  });

  it('numbers the lines of each side on its own', () => {
    const result = sideBySide('a\nb', 'new\na\nb');
    expect(result.map((r) => [r.left?.line, r.right?.line])).toEqual([
      [undefined, 1],
      [1, 2],
      [2, 3],
    ]);
  });

  it('shows identical texts as all the same', () => {
    expect(sideBySide('{\n}', '{\n}').every((r) => r.kind === 'same')).toBe(true);
  });
});
