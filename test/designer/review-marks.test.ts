import { describe, expect, it } from 'vitest';
import { reviewMarksIn } from '../../src/designer/review-marks.ts';

/** `line:col code` of each finding, for compact assertions. */
function where(text: string): string[] {
  return reviewMarksIn('x.sculpt.yaml', text).map(
    (f) => `${f.error.at!.line}:${f.error.at!.column} ${f.error.code} ${f.severity}`,
  );
}

describe('reviewMarksIn: what init leaves for a designer', () => {
  it('finds a mark on its own line and after a value, at the column of its #', () => {
    const text = [
      'tool: x',
      '# REVIEW: say what the tool does.',
      'inputs:',
      '  q:',
      '    description: "The query."  # REVIEW: the document does not describe it.',
    ].join('\n');
    expect(where(text)).toEqual(['2:1 lint.review_mark warning', '5:32 lint.review_mark warning']);
  });

  it('finds each placeholder where it is a value, block scalars included, never inside a comment', () => {
    const text = [
      'steps:',
      '  - id: a',
      '    params: |',
      '      { "shop": "REPLACE_ME", "ids": ["REPLACE_ME"] }',
      '    # a note about REPLACE_ME is no placeholder',
      '    body: \'{ "x": 1 }\'  # REVIEW: set "REPLACE_ME" below',
    ].join('\n');
    expect(where(text)).toEqual([
      '4:18 lint.placeholder warning',
      '4:40 lint.placeholder warning',
      '6:25 lint.review_mark warning',
    ]);
  });

  it('says what to do, quoting the note', () => {
    const [placeholder, mark] = reviewMarksIn('x.yaml', '"REPLACE_ME"  # REVIEW: check the value.');
    expect(placeholder!.error.message).toMatch(/replace it with the real value/);
    expect(mark!.error.message).toBe(
      'An unread "# REVIEW:" mark ("check the value."): read the note, make the change it asks for, then delete the mark.',
    );
  });

  it('leaves text that only mentions the word alone: no mark without a comment #, a kept NOTE', () => {
    expect(
      where('description: "See the REVIEW: section."\n# NOTE: kept on purpose.\nurl: a#REVIEW:b'),
    ).toEqual([]);
  });
});
