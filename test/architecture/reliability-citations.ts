/**
 * How code and documents cite docs/RELIABILITY.md: "RELIABILITY B6", a range "RELIABILITY B3–B8"
 * (en dash or hyphen), a list "RELIABILITY E7, F2, F3 and M3" or "RELIABILITY I1/I2", a section
 * "RELIABILITY §F". An id is a capital letter and a number, with an optional lower-case suffix
 * (I2b); a section is § and its letter.
 */
const ID = String.raw`(?:§[A-Z]|[A-Z]\d+[a-z]?(?:\s*[–-]\s*[A-Z]?\d+[a-z]?)?)(?![\w])`;
const SEPARATOR = String.raw`(?:\s*,\s*|\s+and\s+|\s*\/\s*)`;

/** One citation: the word RELIABILITY and the ids that follow it. */
export const CITATION = new RegExp(String.raw`\bRELIABILITY\s+${ID}(?:${SEPARATOR}${ID})*`, 'g');

/** The ids one citation names, ranges spelled out: "RELIABILITY B3–B5" names B3, B4 and B5. */
export function idsOf(citation: string): string[] {
  const list = citation.replace(/^RELIABILITY\s+/, '');
  return list.split(new RegExp(SEPARATOR)).flatMap((item) => {
    const range = /^([A-Z])(\d+)\s*[–-]\s*([A-Z])?(\d+)$/.exec(item.trim());
    if (!range) return [item.trim()];
    const [, letter, from, toLetter, to] = range;
    if (toLetter !== undefined && toLetter !== letter) return [`${letter}${from}`, `${toLetter}${to}`];
    const ids: string[] = [];
    for (let n = Number(from); n <= Number(to); n++) ids.push(`${letter}${n}`);
    return ids;
  });
}

/** Every id a text cites, each with the citation it came from. */
export function citationsIn(text: string): Array<{ id: string; citation: string; index: number }> {
  return [...text.matchAll(CITATION)].flatMap((match) =>
    idsOf(match[0]).map((id) => ({ id, citation: match[0], index: match.index })),
  );
}
