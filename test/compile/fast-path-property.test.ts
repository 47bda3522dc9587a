/**
 * Differential property test of the JSONata fast path: random JSON values, random expressions
 * of the subset's grammar (and a few forms just outside it) over their keys. Whenever the fast
 * path compiles an expression and answers, its answer is jsonata's: the same values, the same
 * keys in the same order, objects of the same prototype, data returned by reference. When
 * jsonata throws, the fast path bails.
 */
import fc from 'fast-check';
import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import { compileExpression, JSONATA_LIMITS } from '../../src/compile/compile-expression.ts';
import { BAIL, compileFastPath } from '../../src/compile/fast-path.ts';

// Keys the data and the expressions share: a few common ones, so that paths find data, and
// traps (a numeric key, inherited names, jsonata's own flags) now and then.
const COMMON = ['a', 'b', 'x'];
const TRAPS = [
  'periods',
  '0',
  'sequence',
  'constructor',
  '__proto__',
  '_jsonata_lambda',
  '_jsonata_function',
];
const KEYS = [...COMMON, ...TRAPS];
const key = fc.oneof(
  { arbitrary: fc.constantFrom(...COMMON), weight: 6 },
  { arbitrary: fc.constantFrom(...TRAPS), weight: 1 },
);

/** An object as JSON.parse builds it: every key an own data property (`__proto__` included). */
function objectOf(entries: Array<[string, unknown]>): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const [key, value] of entries) {
    Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return object;
}

const { json } = fc.letrec<{ json: unknown }>((tie) => ({
  json: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(
      null,
      true,
      true,
      false,
      0,
      -0,
      1,
      -7,
      0.1,
      2.5,
      1e21,
      123456.78901234567,
      '',
      'text',
      'a,b',
    ),
    fc.string({ maxLength: 4 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.array(tie('json'), { maxLength: 3 }),
    fc.array(fc.tuple(key, tie('json')), { maxLength: 4 }).map(objectOf),
  ),
}));

const name = key.map((k) => (/^[a-z_]\w*$/i.test(k) ? k : `\`${k}\``));
const index = fc.constantFrom('', '', '', '[0]', '[1]', '[2]', '[-1]', '[0.5]', '[]', '["a"]');
const head = fc.constantFrom('$inputs', '$steps', '$steps.s', '$', '$$', '$other', '');
const literal = fc.oneof(
  fc.constantFrom('true', 'false', 'null', '0', '-3', '1.5', '0.1', '1e21', '123456.789012345678'),
  fc.string({ maxLength: 4 }).map((s) => JSON.stringify(s)),
);

const { expr } = fc.letrec<{ expr: string; path: string; object: string }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    literal,
    tie('path'),
    tie('path'),
    tie('object'),
    fc.array(tie('expr'), { maxLength: 3 }).map((items) => `[${items.join(', ')}]`),
    fc.tuple(tie('expr'), tie('expr')).map(([l, r]) => `${l} & ${r}`),
  ),
  path: fc
    .tuple(
      head,
      index,
      fc.array(fc.tuple(name, index), { maxLength: 3 }),
      fc.option(tie('object'), { freq: 4 }),
    )
    .map(([h, i, steps, object]) => {
      const parts = [h === '' ? '' : `${h}${i}`, ...steps.map(([n, j]) => `${n}${j}`)].filter(
        (p) => p !== '',
      );
      if (parts.length === 0) parts.push('a');
      if (object !== null) parts.push(object);
      return parts.join('.');
    }),
  object: fc
    .array(fc.tuple(fc.constantFrom(...KEYS, 'k'), tie('expr')), { maxLength: 3 })
    .map((pairs) => `{ ${pairs.map(([k, v]) => `${JSON.stringify(k)}: ${v}`).join(', ')} }`),
}));

const bindings = fc
  .record({ inputs: json, steps: fc.record({ s: json, a: json }) })
  .map((b) => ({ ...b, steps: objectOf(Object.entries(b.steps)) }));

/** Same values, same keys in the same order, same prototypes; data objects by reference. */
function same(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return a === b;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length || ka.some((k, i) => k !== kb[i])) return false;
  // Only constructed objects (prototype-less, or arrays jsonata built) may be copies.
  if (!Array.isArray(a) && Object.getPrototypeOf(a) !== null) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  return ka.every((k) => same(ra[k], rb[k]));
}

const show = (value: unknown) => (value === undefined ? 'undefined' : JSON.stringify(value));

async function reference(source: string, input: unknown, b: Record<string, unknown>) {
  try {
    return { value: (await jsonata(source, { ...JSONATA_LIMITS }).evaluate(input, b)) as unknown };
  } catch (err) {
    return { error: err };
  }
}

describe('the fast path against jsonata', () => {
  it('agrees on random data and random expressions, or bails', async () => {
    let compiled = 0;
    let answered = 0;
    await fc.assert(
      fc.asyncProperty(expr, json, bindings, async (source, input, b) => {
        let ast: unknown;
        try {
          ast = jsonata(source).ast();
        } catch {
          return; // not an expression
        }
        const fast = compileFastPath(ast);
        if (!fast) return;
        compiled += 1;
        const value = fast(input, b);
        if (value === BAIL) return;
        answered += 1;
        const ref = await reference(source, input, b);
        expect(ref, `jsonata throws on ${source} where the fast path answers`).not.toHaveProperty('error');
        if (!same(value, ref.value))
          expect.fail(`${source}: fast ${show(value)} vs jsonata ${show(ref.value)}`);
      }),
      { numRuns: 3_000 },
    );
    // The generator must keep exercising the fast path, not only the forms it refuses.
    expect(compiled).toBeGreaterThan(1_000);
    expect(answered).toBeGreaterThan(500);
  });

  it('agrees on sculpt-shaped expressions over sculpt-shaped data', async () => {
    const shaped = fc.constantFrom(
      '$inputs.x',
      '$inputs.x.y',
      '$steps.a.b[0]',
      '$steps.a.periods[0].x',
      '$steps.s.periods[1].y',
      '{ "x": $inputs.x, "y": $inputs.y, "k": "literal" }',
      '$steps.a.periods[0].{ "x": x, "y": y & "!" }',
      '{ "point": $steps.s.x & "," & $steps.s.y }',
      '[$inputs.x, $inputs.y, [$inputs.a]]',
    );
    const leaf = fc.oneof(fc.constantFrom(null, 1, 2.5, 'text', true), fc.string({ maxLength: 3 }));
    const record = fc
      .array(
        fc.tuple(fc.constantFrom('x', 'y', 'b', 'a'), fc.oneof(leaf, fc.array(leaf, { maxLength: 2 }))),
        {
          maxLength: 4,
        },
      )
      .map(objectOf);
    const periods = fc.array(record, { maxLength: 3 });
    const step = fc
      .tuple(record, fc.option(periods))
      .map(([r, p]) => (p === null ? r : objectOf([...Object.entries(r), ['periods', p]])));
    await fc.assert(
      fc.asyncProperty(shaped, record, step, step, async (source, inputs, s, a) => {
        const b = {
          inputs,
          steps: objectOf([
            ['s', s],
            ['a', a],
          ]),
        };
        const value = compileFastPath(jsonata(source).ast())!(undefined, b);
        if (value === BAIL) return;
        const ref = await reference(source, undefined, b);
        expect(ref).not.toHaveProperty('error');
        if (!same(value, ref.value))
          expect.fail(`${source}: fast ${show(value)} vs jsonata ${show(ref.value)}`);
      }),
      { numRuns: 1_000 },
    );
  });

  it('bails on data jsonata takes for a function (an object flagged _jsonata_lambda or _jsonata_function)', async () => {
    for (const flag of ['_jsonata_lambda', '_jsonata_function']) {
      const inputs = { x: { [flag]: true, y: 1 } };
      const fast = compileFastPath(jsonata('$inputs.x.y').ast())!;
      expect(fast(undefined, { inputs })).toBe(BAIL);
      expect(await jsonata('$inputs.x.y').evaluate(undefined, { inputs })).toBeUndefined();
    }
  });

  it('returns data by reference and builds prototype-less objects, as jsonata does', async () => {
    const periods = [{ temperature: 22 }];
    const steps = { forecast: { properties: { periods } } };
    const e = compileExpression('$steps.forecast.properties.periods[0]', () => ({
      file: 'x',
      line: 1,
      column: 1,
    }));
    expect(await e.evaluate({}, { steps })).toBe(periods[0]);
    const built = compileFastPath(
      jsonata('{ "t": $steps.forecast.properties.periods[0].temperature }').ast(),
    )!;
    const value = built({}, { steps });
    expect(Object.getPrototypeOf(value)).toBeNull();
    expect({ ...(value as object) }).toEqual({ t: 22 });
  });
});
