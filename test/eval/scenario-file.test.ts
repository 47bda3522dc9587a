import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findScenarioFiles, loadScenarioFile, parseScenarios } from '../../src/eval/scenario-file.ts';

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'eval-scenarios-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const parse = (text: string) => parseScenarios('/x/weather.eval.yaml', text);
const where = (r: ReturnType<typeof parse>) => r.errors.map((e) => `${e.at?.line}:${e.at?.column} ${e.code}`);

describe('scenario files', () => {
  it('reads one call, a sequence, no call, alternatives, follow-ups and every matcher', () => {
    const { file, errors } = parse(`
system: Use the tools.
scenarios:
  - name: today
    request: Weather in New York?
    expect: { tool: lookup_weather_by_city, arguments: { city: New York }, optional: [day] }
    then:
      - request: And tomorrow?
        expect: { tool: lookup_weather_by_city, arguments: { city: { pattern: '^new' }, day: { oneOf: [TOMORROW] } } }
  - name: chain or sculpt
    request: Forecast for Omaha
    expect:
      any:
        - tool: lookup_weather_by_city
          arguments: { city: { present: true } }
        - calls:
            - { tool: get_point, arguments: { point: '41.26,-95.94' } }
            - { tool: get_gridpoint_forecast, arguments: { x: 33, flag: true } }
  - name: small talk
    request: Thanks!
    expect: { none: true }
`);
    expect(errors).toEqual([]);
    expect(file!.system).toBe('Use the tools.');
    const [today, chain, talk] = file!.scenarios;
    expect(today!.turns.map((t) => t.request)).toEqual(['Weather in New York?', 'And tomorrow?']);
    expect(today!.turns[0]!.expect).toEqual([
      {
        calls: [
          {
            tool: 'lookup_weather_by_city',
            arguments: { city: { kind: 'literal', value: 'New York' } },
            optional: ['day'],
          },
        ],
      },
    ]);
    expect(today!.turns[1]!.at.line).toBe(8);
    const follow = (today!.turns[1]!.expect[0] as { calls: Array<{ arguments: Record<string, unknown> }> })
      .calls[0]!.arguments;
    expect(follow.city).toMatchObject({ kind: 'pattern', source: '^new' });
    expect(follow.day).toEqual({ kind: 'oneOf', values: ['TOMORROW'] });
    expect(chain!.turns[0]!.expect).toHaveLength(2);
    expect(chain!.turns[0]!.expect[1]).toEqual({
      calls: [
        { tool: 'get_point', arguments: { point: { kind: 'literal', value: '41.26,-95.94' } }, optional: [] },
        {
          tool: 'get_gridpoint_forecast',
          arguments: { x: { kind: 'literal', value: 33 }, flag: { kind: 'literal', value: true } },
          optional: [],
        },
      ],
    });
    expect(talk!.turns[0]!.expect).toEqual([{ none: true }]);
  });

  it('reports schema problems at their line and column, all at once', () => {
    const result = parse(`
scenarios:
  - name: no request
    expect: { tool: a }
  - name: bad expectation
    request: hi
    expect: { tool: a, argument: { x: 1 } }
  - name: bad matcher
    request: hi
    expect: { tool: a, arguments: { x: { regex: '.' } } }
`);
    expect(result.file).toBeUndefined();
    expect(where(result)).toEqual(expect.arrayContaining(['3:5 load.schema']));
    expect(result.errors.some((e) => e.at!.line === 7)).toBe(true);
    expect(result.errors.some((e) => e.at!.line === 10)).toBe(true);
    expect(result.errors.every((e) => e.code === 'load.schema')).toBe(true);
  });

  it('refuses what the schema cannot say: a twice-used name, a pattern RE2 cannot run, an argument both required and optional', () => {
    const result = parse(`
scenarios:
  - name: same
    request: a
    expect: { tool: t, arguments: { x: { pattern: '(a)\\1' } } }
  - name: same
    request: b
    expect: { tool: t, arguments: { x: 1 }, optional: [y, x] }
`);
    expect(where(result)).toEqual(['5:51 eval.scenario', '6:11 eval.scenario', '8:59 eval.scenario']);
    expect(result.errors[0]!.message).toMatch(/pattern/);
  });

  it('reports broken YAML as load.yaml and a missing file as load.io', async () => {
    expect(parse('scenarios: [\n').errors[0]!.code).toBe('load.yaml');
    const missing = await loadScenarioFile(path.join(tmp, 'nope.eval.yaml'));
    expect(missing.errors.map((e) => e.code)).toEqual(['load.io']);
  });

  it('finds *.eval.yaml below folders, in name order, and takes files named directly', async () => {
    await mkdir(path.join(tmp, 'a/b'), { recursive: true });
    for (const f of ['a/z.eval.yaml', 'a/b/m.eval.yaml', 'a/other.yaml', 'named.yaml']) {
      await writeFile(path.join(tmp, f), 'scenarios: []\n');
    }
    const found = await findScenarioFiles([path.join(tmp, 'a'), path.join(tmp, 'named.yaml')]);
    expect(found.map((f) => path.relative(tmp, f))).toEqual([
      'a/b/m.eval.yaml',
      'a/z.eval.yaml',
      'named.yaml',
    ]);
    await expect(findScenarioFiles([path.join(tmp, 'missing')])).rejects.toMatchObject({ code: 'load.io' });
  });

  it('reads the weather folder’s own scenarios', async () => {
    const { file, errors } = await loadScenarioFile('sculpts/weather/lookup_weather_by_city.eval.yaml');
    expect(errors).toEqual([]);
    expect(file!.scenarios.length).toBeGreaterThanOrEqual(4);
  });
});
