import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestModel, type TestModel } from '../support/word-match-model.ts';
import { runCli } from './run-cli.ts';

const WORDS = 'test/eval/fixtures/weather-words.eval.yaml';
let tmp: string;
let model: TestModel;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'cli-eval-'));
  model = await startTestModel({ key: 'sk-cli-key-4242' });
});
afterAll(async () => {
  await model.close();
  await rm(tmp, { recursive: true, force: true });
});

const env = () => ({
  SCULPTOR_EVAL_URL: model.url,
  SCULPTOR_EVAL_MODEL: 'word-match',
  SCULPTOR_EVAL_API_KEY: 'sk-cli-key-4242',
});

// Each case starts the CLI (a Node process compiling the sculpts): seconds each on a loaded machine.
describe('sculptor eval', { timeout: 90_000 }, () => {
  it('prints the table and writes the JSON report', async () => {
    model.mode = 'normal';
    const json = path.join(tmp, 'report.json');
    const run = await runCli(
      ['eval', WORDS, '--tools', 'sculpts/weather', '-n', '2', '--temperature', '0', '--json', json],
      {
        env: env(),
        timeoutMs: 60_000,
      },
    );
    expect(run.stderr).toContain('sculpts/weather: 8/8 small talk (run 2)');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /sculptor eval: word-match at http:\/\/127\.0\.0\.1:\d+\/v1; 2 run\(s\) per scenario at temperature 0/,
    );
    expect(run.stdout).toMatch(/sculpts\/weather \(mcp\): 1 tool\(s\) offered/);
    expect(run.stdout).toMatch(/\n\s+all\s+10\/10 100%\s+8\/8 100%\s+10\/10 100%/);
    const report = JSON.parse(await readFile(json, 'utf8'));
    expect(report).toMatchObject({
      format: 1,
      repeat: 2,
      catalogs: [{ label: 'sculpts/weather', tools: 1 }],
    });
    expect(run.stdout + (await readFile(json, 'utf8'))).not.toContain('sk-cli-key-4242');
  });

  it('prints only JSON with --json -', async () => {
    model.mode = 'normal';
    const run = await runCli(
      ['eval', WORDS, '--tools', 'sculpts/weather', '-n', '1', '--run', 'none', '--json', '-'],
      {
        env: env(),
        timeoutMs: 60_000,
      },
    );
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ run: 'none', catalogs: [{ face: 'mcp' }] });
  });

  it('exits 1 under --fail-under, naming the catalog and its share', async () => {
    model.mode = 'bad-arguments';
    try {
      const run = await runCli(
        ['eval', WORDS, '--tools', 'sculpts/weather', '-n', '1', '--fail-under', '0.9'],
        {
          env: env(),
          timeoutMs: 60_000,
        },
      );
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/sculpts\/weather got 20% of turns right, under --fail-under 0\.9/);
    } finally {
      model.mode = 'normal';
    }
  });

  it('exits 1 with the code and what to do when the endpoint is down or not configured, printing no score', async () => {
    const down = await runCli(['eval', WORDS, '--tools', 'sculpts/weather', '--retries', '0'], {
      env: { ...env(), SCULPTOR_EVAL_URL: 'http://127.0.0.1:9/v1' },
      timeoutMs: 30_000,
    });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(
      /sculptor eval: eval\.endpoint_unreachable: Cannot reach the model endpoint at http:\/\/127\.0\.0\.1:9\/v1\. Start the server/,
    );
    expect(down.stdout).toBe('');
    const unset = await runCli(['eval', WORDS, '--tools', 'sculpts/weather'], { timeoutMs: 30_000 });
    expect(unset.code).toBe(1);
    expect(unset.stderr).toMatch(
      /eval\.config: No model to evaluate with: set SCULPTOR_EVAL_URL .* and SCULPTOR_EVAL_MODEL/,
    );
  });

  it('reports scenario problems at file:line:col before asking anything', async () => {
    const before = model.requests.length;
    const run = await runCli(['eval', WORDS, '--tools', 'sculpts/petstore'], {
      env: env(),
      timeoutMs: 30_000,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /weather-words\.eval\.yaml:4:5 eval\.scenario 'forecast' expects lookup_weather_by_city/,
    );
    expect(run.stderr).toContain('no model was asked anything');
    expect(model.requests.length).toBe(before);
  });

  it('refuses bad options as usage errors', async () => {
    const hot = await runCli(['eval', WORDS, '--temperature', 'hot'], { env: env() });
    expect(hot.code).toBe(2);
    expect(hot.stderr).toContain('--temperature must be a number from 0 to 2');
  });
});

describe('sculptor init --all', { timeout: 90_000 }, () => {
  it('scaffolds every operation of a document, one tool each', async () => {
    const out = path.join(tmp, 'geocoder-1to1');
    const run = await runCli(
      ['init', '--openapi', 'sculpts/weather/openapi/open-meteo-geocoding.yaml', '--all', '--out', out],
      { timeoutMs: 30_000 },
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('sculptor init --all: 1 tool(s) written');
    expect((await readdir(out)).filter((f) => f.endsWith('.sculpt.yaml'))).toEqual(['search.v1.sculpt.yaml']);
  });

  it('wants --operation or --all, not both', async () => {
    const both = await runCli([
      'init',
      '--openapi',
      'sculpts/weather/openapi/open-meteo-geocoding.yaml',
      '--operation',
      'search',
      '--all',
    ]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('Give either --operation ID (one operation) or --all (every operation).');
  });
});
