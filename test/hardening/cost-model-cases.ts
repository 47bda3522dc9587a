/**
 * The cases of the cost model's property tests (`cost-model-property-*.test.ts`): templates for
 * every row of the table (docs/SECURITY.md, "Expressions"), expanded over adversarial inputs.
 */
import { COST_MODEL } from '../../src/compile/jsonata/cost-model.ts';

export const SHORTEST_DEADLINE_MS = 1_000;
/** Past the deadline, for a process the OS did not schedule at once on a loaded 2-core machine. */
export const SCHEDULING_MS = 500;

const deep = (() => {
  let value: Record<string, unknown> = { leaf: 'x' };
  for (let i = 0; i < 500; i++) value = { a: value, i };
  return value;
})();
const row = Array.from({ length: 4_000 }, (_, i) => i);

/** The adversarial values, by placeholder: `{s}` a string, `{a}` an array, `{v}` any value, `{n}` a number, `{p}` a pad. */
const VALUES: Record<string, Record<string, unknown>> = {
  s: { long: 'x'.repeat(2_000_000), astral: '😀'.repeat(500_000) },
  a: {
    wide: Array.from({ length: 10_000 }, (_, i) => ({ id: i, name: `n${i}`, tags: ['a', 'b'] })),
    rows: Array.from({ length: 120 }, (_, i) => [...row.slice(0, -1), i]),
    strings: Array.from({ length: 2_000 }, (_, i) => `${i}`.padEnd(500, '€')),
  },
  v: { deep, rows: Array.from({ length: 120 }, (_, i) => [...row.slice(0, -1), i]) },
  n: { huge: 5_000_000, negative: -60_000_000 },
  p: { digits: '0123456789', unicode: 'é😀ab' },
};

/**
 * Templates per row. Each placeholder is replaced by `$inputs.<kind>_<name>` for every value of
 * its kind, so a template of two placeholders is tried with every pair.
 */
export const TEMPLATES: Record<string, string[]> = {
  $sum: ['$sum({a}.id)', '$sum($map([1..10000], function($x) { $x }))'],
  $count: ['$count({a})'],
  $max: ['$max({a}.id)'],
  $min: ['$min({a}.id)'],
  $average: ['$average({a}.id)'],
  $append: ['$append({a}, {a})'],
  $reverse: ['$reverse({a})'],
  $shuffle: ['$shuffle({a})'],
  $zip: ['$zip({a}, {a}, {a})'],
  $sort: ['$sort({a}, function($l, $r) { $string($l) > $string($r) })', '$sort({a}.name)'],
  $distinct: ['$distinct({a})', '$distinct({v})', '$distinct([1..8000].{"a": $})'],
  $map: ['$map({a}, function($x) { $string($x) })'],
  $filter: ['$filter({a}, function($x) { $x = {v} })'],
  $single: ['$single({a}, function($x) { $x = {v} })'],
  $reduce: ['$reduce({a}, function($l, $r) { $string($l) & $string($r) })'],
  $each: ['$each({v}, function($x, $k) { $string($x) })'],
  $sift: ['$sift({v}, function($x) { $x = {v} })'],
  $keys: ['$keys({a})', '$keys({v})'],
  $lookup: ['$lookup({a}, "name")'],
  $spread: ['$spread({a})'],
  $merge: ['$merge({a})'],
  $clone: ['$clone({v})', '$clone({a})'],
  $string: ['$string({v})', '$string({a})', '$string({s})'],
  $length: ['$length({s})'],
  $substring: ['$substring({s}, 1000, {n})', '$substring({s}, -{n})'],
  $substringBefore: ['$substringBefore({s}, {p})'],
  $substringAfter: ['$substringAfter({s}, {p})'],
  $lowercase: ['$lowercase({s})'],
  $uppercase: ['$uppercase({s})'],
  $trim: ['$trim({s})'],
  $pad: ['$pad({s}, {n}, {p})', '$pad("x", {n}, {p})', '$pad("x", {n}, {s})'],
  $contains: ['$contains({s}, {p})', '$contains({s}, /(\\w+\\s?){1,50}$/)'],
  $match: ['$match({s}, /x|😀/)', '$match({s}, /^(\\w+\\s?){1,50}$/)'],
  $replace: ['$replace({s}, "x", {p})', '$replace({s}, /x|😀/, {p})', '$replace({s}, "x", {s})'],
  $split: [
    '$split({s}, "")',
    '$split({s}, /x?/)',
    '$count([1..10000].($split($substring({s}, 0, 10000), "")))',
  ],
  $join: ['$join({a}.name, {p})', '$join({a}, {s})'],
  $base64encode: ['$base64encode({s})'],
  $base64decode: ['$base64decode($base64encode($substring({s}, 0, 3000000)))'],
  $encodeUrlComponent: ['$encodeUrlComponent({s})'],
  $encodeUrl: ['$encodeUrl({s})'],
  $decodeUrlComponent: ['$decodeUrlComponent({s})'],
  $decodeUrl: ['$decodeUrl({s})'],
  $number: ['$number({s})'],
  $parseInteger: ['$parseInteger({s}, "#0")'],
  $formatNumber: ['$formatNumber({n}, {s})'],
  $formatBase: ['$formatBase({n}, 2)'],
  $formatInteger: ['$formatInteger({n}, "w")', '$formatInteger({n}, {s})'],
  $toMillis: ['$toMillis({s})', '$toMillis("2020", {s})'],
  $fromMillis: ['$fromMillis({n}, {s})'],
  $boolean: ['$boolean({v})', '$boolean({a})'],
  $not: ['$not({v})'],
  $error: ['$error({s})'],
  $assert: ['$assert(false, {s})'],
  $floor: ['$floor({n})'],
  $ceil: ['$ceil({n})'],
  $round: ['$round({n}, 2)'],
  $abs: ['$abs({n})'],
  $sqrt: ['$sqrt({n})'],
  $power: ['$power({n}, {n})'],
  $random: ['$map([1..10000], function() { $random() })'],
  $exists: ['$exists({v})'],
  $type: ['$type({v})'],
  $now: ['$map([1..10000], function() { $now() })'],
  $millis: ['$map([1..10000], function() { $millis() })'],
  $parseXml: ['$parseXml({s})', '$parseXml("<a>" & {s} & "</a>")'],
  '&': ['{s} & {s} & {s}', '($f := function($x, $n) { $n = 0 ? $x : $f($x & $x, $n - 1) }; $f({s}, 28))'],
  '=': ['{v} = {v}', '{a} = {a}', '$count({a}[$ = {v}])'],
  '!=': ['{v} != {v}', '$count({a}[$ != {a}])'],
  in: ['{v} in {a}'],
  '..': ['[1..{n}]', '$count([1..10000].[1..10000])'],
  '+ - * / %': ['{n} * {n} / 3 % 7 - 1 + {n}'],
  '< <= > >=': ['{s} < {s}', '{s} >= {s}'],
  'and or': ['{v} and {a} or {s}'],
  '? :': ['{v} ? {a} : {s}'],
  '. (path, map)': ['{a}.[name, tags]', '{a}.{a}'],
  '[ ] (filter, index)': ['{a}[$string(id) = "9999"]', '{a}[-1]'],
  '^( ) (order by)': ['{a}^(>name)', '{a}^($string($))'],
  '{ } (group, object)': ['{a}{$string(id): name}', '{a}{name: $string($)}'],
  '[ ] (array constructor)': ['[{a}, {a}, {v}]'],
  '* (wildcard)': ['{v}.*', '{a}.*'],
  '** (descendants)': ['{v}.**', '$count({a}.**)'],
  '% (parent)': ['{a}.tags.%.id'],
  '@ # (bind)': ['{a}@$x#$i.{"i": $i}', '{a}@$x.{a}@$y.{"x": $x.id}'],
  ':=': ['($x := {s}; $y := $x & $x; $length($y))'],
  '~>': ['{s} ~> $uppercase() ~> $length()'],
  'function, λ, partial ?': [
    '($f := function($n) { $n <= 1 ? 1 : $f($n - 1) + $f($n - 2) }; $f(40))',
    '$map({a}, $substring(?, 0, 3))',
  ],
  '| | (transform)': ['{v} ~> |$|{"added": $string($)}|'],
  '/regex/': ['$replace({s}, /(x+x+)+y/, "")', '$split({s}, /(\\w+\\s?){1,50}$/)'],
};

export interface Case {
  row: string;
  source: string;
  inputs: Record<string, unknown>;
}

/** Every template of every row, with every combination of the adversarial values it names. */
export function cases(): Case[] {
  const out: Case[] = [];
  for (const [row, templates] of Object.entries(TEMPLATES)) {
    for (const template of templates) {
      const kinds = [...new Set([...template.matchAll(/\{([savnp])\}/g)].map((m) => m[1]!))];
      let combos: Array<Record<string, string>> = [{}];
      for (const kind of kinds) {
        combos = combos.flatMap((c) => Object.keys(VALUES[kind]!).map((name) => ({ ...c, [kind]: name })));
      }
      for (const combo of combos) {
        const inputs: Record<string, unknown> = {};
        const source = template.replace(/\{([savnp])\}/g, (_, kind: string) => {
          inputs[`${kind}_${combo[kind]}`] = VALUES[kind]![combo[kind]!];
          return `$inputs.${kind}_${combo[kind]}`;
        });
        out.push({ row, source, inputs });
      }
    }
  }
  return out;
}

/** Rows of the table without templates, and templates of no row: both must be empty. */
export function unmatchedRows(): { untested: string[]; unknown: string[] } {
  return {
    untested: COST_MODEL.map((r) => r.name).filter((name) => !TEMPLATES[name]),
    unknown: Object.keys(TEMPLATES).filter((name) => !COST_MODEL.some((r) => r.name === name)),
  };
}

export type Outcome = { ms: number; code?: string };

export async function timed(run: () => Promise<unknown>): Promise<Outcome> {
  const started = performance.now();
  try {
    await run();
    return { ms: performance.now() - started };
  } catch (err) {
    return { ms: performance.now() - started, code: (err as { code?: string }).code ?? 'thrown' };
  }
}
