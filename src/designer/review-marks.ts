import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { SculptorError } from '../errors/sculptor-error.ts';
import { BACKENDS_FILE, SCULPT_SUFFIX } from '../sculpt/load-sculpts.ts';
import { type Finding, warning } from './findings.ts';

/**
 * What `sculptor init` leaves for a designer, found again by `sculptor check`:
 * every `REPLACE_ME` placeholder (`lint.placeholder`) and every `# REVIEW:`
 * mark (`lint.review_mark`) in the files init writes — sculpts, backends.yaml
 * and sculpt test files. They are warnings, so a scaffold loads and serves
 * while it is worked on, and `check --strict` (CI) fails until each one is
 * dealt with: a value set, a note read and its mark deleted.
 *
 * A line scan, not a YAML walk: placeholders sit inside JSONata block
 * scalars as often as in plain values, and marks are comments, which a YAML
 * value never shows.
 */

export const PLACEHOLDER = 'REPLACE_ME';
/** Sculpt test files (the testing module's TEST_SUFFIX; designer does not import testing). */
const TEST_SUFFIX = '.test.yaml';
/** A `# REVIEW:` comment: a `#` at the start of a line or after white space. */
const REVIEW_MARK = /(^|\s)(#\s*REVIEW:)\s*(.*)$/;
const NOTE_SHOWN = 100;

function scanned(file: string): boolean {
  const base = path.basename(file);
  return base === BACKENDS_FILE || base.endsWith(SCULPT_SUFFIX) || base.endsWith(TEST_SUFFIX);
}

/** The placeholders and marks of one file's text. */
export function reviewMarksIn(file: string, text: string): Finding[] {
  const findings: Finding[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    const at = (column: number) => ({ file, line: index + 1, column: column + 1 });
    const mark = REVIEW_MARK.exec(line);
    const markStart = mark ? mark.index + mark[1]!.length : line.length;
    // A placeholder only where it is a value: not inside a comment (a mark may quote one).
    const commentFree = /^\s*#/.test(line) ? '' : line.slice(0, markStart);
    for (let i = commentFree.indexOf(PLACEHOLDER); i >= 0; i = commentFree.indexOf(PLACEHOLDER, i + 1)) {
      findings.push(
        warning(
          new SculptorError(
            'lint.placeholder',
            `"${PLACEHOLDER}" is a placeholder \`sculptor init\` left: replace it with the real value, or look the value up in an earlier step from something the user can say.`,
            { at: at(i) },
          ),
        ),
      );
    }
    if (mark) {
      const note = mark[3]!.trim();
      const shown = note.length > NOTE_SHOWN ? `${note.slice(0, NOTE_SHOWN - 1)}…` : note;
      findings.push(
        warning(
          new SculptorError(
            'lint.review_mark',
            `An unread "# REVIEW:" mark${shown ? ` ("${shown}")` : ''}: read the note, make the change it asks for, then delete the mark.`,
            { at: at(markStart) },
          ),
        ),
      );
    }
  });
  return findings;
}

/** The placeholders and marks of every sculpt, backends and test file below `dir`, in file order. */
export async function findReviewMarks(dir: string): Promise<Finding[]> {
  const root = path.resolve(dir);
  let files: string[];
  try {
    const entries = await readdir(root, { withFileTypes: true, recursive: true });
    files = entries
      .filter((e) => e.isFile())
      .map((e) => path.join(e.parentPath, e.name))
      .filter(scanned)
      .sort();
  } catch {
    return []; // the loader reports a folder it cannot read
  }
  const findings: Finding[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch {
      continue; // the loader reports a file it cannot read
    }
    if (text.includes(PLACEHOLDER) || text.includes('REVIEW:')) findings.push(...reviewMarksIn(file, text));
  }
  return findings;
}
