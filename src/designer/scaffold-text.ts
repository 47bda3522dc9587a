/**
 * Text helpers of `sculptor init`: A2T names from a document's words, and a
 * document's Markdown or HTML descriptions cut down to plain sentences.
 */

/** `getPetById`, `repos/list-for-org`, `Get an Album`, `IsoCountryCode` → snake case A2T names. */
export function snakeCase(text: string): string {
  const snake = text
    .replace(/['’]/g, '')
    // A plural acronym is one word: `IDs` → ids, `URLs` → urls (not i_ds).
    .replace(/([A-Z])([A-Z]+)s(?![a-z])/g, (_m, a: string, b: string) => `${a}${b.toLowerCase()}s`)
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (snake === '') return 'x';
  return /^[a-z]/.test(snake) ? snake : `n_${snake}`;
}

/** A2T enum value names: capitalized snake case starting with a letter (`.json` → JSON, `2xx` → V_2XX). */
export function enumName(value: string): string {
  const snake = snakeCase(String(value)).toUpperCase();
  return snake.startsWith('N_') && !/^n_/i.test(String(value)) ? `V_${snake.slice(2)}` : snake;
}

/** Markdown links, HTML tags and runs of white space removed; one paragraph. */
export function plainText(text: string | undefined): string {
  return (text ?? '')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, ' ')
    .replace(/[`*_]{1,3}([^`*_]+)[`*_]{1,3}/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Words whose period does not end a sentence: "e.g. USD", "approx. 3". */
const ABBREVIATION = /(^|[\s(])(e\.g|i\.e|etc|vs|approx|incl|excl|esp|cf|no|nr|mr|mrs|ms|dr|st|[a-z])\.$/i;

/**
 * A text cut into sentences: one ends at `.`, `!` or `?` followed by white space or the end, so
 * a domain, a URL or a version (`www.interzoid.com/register`, `v1.2`) stays whole, and so does an
 * abbreviation ("e.g. USD").
 */
function splitSentences(text: string): string[] {
  const parts: string[] = [];
  let start = 0;
  for (const end of text.matchAll(/[.!?]+(?=\s|$)/g)) {
    const stop = end.index + end[0].length;
    if (end[0] === '.' && ABBREVIATION.test(text.slice(start, stop))) continue;
    parts.push(text.slice(start, stop));
    start = stop;
  }
  if (start < text.length) parts.push(text.slice(start));
  return parts.filter((p) => p.trim() !== '');
}

/** The first sentences of a text, at most `max` characters, ending with a period. */
export function sentences(text: string, max: number, count = 2): string {
  const plain = plainText(text);
  const parts = splitSentences(plain);
  let out = '';
  for (const part of parts.slice(0, count)) {
    const next = `${out}${part.trim()} `;
    if (next.trim().length > max) break;
    out = next;
  }
  out = out.trim();
  if (out === '') out = plain.slice(0, max - 1).trim();
  if (out !== '' && !/[.!?]$/.test(out)) out = `${out.slice(0, max - 1)}.`;
  return out;
}

/** A double-quoted YAML scalar (JSON strings are valid YAML). */
export function q(text: string): string {
  return JSON.stringify(text);
}

/** A JSONata field reference: a name, or a back-quoted one. */
export function field(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : `\`${name.replace(/`/g, '')}\``;
}

/**
 * The head of a scaffold's test file: its schema line, what the file is, no recordings yet (a
 * REVIEW mark saying what to record), and the one case that needs none — a call without the
 * required inputs, or with an undeclared one, refused. The scaffold adds its REVIEW example.
 */
export function testStubHead(
  toolName: string,
  schema: string | undefined,
  required: readonly string[],
  recordWhat: string,
): string[] {
  return [
    ...(schema ? [`# yaml-language-server: $schema=${schema}`] : []),
    `# Sculpt tests for ${toolName}: run them with \`sculptor test <this file>\`. Cases run against`,
    '# recorded backend exchanges (vcrpy cassettes, HAR files); nothing leaves loopback.',
    `tool: ${toolName}`,
    `# REVIEW: record real exchanges ${recordWhat}(vcrpy, or a browser HAR) and list their files or folders here.`,
    'recordings: []',
    'cases:',
    ...(required.length > 0
      ? [`  - name: refuses a call without ${required.join(', ')}`, '    inputs: {}']
      : ['  - name: refuses an input it does not declare', '    inputs: { not_an_input: 1 }']),
    '    expect: { error: input.invalid }',
  ];
}
