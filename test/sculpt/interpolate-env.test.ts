/**
 * `${NAME}` and `${NAME:-default}` in backend and callers files: shell semantics for an empty
 * value, every missing variable named, and a value never expanded again (a secret containing
 * `${…}` stays the secret).
 */
import { describe, expect, it } from 'vitest';
import { interpolateEnv, literalPart } from '../../src/sculpt/interpolate-env.ts';

describe('interpolateEnv', () => {
  it.each([
    ['${BASE}/v2', { BASE: 'https://api.test' }, 'https://api.test/v2', []],
    ['${BASE:-http://127.0.0.1:9}', {}, 'http://127.0.0.1:9', []],
    ['${BASE:-http://127.0.0.1:9}', { BASE: '' }, 'http://127.0.0.1:9', []],
    ['${BASE:-}', {}, '', []],
    ['Bearer ${TOKEN}', {}, 'Bearer ', ['TOKEN']],
    ['${A}:${B}:${A}', { B: 'b' }, ':b:', ['A', 'A']],
    ['${1X} and $NAME stay as written', { NAME: 'x' }, '${1X} and $NAME stay as written', []],
  ] as const)('%s', (text, env, value, missing) => {
    const result = interpolateEnv(text, env);
    expect(result.value).toBe(value);
    expect(result.missing).toEqual(missing);
  });

  it('says whether the text referenced the environment at all', () => {
    expect(interpolateEnv('https://api.test', {}).referencesEnv).toBe(false);
    expect(interpolateEnv('${X:-d}', {}).referencesEnv).toBe(true);
  });

  it('never expands a value again', () => {
    expect(interpolateEnv('${SECRET}', { SECRET: 'p${OTHER}w', OTHER: 'leak' }).value).toBe('p${OTHER}w');
  });
});

describe('literalPart', () => {
  it('is what was written outside the references (where a literal secret would be)', () => {
    expect(literalPart('Bearer ${TOKEN}')).toBe('Bearer ');
    expect(literalPart('${A}${B:-x}')).toBe('');
    expect(literalPart('sk_live_123')).toBe('sk_live_123');
  });
});
