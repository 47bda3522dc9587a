import type { Before, CostRow } from './cost-row.ts';
import { type Implementation, JSONATA_BUILTINS, type JsonataBuiltin } from './jsonata-builtins.ts';
import {
  distinct,
  encodeInSlices,
  keys,
  length,
  pad,
  padPlan,
  sort,
  spread,
  substring,
} from './replaced-builtins.ts';
import { SCULPT_FUNCTIONS } from './sculpt-functions.ts';
import { shallowSize } from './value-size.ts';

export type { Before, CostRow } from './cost-row.ts';

/**
 * The cost model: one row for every JSONata built-in and operator a sculpt may use, saying
 * what it costs in terms of its inputs' sizes and how the evaluation's budget
 * (`evaluation-budget.ts`) is charged for it. docs/SECURITY.md shows this table
 * (`costTableMarkdown`, kept identical by a test). The rules:
 *
 * - every built-in is charged the sizes of its arguments (`value-size.ts`: characters, items,
 *   keys) before it runs, and what it makes is refused past the limits on one value;
 * - a row's `before` charges, from sizes alone and before any work, whatever the built-in does
 *   beyond one pass over its arguments: what it will make (`$pad`: width × pad length), how deep
 *   it walks (`$string`, `$clone`, deep comparisons), how often it loops (`$replace`);
 * - a row's `implementation` replaces jsonata's where jsonata's hides a cost no charge can price
 *   (arrays of characters, pairwise comparisons, quadratic copies: `replaced-builtins.ts`);
 * - a built-in without a row is refused at load (`unpricedBuiltin`): nothing runs unpriced.
 *
 * A breach stops the work before it starts: the budget throws `D9001` (string), `D9002`
 * (items) or `D9003` (work), or jsonata's `D1012` at the end time.
 */

/** What a jsonata loop iteration costs next to one character handled natively (measured: ≈ 64×). */
export const ITERATION = 64;

const ARGS = 'the arguments’ sizes, before';

/** Keys of each object in an array (what `$keys`, `$spread`, `$merge` walk). */
const itemKeys: Before = (budget, fn, [value]) => {
  if (!Array.isArray(value)) return;
  let keys = 0;
  for (const item of value) keys += shallowSize(item);
  budget.charge(fn, keys);
};

const deep: Before = (budget, fn, [value]) => budget.chargeDeep(fn, value);

/**
 * A picture string (`$formatInteger`, `$formatNumber`, `$fromMillis`…): jsonata analyses it
 * character by character in JavaScript, building objects as it goes — a 5 Mi-character picture
 * took 4 s — so each character is priced as one loop iteration.
 */
const picture =
  (...at: number[]): Before =>
  (budget, fn, args) => {
    for (const i of at) {
      const text = args[i];
      if (typeof text === 'string') budget.charge(fn, text.length * ITERATION);
    }
  };
const PICTURE = 'the picture × 64 (analysed character by character), before';

const builtin = (
  name: JsonataBuiltin,
  cost: string,
  extra?: { charged?: string; before?: Before; implementation?: Implementation },
): CostRow => ({ name: `$${name}`, kind: 'built-in', cost, charged: extra?.charged ?? ARGS, ...extra });

const constant = (name: JsonataBuiltin): CostRow => builtin(name, 'constant (numbers, booleans)');

export const BUILTIN_ROWS: readonly CostRow[] = [
  // Aggregates and arrays
  builtin('sum', 'n items'),
  builtin('count', 'n items'),
  builtin('max', 'n items'),
  builtin('min', 'n items'),
  builtin('average', 'n items'),
  builtin('append', 'a + b items; result ≤ the items limit'),
  builtin('reverse', 'n items'),
  builtin('shuffle', 'n items'),
  builtin('zip', 'Σ items of the arrays; result ≤ the items limit'),
  builtin('sort', 'n items + n log n comparator calls, each a jsonata evaluation', {
    charged: 'n items, refused past the items limit, before; comparator calls by jsonata’s guardrails',
    before(budget, fn, [items]) {
      if (Array.isArray(items)) budget.items(fn, items.length);
    },
    implementation: sort,
  }),
  builtin('distinct', 'the items’ nested size (each keyed by its canonical form, not compared pairwise)', {
    charged: 'the nested size of the items (characters, items, keys at every depth), before',
    before: deep,
    implementation: distinct,
  }),
  // Higher-order: each call of the function is a jsonata evaluation under its guardrails
  builtin('map', 'n items × one call each'),
  builtin('filter', 'n items × one call each'),
  builtin('single', 'n items × one call each'),
  builtin('reduce', 'n items × one call each'),
  builtin('each', 'k keys × one call each'),
  builtin('sift', 'k keys × one call each'),
  // Objects
  builtin('keys', 'the items of nested arrays + the keys of the objects in them', {
    charged: 'the keys of every item, before; nested arrays’ items as they are walked',
    before: itemKeys,
    implementation: keys,
  }),
  builtin('lookup', 'n items or k keys'),
  builtin('spread', 'k keys (of every object in an array)', {
    charged: 'the keys of every item, before',
    before: itemKeys,
    implementation: spread,
  }),
  builtin('merge', 'Σ keys of the objects', { charged: 'the keys of every item, before', before: itemKeys }),
  builtin('clone', 'the value’s nested size (copied through JSON)', {
    charged: 'the nested size of the value, before',
    before: deep,
  }),
  // Strings
  builtin('string', 'the value’s nested size (JSON text of about that length)', {
    charged: 'the nested size of the value, before; the text made ≤ the string limit',
    before: deep,
  }),
  builtin('length', 'str characters', { implementation: length }),
  builtin('substring', 'str characters; result ≤ str', { implementation: substring }),
  builtin('substringBefore', 'str + chars characters'),
  builtin('substringAfter', 'str + chars characters'),
  builtin('lowercase', 'str characters; result ≤ the string limit'),
  builtin('uppercase', 'str characters; result ≤ the string limit'),
  builtin('trim', 'str characters'),
  builtin(
    'pad',
    'str + |width| code points of the pad repeated: up to |width| × pad length characters made',
    {
      charged: 'the padded result’s length, exactly, refused past the string limit, before any of it is made',
      before(budget, fn, [text, width, char]) {
        if (typeof text !== 'string' || typeof width !== 'number') return;
        // The pad string is walked once to measure it, only as far as the width needs.
        budget.charge(fn, typeof char === 'string' ? Math.min(char.length, Math.abs(width) * 2) : 0);
        const plan = padPlan(text, width, typeof char === 'string' ? char : undefined);
        if (plan) budget.string(fn, plan.units);
      },
      implementation: pad,
    },
  ),
  builtin('contains', 'str characters, or a regex search (below)'),
  builtin(
    'match',
    'regex searches: characters scanned × pattern size each, ≤ the step cap; one object per match',
    {
      charged:
        'each search: refused past the step cap before it runs, charged what it scanned + 64 per match',
    },
  ),
  builtin(
    'replace',
    'str characters + matches × 64 (jsonata loops over matches); result ≤ the string limit',
    {
      charged:
        'a string pattern’s matches counted and the result’s length computed, before; regex searches as `$match`',
      before(budget, fn, [text, pattern, replacement, limit]) {
        if (typeof text !== 'string' || typeof pattern !== 'string' || pattern === '') return;
        const most = typeof limit === 'number' ? limit : Infinity;
        const cap = Math.floor(budget.remaining / ITERATION) + 1;
        let matches = 0;
        for (let at = text.indexOf(pattern); at >= 0 && matches < most && matches < cap; matches++) {
          at = text.indexOf(pattern, at + pattern.length);
        }
        budget.charge(fn, matches * ITERATION);
        if (typeof replacement === 'string') {
          budget.string(fn, text.length + matches * (replacement.length - pattern.length));
        }
      },
    },
  ),
  builtin('split', 'str characters; items ≤ the items limit', {
    charged: 'str, before; run with a limit one item past the items limit',
    before(budget, _fn, [text, separator, limit]) {
      const cap = budget.limits.maxItems + 1;
      // Without an items limit (only tests) the call is left as written: JS's split reads an
      // infinite limit as 0.
      if (!Number.isFinite(cap)) return;
      return [text, separator, typeof limit === 'number' ? Math.min(limit, cap) : cap];
    },
  }),
  builtin('join', 'Σ characters of the strings + separators', {
    charged: 'the joined length, refused past the string limit, before',
    before(budget, fn, [strings, separator]) {
      const items = Array.isArray(strings) ? strings : [strings];
      const total = items.reduce((sum: number, s) => sum + shallowSize(s), 0);
      budget.string(fn, total + Math.max(0, items.length - 1) * shallowSize(separator ?? ''));
    },
  }),
  builtin('base64encode', 'str characters; result 4/3 of them', {
    charged: 'the encoded length, refused past the string limit, before',
    before(budget, fn, [text]) {
      if (typeof text === 'string') budget.string(fn, Math.ceil(text.length / 3) * 4);
    },
  }),
  builtin('base64decode', 'str characters'),
  builtin('encodeUrlComponent', 'str characters; result up to 9 per character', {
    charged: 'str, before; the result counted as each 64 Ki slice is encoded, refused past the string limit',
    implementation: encodeInSlices('encodeUrlComponent', encodeURIComponent),
  }),
  builtin('encodeUrl', 'str characters; result up to 9 per character', {
    charged: 'str, before; the result counted as each 64 Ki slice is encoded, refused past the string limit',
    implementation: encodeInSlices('encodeUrl', encodeURI),
  }),
  builtin('decodeUrlComponent', 'str characters'),
  builtin('decodeUrl', 'str characters'),
  // Numbers and pictures
  builtin('number', 'str characters'),
  builtin('parseInteger', 'str + picture characters × 64', { charged: PICTURE, before: picture(1) }),
  builtin('formatNumber', 'picture characters × 64', { charged: PICTURE, before: picture(1) }),
  builtin('formatBase', 'constant (a number of at most 64 digits)'),
  builtin('formatInteger', 'picture characters × 64', { charged: PICTURE, before: picture(1) }),
  builtin('toMillis', 'str + picture characters × 64', { charged: PICTURE, before: picture(1) }),
  builtin('fromMillis', 'picture characters × 64', { charged: PICTURE, before: picture(1, 2) }),
  // Nested arrays reduced to one truth value
  builtin('boolean', 'the value’s nested size (arrays are flattened)', {
    charged: 'the nested size of the value, before',
    before: deep,
  }),
  builtin('not', 'the value’s nested size (arrays are flattened)', {
    charged: 'the nested size of the value, before',
    before: deep,
  }),
  builtin('error', 'message characters'),
  builtin('assert', 'message characters'),
  constant('floor'),
  constant('ceil'),
  constant('round'),
  constant('abs'),
  constant('sqrt'),
  constant('power'),
  constant('random'),
  constant('exists'),
  constant('type'),
  constant('now'),
  constant('millis'),
];

const operator = (name: string, cost: string, charged: string): CostRow => ({
  name,
  kind: 'operator',
  cost,
  charged,
});

const STEP = 'one evaluation step: jsonata’s guardrails (end time, stack) between steps';

/**
 * Operators are jsonata's evaluator itself: each node is one step, and jsonata checks its
 * guardrails (end time, nesting, sequence length) at every step. Those that do unbounded work
 * inside one step are rewritten into calls of bounded functions at load (`bounded-functions.ts`).
 */
export const OPERATOR_ROWS: readonly CostRow[] = [
  operator(
    '&',
    'left + right characters (joined without copying)',
    'rewritten into a call: the result refused past the string limit',
  ),
  operator(
    '=',
    'the smaller side’s nested size (deep comparison)',
    'rewritten into a call: the smaller side’s nested size when both are objects or arrays, before',
  ),
  operator('!=', 'the smaller side’s nested size (deep comparison)', 'rewritten into a call: as `=`'),
  operator('in', 'n items of the right side (compared by identity)', `${STEP}; n ≤ the sequence limit`),
  operator(
    '..',
    'n items made',
    'rewritten into a call: refused past the sequence limit, charged n items, before',
  ),
  operator('+ - * / %', 'constant (numbers)', STEP),
  operator('< <= > >=', 'the shorter string, or constant', STEP),
  operator('and or', 'constant', STEP),
  operator('? :', 'constant', STEP),
  operator('. (path, map)', 'n items × the step on the right', `${STEP}; each sequence ≤ the sequence limit`),
  operator('[ ] (filter, index)', 'n items × the predicate', `${STEP}; each sequence ≤ the sequence limit`),
  operator('^( ) (order by)', 'n log n comparisons of n items', `${STEP}; n ≤ the sequence limit`),
  operator('{ } (group, object)', 'n items × the key and value', STEP),
  operator('[ ] (array constructor)', 'n items', `${STEP}; n ≤ the sequence limit`),
  operator('* (wildcard)', 'k keys', STEP),
  operator(
    '** (descendants)',
    'the input’s nested size',
    `${STEP}; the input is a backend answer, capped in size and depth`,
  ),
  operator('% (parent)', 'constant', STEP),
  operator('@ # (bind)', 'n items', STEP),
  operator(':=', 'constant', STEP),
  operator('~>', 'one function call', STEP),
  operator('function, λ, partial ?', 'one call per use', `${STEP}; recursion ≤ the stack limit`),
  operator(
    '| | (transform)',
    'the input’s nested size (cloned) + the update',
    'the clone is `$clone`’s row; the update one step',
  ),
  operator('/regex/', 'see `$match`', 'each search: refused past the step cap before it runs'),
];

/** Sculptor's own functions (`sculpt-functions.ts`) bring their rows with them: one table. */
export const COST_MODEL: readonly CostRow[] = [
  ...BUILTIN_ROWS,
  ...SCULPT_FUNCTIONS.map((f) => f.row),
  ...OPERATOR_ROWS,
];

const PRICED = new Set(BUILTIN_ROWS.map((row) => row.name.slice(1)));

const BUILTINS = new Set<string>(JSONATA_BUILTINS);

/** A jsonata built-in a sculpt may not call because the cost model has no row for it, or undefined. */
export function unpricedBuiltin(name: string): string | undefined {
  return BUILTINS.has(name) && !PRICED.has(name) ? name : undefined;
}

/** The row of a built-in, by its name without `$`. */
export function builtinRow(name: string): CostRow | undefined {
  return BUILTIN_ROWS.find((row) => row.name === `$${name}`);
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** The table as docs/SECURITY.md shows it. */
export function costTableMarkdown(): string {
  const lines = [
    '| built-in or operator | cost, from its inputs’ sizes | how the budget is charged |',
    '| --- | --- | --- |',
  ];
  for (const row of COST_MODEL)
    lines.push(`| \`${cell(row.name)}\` | ${cell(row.cost)} | ${cell(row.charged)} |`);
  return lines.join('\n');
}
