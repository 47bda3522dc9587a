import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileSculpts } from '../../src/compile/compile-sculpts.ts';
import {
  findSculptsFolder,
  findSculptTestFiles,
  formatSculptTestRun,
  loadSculptTestFile,
  rebaseTools,
  rebaseUrl,
  replayEnv,
  runSculptTests,
  type SculptTestRun,
} from '../../src/testing/index.ts';

const FIXTURES = 'test/testing/fixtures';
let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'sculpt-tests-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

async function write(name: string, text: string): Promise<string> {
  const file = path.join(tmp, name);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
  return file;
}

describe('runSculptTests reports what differs, case by case', () => {
  let run: SculptTestRun;
  const kase = (name: string) => run.files[0]!.cases.find((c) => c.name === name)!;
  beforeAll(async () => {
    run = await runSculptTests([`${FIXTURES}/wrong-expectations.test.yaml`]);
  });

  it('passes the right case and fails the file', () => {
    expect(run.passed).toBe(false);
    expect(run.totals).toEqual({ files: 1, cases: 7, passed: 1, failed: 6, fileErrors: 0 });
    expect(kase('right')).toMatchObject({ passed: true, failures: [], version: 2 });
    expect(kase('right').calls.every((c) => c.matched !== null)).toBe(true);
  });

  it('outputs: a wrong value, a missing one and one not expected', () => {
    const c = kase('wrong temperature, missing and extra outputs');
    expect(c.failures).toEqual([
      { kind: 'outputs', message: "Output 'temperature_f': expected 99, got 22." },
      { kind: 'outputs', message: "Output 'humidity' is missing (expected 40)." },
      { kind: 'outputs', message: `Output 'place' is not expected (got "New York, New York, US").` },
    ]);
    expect(c.expected).toEqual({ outputs: { temperature_f: 99, forecast: 'Sunny', humidity: 40 } });
    expect(c.actual).toEqual({
      outputs: { temperature_f: 22, forecast: 'Sunny', place: 'New York, New York, US' },
    });
  });

  it('error: expected but outputs came; wrong code; message not contained', () => {
    expect(kase('expects an error, gets outputs').failures).toEqual([
      { kind: 'error', message: expect.stringMatching(/^Expected error tool.error, got outputs/) },
    ]);
    const wrong = kase('wrong error code and message');
    expect(wrong.actual).toMatchObject({ error: { code: 'tool.error' } });
    expect(wrong.failures.map((f) => f.message)).toEqual([
      expect.stringMatching(/^Expected error upstream.error, got tool.error: The National Weather Service/),
      expect.stringMatching(/^Expected the error message to contain "rain", got "The National/),
    ]);
  });

  it('calls: compared as a multiset, query order and encoding aside', () => {
    expect(kase('wrong calls').failures).toEqual([
      {
        kind: 'calls',
        message: expect.stringContaining(
          'not made: GET /points/40.7128,-74.006; not expected: GET /points/40.7143,-74.006, ' +
            'GET /gridpoints/OKX/33,35/forecast',
        ),
      },
    ]);
  });

  it('unrecorded: a call no recording answers fails the case, whatever the tool made of the 404', () => {
    const c = kase('a city nobody recorded');
    expect(c.calls).toEqual([
      {
        method: 'GET',
        path: '/v1/search?name=Omaha&count=5&format=json&language=en',
        matched: null,
      },
    ]);
    expect(c.failures.map((f) => f.kind)).toEqual(['unrecorded', 'error']);
    expect(c.actual).toMatchObject({ error: { code: 'upstream.error' } });
  });

  it('setup: a version the tool does not have', () => {
    expect(kase('no such version').failures).toEqual([
      { kind: 'setup', message: 'lookup_weather_by_city has no version 7 (it has 1, 2).' },
    ]);
  });

  it('each invocation carries the engine report, with a fresh cache per case', () => {
    // Same request as the case before it, still a miss: cases never share a cache.
    expect(kase('right').report!.steps.map((s) => s.cache)).toEqual(['miss', 'miss', 'off']);
    expect(kase('wrong calls').report!.steps.map((s) => s.cache)).toEqual(['miss', 'miss', 'off']);
  });

  it('formats a readable summary with the position of each failing case', () => {
    const text = formatSculptTestRun(run);
    expect(text).toContain('✗ test/testing/fixtures/wrong-expectations.test.yaml (lookup_weather_by_city)');
    expect(text).toContain('  ✓ right [v2]');
    expect(text).toMatch(/✗ wrong calls \[v2\] \(\d+ ms\)\n {6}at .*\/wrong-expectations.test.yaml:26:5/);
    expect(text).toContain('1 file(s), 7 case(s): 1 passed, 6 failed');
  });
});

describe('files that cannot run', () => {
  it('an unknown tool is a file error, and no case runs', async () => {
    const run = await runSculptTests([`${FIXTURES}/unknown-tool.test.yaml`]);
    expect(run.passed).toBe(false);
    expect(run.files[0]!.cases).toEqual([]);
    expect(run.files[0]!.errors.map((e) => e.message)).toEqual([
      expect.stringMatching(/^There is no tool 'no_such_tool' in .*sculpts\/weather\.$/),
    ]);
  });

  it('schema problems are reported with file:line:col, all at once', async () => {
    const file = await write(
      'bad/schema.test.yaml',
      [
        'tool: lookup_weather_by_city',
        'recordings: []',
        'cases:',
        '  - name: both',
        '    expect: { outputs: {}, error: tool.error }',
        '  - name: typo',
        '    inptus: {}',
        '    expect: { error: tool.error }',
        '  - name: bad call',
        '    expect: { error: tool.error }',
        '    calls: [get /x]',
        '',
      ].join('\n'),
    );
    const { test, errors } = await loadSculptTestFile(file);
    expect(test).toBeUndefined();
    expect(errors.map((e) => e.format().replace(`${file}:`, ''))).toEqual([
      "5:13 load.schema 'cases.0.expect' must have either outputs, or error (and optionally message).",
      "7:5 load.schema Unknown property 'inptus' in 'cases.1'.",
      `11:13 load.schema 'cases.2.calls.0' must match pattern "^[A-Z]+ /".`,
    ]);
  });

  it('a YAML error, and a file with no sculpt folder at or above it', async () => {
    const dup = await write('yaml/dup.test.yaml', 'tool: a\ntool: b\nrecordings: []\ncases: []\n');
    expect((await loadSculptTestFile(dup)).errors.map((e) => e.code)).toEqual(['load.yaml']);
    const lonely = await write(
      'lonely/x.test.yaml',
      'tool: lookup_weather_by_city\nrecordings: []\ncases:\n' +
        '  - { name: a, expect: { error: tool.error } }\n',
    );
    const run = await runSculptTests([lonely]);
    expect(run.files[0]!.errors.map((e) => e.message)).toEqual([expect.stringMatching(/^No sculpt folder/)]);
  });
});

describe('finding files and folders', () => {
  it('finds test files below folders, in name order, and the sculpt folder upward', async () => {
    const found = (await findSculptTestFiles([FIXTURES, 'sculpts'])).map((f) => path.relative('.', f));
    expect(found.slice(0, 2)).toEqual([
      'test/testing/fixtures/unknown-tool.test.yaml',
      'test/testing/fixtures/wrong-expectations.test.yaml',
    ]);
    expect(found).toContain('sculpts/weather/lookup_weather_by_city.test.yaml');
    expect(found.every((f) => f.endsWith('.test.yaml'))).toBe(true);
    expect(await findSculptsFolder('sculpts/weather/lookup_weather_by_city.test.yaml')).toBe(
      path.resolve('sculpts/weather'),
    );
    expect(await findSculptsFolder('test/cases/tools/shop/list_open_order_products.test.yaml')).toBe(
      path.resolve('test/cases/tools/shop'),
    );
  });
});

describe('pointing backends at a replay server', () => {
  it('rebaseUrl keeps the base path and drops the original origin', () => {
    expect(rebaseUrl('https://petstore.swagger.io/v2/', 'http://127.0.0.1:9091')).toBe(
      'http://127.0.0.1:9091/v2',
    );
    expect(rebaseUrl('https://api.weather.gov', 'http://127.0.0.1:9091/')).toBe('http://127.0.0.1:9091');
  });

  it('rebaseTools rebases copies and leaves the compiled tools as they were', async () => {
    const tools = await compileSculpts('sculpts/weather', {});
    const rebased = rebaseTools(tools, 'http://127.0.0.1:1234');
    const bases = (ts: typeof tools) =>
      [...new Set(ts.flatMap((t) => t.steps.map((s) => s.backend.baseUrl)))].sort();
    expect(bases(rebased)).toEqual(['http://127.0.0.1:1234']);
    expect(bases(tools)).toEqual(['https://api.weather.gov', 'https://geocoding-api.open-meteo.com']);
    expect(rebased[0]!.steps.every((s) => s.backend.allowPrivate)).toBe(true);
    // One copy per backend, shared by the steps that call it.
    const nws = rebased.flatMap((t) => t.steps).filter((s) => s.backend.name === 'nws');
    expect(new Set(nws.map((s) => s.backend)).size).toBe(1);
  });

  it('replayEnv names each backend variable, keeping base paths', async () => {
    expect(await replayEnv('sculpts/weather', 'http://127.0.0.1:9091')).toEqual({
      NWS_BASE_URL: 'http://127.0.0.1:9091',
      GEOCODER_BASE_URL: 'http://127.0.0.1:9091',
    });
    expect(await replayEnv('sculpts/petstore', 'http://127.0.0.1:9091')).toEqual({
      PETSTORE_BASE_URL: 'http://127.0.0.1:9091/v2',
    });
    const dir = path.join(tmp, 'literal');
    await write(
      'literal/backends.yaml',
      'backends:\n  fixed:\n    openapi: x.yaml\n    baseUrl: https://example.com\n',
    );
    await expect(replayEnv(dir, 'http://127.0.0.1:9091')).rejects.toThrow(/backend 'fixed'/);
  });
});
