import { SculptorError } from '../errors/sculptor-error.ts';

/** What a tool is found by: its current version's words, field by field. */
export interface SearchableTool {
  name: string;
  description: string;
  /** Input names and descriptions (and enum values). */
  inputs: string;
  tags: string;
}

/** Longer queries are refused rather than searched: the cost of a search grows with its terms. */
export const MAX_QUERY_LENGTH = 200;

/** How much a word weighs by where it is found: an agent often guesses part of a name. */
const FIELD_BOOST: Readonly<Record<keyof SearchableTool, number>> = {
  name: 3,
  tags: 2,
  description: 1,
  inputs: 1,
};
const FIELDS = Object.keys(FIELD_BOOST) as (keyof SearchableTool)[];
/** BM25's usual constants: term-frequency saturation and length normalisation. */
const K1 = 1.2;
const B = 0.75;
/** A word found only as a prefix or within one typo counts less than the word itself. */
const PREFIX_WEIGHT = 0.5;
const FUZZY_WEIGHT = 0.4;
/** A prefix expands to at most this many indexed words (the first in alphabetical order). */
const MAX_PREFIX_EXPANSION = 64;
/** Shorter words are matched exactly: one edit changes too much of them. */
const FUZZY_MIN_LENGTH = 5;
/**
 * A typo's work is bounded however the vocabulary is made: at most this many candidates (words
 * sharing a deletion with it) are compared letter by letter, and at most this many of those one
 * edit away count. Real words have a few neighbours one edit away, rarely more.
 */
const MAX_FUZZY_CHECKS = 256;
const MAX_FUZZY_EXPANSION = 16;

interface Posting {
  docs: Int32Array;
  /** Per document: Σ over fields of boost × BM25 term-frequency factor (the idf is apart). */
  weights: Float32Array;
  idf: number;
}

/**
 * Relevance ranking over a catalog: BM25 over the tool's name, description, input
 * names and descriptions, and tags, each field weighted (BM25F-style: per-field length
 * normalisation, boosts summed). Built once per catalog — a reload builds a new catalog — and
 * read-only afterwards.
 *
 * Our own rather than a library's: MiniSearch (tried first) scored 10,000 tools in 80 ms at p99
 * when a query's words are common (every match is scored through maps); here postings are typed
 * arrays and scores accumulate in one Float64Array, a few ms at p99 (`npm run bench:search`).
 *
 * Terms are split on punctuation, `snake_case` and `camelCase`, folded to lower case and lightly
 * singularised, so "pets" finds `find_pet_by_id` and "weatherForecast" finds "weather forecast".
 * The last query word also matches as a prefix (the agent may still be typing), and a word of 5+
 * letters that no tool has matches the words one edit away: a deletion index (below) names the
 * few candidates, so a typo costs little more than the word spelt right. Words combine with OR:
 * a tool matching more of them ranks higher; ties keep catalog (name) order.
 */
export class ToolSearch<T> {
  readonly #items: readonly T[];
  readonly #postings = new Map<string, Posting>();
  /** Every indexed word, sorted: prefix ranges by binary search. */
  readonly #vocabulary: string[];
  /**
   * Typo candidates (SymSpell's deletion neighbourhood): each indexed word of FUZZY_MIN_LENGTH
   * letters or more under itself and under every form with one letter deleted. Two words one
   * edit apart (substitution, insertion, deletion, adjacent swap) share an entry.
   */
  readonly #deletions = new Map<string, string[]>();

  constructor(items: readonly T[], describe: (item: T) => SearchableTool) {
    this.#items = items;
    const n = items.length;
    const docs = items.map((item) => {
      const fields = describe(item);
      return FIELDS.map((f) => terms(fields[f]));
    });
    const avgLength = FIELDS.map(
      (_, f) => docs.reduce((sum, d) => sum + d[f]!.length, 0) / Math.max(1, n) || 1,
    );
    const building = new Map<string, { docs: number[]; weights: number[] }>();
    docs.forEach((fields, doc) => {
      const weight = new Map<string, number>();
      fields.forEach((words, f) => {
        const counts = new Map<string, number>();
        for (const w of words) counts.set(w, (counts.get(w) ?? 0) + 1);
        const norm = K1 * (1 - B + (B * words.length) / avgLength[f]!);
        for (const [w, tf] of counts) {
          const factor = (FIELD_BOOST[FIELDS[f]!] * tf * (K1 + 1)) / (tf + norm);
          weight.set(w, (weight.get(w) ?? 0) + factor);
        }
      });
      for (const [w, value] of weight) {
        let posting = building.get(w);
        if (!posting) building.set(w, (posting = { docs: [], weights: [] }));
        posting.docs.push(doc);
        posting.weights.push(value);
      }
    });
    for (const [w, p] of building) {
      const df = p.docs.length;
      this.#postings.set(w, {
        docs: Int32Array.from(p.docs),
        weights: Float32Array.from(p.weights),
        idf: Math.log(1 + (n - df + 0.5) / (df + 0.5)),
      });
    }
    this.#vocabulary = [...building.keys()].sort();
    for (const word of this.#vocabulary) {
      if (word.length < FUZZY_MIN_LENGTH) continue;
      for (const key of deletionsOf(word)) {
        const list = this.#deletions.get(key);
        if (list) list.push(word);
        else this.#deletions.set(key, [word]);
      }
    }
  }

  /**
   * The items matching `query` among those `keep` accepts, most relevant first: how many there
   * are, and those ranked `offset` to `offset + limit - 1`. The caller's tenant and scopes are
   * applied before ranking, so a tool the caller may not see never takes a place in its results.
   */
  search(
    query: string,
    keep: (item: T) => boolean = () => true,
    { offset = 0, limit = Number.POSITIVE_INFINITY }: { offset?: number; limit?: number } = {},
  ): SearchResult<T> {
    const words = [...new Set(terms(checkedQuery(query)))];
    const n = this.#items.length;
    // Scratch arrays reused by every search (searches are synchronous): no garbage per query.
    const scores = this.#scratch(0).fill(0);
    words.forEach((word, i) => {
      // Each query word counts once: the best of its exact, prefix and typo forms per document.
      const forms = new Map<string, number>([[word, 1]]);
      if (i === words.length - 1 && word.length >= 3) {
        for (const w of this.#withPrefix(word)) if (!forms.has(w)) forms.set(w, PREFIX_WEIGHT);
      }
      if (!this.#postings.has(word) && word.length >= FUZZY_MIN_LENGTH) {
        for (const w of this.#nearby(word)) if (!forms.has(w)) forms.set(w, FUZZY_WEIGHT);
      }
      const best = forms.size === 1 ? scores : this.#scratch(1).fill(0);
      for (const [w, weight] of forms) {
        const p = this.#postings.get(w);
        if (!p) continue;
        const scale = p.idf * weight;
        if (best === scores) {
          for (let k = 0; k < p.docs.length; k++) scores[p.docs[k]!]! += p.weights[k]! * scale;
          continue;
        }
        for (let k = 0; k < p.docs.length; k++) {
          const value = p.weights[k]! * scale;
          if (value > best[p.docs[k]!]!) best[p.docs[k]!] = value;
        }
      }
      if (best !== scores) for (let d = 0; d < n; d++) scores[d]! += best[d]!;
    });
    // Ranks: a bounded heap of the best offset + limit, the worst of them on top.
    const wanted = Math.min(offset + limit, n);
    const worse = (a: number, b: number) => scores[a]! < scores[b]! || (scores[a] === scores[b] && a > b);
    const heap: number[] = [];
    let total = 0;
    for (let d = 0; d < n; d++) {
      if (scores[d] === 0 || !keep(this.#items[d]!)) continue;
      total++;
      if (heap.length < wanted) siftUp(heap, d, worse);
      else if (wanted > 0 && worse(heap[0]!, d)) siftDown(heap, d, worse);
    }
    heap.sort((a, b) => (worse(a, b) ? 1 : worse(b, a) ? -1 : 0));
    return { total, items: heap.slice(offset).map((d) => this.#items[d]!) };
  }

  readonly #scratchArrays: Float64Array[] = [];
  #scratch(i: number): Float64Array {
    return (this.#scratchArrays[i] ??= new Float64Array(this.#items.length));
  }

  #withPrefix(prefix: string): string[] {
    const vocab = this.#vocabulary;
    let lo = 0;
    let hi = vocab.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (vocab[mid]! < prefix) lo = mid + 1;
      else hi = mid;
    }
    const found: string[] = [];
    for (let i = lo; i < vocab.length && found.length < MAX_PREFIX_EXPANSION; i++) {
      if (!vocab[i]!.startsWith(prefix)) break;
      found.push(vocab[i]!);
    }
    return found;
  }

  /** Indexed words one edit away from `word`. */
  #nearby(word: string): Set<string> {
    const found = new Set<string>();
    let checks = 0;
    for (const key of deletionsOf(word)) {
      for (const w of this.#deletions.get(key) ?? []) {
        if (found.has(w)) continue;
        if (++checks > MAX_FUZZY_CHECKS) return found;
        if (withinEdits(word, w, 1)) found.add(w);
        if (found.size === MAX_FUZZY_EXPANSION) return found;
      }
    }
    return found;
  }
}

export interface SearchResult<T> {
  /** How many items match, all pages together. */
  total: number;
  /** The requested page of them, most relevant first. */
  items: T[];
}

/** Adds `item` to a binary heap whose top is the worst item. */
function siftUp(heap: number[], item: number, worse: (a: number, b: number) => boolean): void {
  let i = heap.push(item) - 1;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!worse(heap[i]!, heap[parent]!)) break;
    [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
    i = parent;
  }
}

/** Replaces the heap's top (its worst item) with `item`. */
function siftDown(heap: number[], item: number, worse: (a: number, b: number) => boolean): void {
  heap[0] = item;
  let i = 0;
  for (;;) {
    const left = 2 * i + 1;
    const right = left + 1;
    let top = i;
    if (left < heap.length && worse(heap[left]!, heap[top]!)) top = left;
    if (right < heap.length && worse(heap[right]!, heap[top]!)) top = right;
    if (top === i) return;
    [heap[i], heap[top]] = [heap[top]!, heap[i]!];
    i = top;
  }
}

/** The word itself and each form of it with one letter deleted. */
function deletionsOf(word: string): Set<string> {
  const keys = new Set([word]);
  for (let i = 0; i < word.length; i++) keys.add(word.slice(0, i) + word.slice(i + 1));
  return keys;
}

/** A query is at most MAX_QUERY_LENGTH characters and has at least one word. */
export function checkedQuery(query: string): string {
  if (query.length > MAX_QUERY_LENGTH) {
    throw new SculptorError(
      'request.malformed',
      `q is ${query.length} characters; search with at most ${MAX_QUERY_LENGTH} (a few words).`,
    );
  }
  if (tokenize(query).length === 0) {
    throw new SculptorError('request.malformed', 'q has no words to search for; send a few words, or no q.');
  }
  return query;
}

function terms(text: string): string[] {
  return tokenize(text).map(normalizeTerm);
}

/** Words: runs of letters and digits, `snake_case` and `camelCase` split apart. */
export function tokenize(text: string): string[] {
  const words: string[] = [];
  for (const run of text.split(NOT_WORD)) {
    if (run.length === 0) continue;
    // Most words are all one case: split at a lower-to-upper step only when there is one.
    if (run === run.toLowerCase() || run === run.toUpperCase()) words.push(run);
    else words.push(...run.replace(CAMEL_STEP, '$1 $2').split(' '));
  }
  return words;
}
const NOT_WORD = /[^\p{L}\p{N}]+/u;
const CAMEL_STEP = /([\p{Ll}\p{N}])(\p{Lu})/gu;

/**
 * Lower case and a light singular ("pets" → "pet", "cities" → "city", "addresses" →
 * "address"); words ending in -ss, -us, -is are left alone ("status", "analysis").
 */
export function normalizeTerm(term: string): string {
  const word = term.toLowerCase();
  if (word.length <= 3 || !word.endsWith('s')) return word;
  if (word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.endsWith('sses') || word.endsWith('xes') || word.endsWith('ches') || word.endsWith('shes'))
    return word.slice(0, -2);
  if (word.endsWith('ss') || word.endsWith('us') || word.endsWith('is')) return word;
  return word.slice(0, -1);
}

/** Whether a and b are at most `max` edits apart (Levenshtein, adjacent swaps counted as one). */
export function withinEdits(a: string, b: string, max: number): boolean {
  return editDistance(a, b, max) <= max;
}

/**
 * The optimal string alignment distance of a and b (Levenshtein, adjacent swaps counted as one),
 * or `limit + 1` as soon as it must exceed `limit`: rows are kept short and a row whose every
 * cell is past the limit ends the walk.
 */
export function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let prev2: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, prev2[j - 2]! + 1);
      row.push(v);
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > limit) return limit + 1;
    prev2 = prev;
    prev = row;
  }
  return Math.min(prev[b.length]!, limit + 1);
}
