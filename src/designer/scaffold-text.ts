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

/** The first sentences of a text, at most `max` characters, ending with a period. */
export function sentences(text: string, max: number, count = 2): string {
  const parts = plainText(text).match(/[^.!?]+[.!?]+(\s|$)|[^.!?]+$/g) ?? [];
  let out = '';
  for (const part of parts.slice(0, count)) {
    const next = `${out}${part.trim()} `;
    if (next.trim().length > max) break;
    out = next;
  }
  out = out.trim();
  if (out === '')
    out = plainText(text)
      .slice(0, max - 1)
      .trim();
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
