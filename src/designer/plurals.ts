/**
 * Singular and plural of English nouns, by rule, for the names and texts
 * `sculptor init` writes (`customers` → one `customer`, `statuses` → one
 * `status`). Deterministic and small: regular endings, a few irregular and
 * invariant words; a word it gets wrong costs a name a designer edits.
 */

const IRREGULAR: Record<string, string> = {
  people: 'person',
  children: 'child',
  men: 'man',
  women: 'woman',
  indices: 'index',
  matrices: 'matrix',
  vertices: 'vertex',
  criteria: 'criterion',
};
const SINGULAR_OF_IRREGULAR = Object.fromEntries(Object.entries(IRREGULAR).map(([p, s]) => [s, p]));
/** Same in the singular and the plural, or a mass noun. */
const INVARIANT = new Set([
  'news',
  'series',
  'species',
  'data',
  'metadata',
  'media',
  'info',
  'information',
  'analytics',
  'statistics',
  'stats',
  'settings',
  'sms',
  'mms',
]);
/** `-ies` words whose singular ends in `-ie`. */
const IE_WORDS = new Set(['movies', 'cookies', 'pies', 'ties', 'lies', 'zombies', 'calories', 'brownies']);

/** The singular of one English word, by rule (`customers` → `customer`, `statuses` → `status`). */
export function singularWord(word: string): string {
  const w = word.toLowerCase();
  if (IRREGULAR[w]) return IRREGULAR[w];
  if (INVARIANT.has(w) || w.length <= 2) return w;
  if (IE_WORDS.has(w)) return w.slice(0, -1);
  if (/[^aeiou]ies$/.test(w)) return `${w.slice(0, -3)}y`;
  if (/(x|ch|sh|ss|zz)es$/.test(w) && !/(cach|nich)es$/.test(w)) return w.slice(0, -2);
  if (/[^aeiou]uses$/.test(w)) return w.slice(0, -2);
  if (/(ss|us|is)$/.test(w)) return w;
  if (w.endsWith('s')) return w.slice(0, -1);
  return w;
}

export function pluralWord(word: string): string {
  const w = word.toLowerCase();
  if (SINGULAR_OF_IRREGULAR[w]) return SINGULAR_OF_IRREGULAR[w];
  if (INVARIANT.has(w) || singularWord(w) !== w) return w;
  if (/[^aeiou]y$/.test(w)) return `${w.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/.test(w)) return `${w}es`;
  return `${w}s`;
}

/** The last word of a snake-case noun made singular: `payment_intents` → `payment_intent`. */
export function singular(noun: string): string {
  const words = noun.split('_');
  words[words.length - 1] = singularWord(words[words.length - 1]!);
  return words.join('_');
}

/** The last word of a snake-case noun made plural: `payment_intent` → `payment_intents`. */
export function plural(noun: string): string {
  const words = noun.split('_');
  words[words.length - 1] = pluralWord(words[words.length - 1]!);
  return words.join('_');
}

export function isPlural(noun: string): boolean {
  return singular(noun) !== noun;
}
