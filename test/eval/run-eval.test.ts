import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initAll } from '../../src/designer/init-all.ts';
import type { EvalReport } from '../../src/eval/format-report.ts';
import { formatReport } from '../../src/eval/format-report.ts';
import type { EndpointConfig } from '../../src/eval/endpoint-config.ts';
import { type EvalOptions, runEval } from '../../src/eval/run-eval.ts';
import { startTestModel, type TestModel } from '../support/word-match-model.ts';

const WEATHER = 'sculpts/weather';
const WORDS = 'test/eval/fixtures/weather-words.eval.yaml';
const DESCRIPTION =
  /Look up the (current )?weather forecast for a city in the United States[^\n]*\n[^\n]*\n?[^\n]*US city\./;

let tmp: string;
let model: TestModel;
/** The weather folder with a description that says nothing of forecasts or temperatures. */
let vague: string;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'eval-run-'));
  model = await startTestModel();
  vague = path.join(tmp, 'vague');
  await cp(WEATHER, vague, { recursive: true });
  for (const v of [1, 2]) {
    const file = path.join(vague, `lookup_weather_by_city.v${v}.sculpt.yaml`);
    const text = await readFile(file, 'utf8');
    expect(text).toMatch(DESCRIPTION);
    await writeFile(file, text.replace(DESCRIPTION, 'Looks up a city.'));
  }
});
afterAll(async () => {
  await model.close();
  await rm(tmp, { recursive: true, force: true });
});

const endpoint = (): EndpointConfig => ({
  baseUrl: model.url,
  model: 'word-match',
  timeoutMs: 10_000,
  retries: 0,
});
const evaluate = (options: Partial<EvalOptions>) =>
  runEval({
    scenarios: [WORDS],
    tools: WEATHER,
    face: 'mcp',
    run: 'recordings',
    endpoint: endpoint(),
    repeat: 3,
    temperature: 0,
    maxCalls: 4,
    env: {},
    ...options,
  });
const scenario = (report: EvalReport, catalog: number, name: string) =>
  report.catalogs[catalog]!.scenarios.find((s) => s.scenario === name)!;

describe('sculptor eval, against a model whose choices follow the descriptions', () => {
  let report: EvalReport;
  beforeAll(async () => {
    model.mode = 'normal';
    report = await evaluate({ against: vague });
  }, 60_000);

  it('scores the weather folder right on every turn, the call run against its recordings', () => {
    const good = report.catalogs[0]!;
    expect(good.tools).toBe(1);
    expect(good.overall.toolChoice).toEqual({ hits: 15, of: 15, rate: 1 });
    expect(good.overall.argumentCorrectness.rate).toBe(1);
    expect(good.overall.argumentValidity.rate).toBe(1);
    expect(scenario(report, 0, 'tomorrow as a follow-up').metrics.callsPerTask).toMatchObject({ mean: 2 });
    expect(scenario(report, 0, 'small talk').metrics.callsPerTask).toMatchObject({ mean: 0 });
    // The recorded New York forecast reached the model as the tool's result.
    const toolResults = model.requests.flatMap((r) =>
      (r.messages as Array<{ role: string; content: string }>).filter((m) => m.role === 'tool'),
    );
    expect(toolResults.some((m) => m.content.includes('"temperature_f":22'))).toBe(true);
  });

  it('scores the vague description measurably worse, and says which differences matter', () => {
    const worse = report.catalogs[1]!;
    expect(worse.overall.toolChoice.rate).toBeLessThan(1);
    expect(scenario(report, 1, 'forecast').metrics.toolChoice.rate).toBe(0);
    expect(scenario(report, 1, 'temperature').metrics.toolChoice.rate).toBe(0);
    expect(scenario(report, 1, 'tomorrow as a follow-up').metrics.toolChoice.rate).toBe(1);
    const overall = Object.fromEntries(report.comparison!.overall.map((d) => [d.metric, d]));
    expect(overall.toolChoice).toMatchObject({ a: 1, b: 9 / 15, meaningful: true, better: 'a' });
    expect(overall.argumentCorrectness).toMatchObject({ meaningful: true, better: 'a' });
    // One scenario alone, 3/3 against 0/3, could still be chance (p = 0.1): not flagged.
    const forecast = report.comparison!.scenarios.find((s) => s.scenario === 'forecast')!;
    expect(forecast.differences.find((d) => d.metric === 'toolChoice')).toMatchObject({
      a: 1,
      b: 0,
      meaningful: false,
      basis: 'Fisher exact p = 0.100 (3/3 against 0/3)',
    });
  });

  it('shows each failure with the model’s own answer', () => {
    const failures = scenario(report, 1, 'forecast').failures;
    expect(failures).toHaveLength(3);
    expect(failures[0]).toMatchObject({
      turn: 1,
      request: 'What is the forecast for New York?',
      calls: [],
      answer: 'I can answer that without a tool.',
    });
    expect(failures[0]!.problems.join(' ')).toMatch(
      /Expected a call of lookup_weather_by_city; the model called no tool/,
    );
    const text = formatReport(report);
    expect(text).toMatch(/Compared: A = sculpts\/weather, B = .*vague/);
    expect(text).toMatch(/tool choice\s+100%\s+60%\s+−40 pts\s+◆ A better/);
    expect(text).toContain('answered: "I can answer that without a tool."');
  });

  it('records the setting, the sizes offered and the tokens the endpoint reported', () => {
    expect(report).toMatchObject({
      format: 1,
      model: 'word-match',
      repeat: 3,
      temperature: 0,
      run: 'recordings',
    });
    expect(report.endpoint).toBe(model.url);
    expect(report.catalogs[0]!.offeredCharacters).toBeGreaterThan(300);
    expect(report.catalogs[0]!.overall.promptTokens!.mean).toBeGreaterThan(0);
    expect(report.catalogs[0]!.overall.requestLatencyMs!.p95).toBeGreaterThan(0);
  });
});

describe('a sculpted folder against the same API scaffolded one tool per operation', () => {
  it('offers dozens of tools where the sculpt offers one, and scores worse', async () => {
    const baseline = path.join(tmp, 'one-to-one');
    for (const doc of ['api.weather.gov.openapi.json', 'open-meteo-geocoding.yaml']) {
      const result = await initAll({ openapi: path.join(WEATHER, 'openapi', doc), out: baseline });
      expect(result.failed).toEqual([]);
    }
    model.mode = 'normal';
    const report = await evaluate({
      scenarios: [path.join(WEATHER, 'lookup_weather_by_city.eval.yaml')],
      against: baseline,
      recordings: path.join(WEATHER, 'recordings'),
      repeat: 2,
    });
    const [sculpted, flat] = report.catalogs;
    expect(sculpted!.tools).toBe(1);
    expect(flat!.tools).toBe(58);
    expect(flat!.offeredCharacters).toBeGreaterThan(10 * sculpted!.offeredCharacters);
    expect(sculpted!.overall.argumentCorrectness.rate).toBe(1);
    expect(flat!.overall.argumentCorrectness.rate!).toBeLessThan(sculpted!.overall.argumentCorrectness.rate!);
    const tokens = report.comparison!.overall.find((d) => d.metric === 'promptTokens')!;
    expect(tokens).toMatchObject({ meaningful: true, better: 'a' });
    expect(report.placeholderCredentials).toEqual(['WEATHERGOV_API_KEY']);
  }, 90_000);
});

describe('honest by construction', () => {
  it('refuses a scenario a catalog cannot answer before asking the model anything', async () => {
    const before = model.requests.length;
    const err = await evaluate({ scenarios: [WORDS], tools: 'sculpts/petstore', run: 'none' }).catch(
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ name: 'SculptLoadError' });
    const errors = (err as { errors: Array<{ code: string; message: string; at: { line: number } }> }).errors;
    // Every turn but small talk's (no call is right in any catalog).
    expect(errors.map((e) => e.code)).toEqual(Array(4).fill('eval.scenario'));
    expect(errors[0]!.message).toMatch(
      /expects lookup_weather_by_city, which sculpts\/petstore does not offer/,
    );
    expect(errors[0]!.at.line).toBe(4);
    expect(model.requests.length).toBe(before);
  });

  it('refuses to run calls against recordings that do not exist, saying what to pass', async () => {
    const bare = path.join(tmp, 'bare');
    await cp(WEATHER, bare, { recursive: true, filter: (src) => !src.includes('recordings') });
    const err = await evaluate({ tools: bare }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'eval.config' });
    expect((err as Error).message).toMatch(/--recordings DIR, --run live .* or --run none/);
  });

  it('stops on an endpoint that refuses, with its code, instead of scoring zero', async () => {
    model.mode = '401';
    try {
      await expect(evaluate({})).rejects.toMatchObject({ code: 'eval.endpoint_refused' });
    } finally {
      model.mode = 'normal';
    }
  });

  it('counts arguments that are not JSON as invalid and shows them as the model wrote them', async () => {
    model.mode = 'bad-arguments';
    try {
      const report = await evaluate({ repeat: 1 });
      const forecast = scenario(report, 0, 'forecast');
      expect(forecast.metrics.argumentValidity).toEqual({ hits: 0, of: 1, rate: 0 });
      expect(forecast.metrics.toolChoice.rate).toBe(1);
      expect(forecast.metrics.argumentCorrectness.rate).toBe(0);
      expect(forecast.failures[0]!.calls[0]).toMatchObject({
        tool: 'lookup_weather_by_city',
        rawArguments: '{"city": New York',
        valid: false,
        outcome: { error: { code: 'input.invalid' } },
      });
    } finally {
      model.mode = 'normal';
    }
  });

  it('offers the OpenAI export as is: strict schemas, optional inputs sent as null and read as absent', async () => {
    const report = await evaluate({ face: 'openai', repeat: 1 });
    const offered = model.requests.at(-1)!.tools as Array<{
      function: { strict?: boolean; parameters: { required: string[] } };
    }>;
    expect(offered[0]!.function.strict).toBe(true);
    expect(offered[0]!.function.parameters.required).toEqual(['city', 'day']);
    const sent = model.requests.flatMap(
      (r) => r.messages as Array<{ role: string; tool_calls?: Array<{ function: { arguments: string } }> }>,
    );
    expect(sent.some((m) => m.tool_calls?.[0]?.function.arguments === '{"city":"New York","day":null}')).toBe(
      true,
    );
    expect(report.catalogs[0]!.face).toBe('openai');
    expect(report.catalogs[0]!.overall.argumentCorrectness.rate).toBe(1);
    expect(report.catalogs[0]!.overall.argumentValidity.rate).toBe(1);
  });

  it('keeps every backend secret and the endpoint key out of the prompts and the report', async () => {
    const keyed = path.join(tmp, 'keyed');
    await cp(WEATHER, keyed, { recursive: true });
    const backends = path.join(keyed, 'backends.yaml');
    await writeFile(
      backends,
      (await readFile(backends, 'utf8')).replace(
        '    openapi: openapi/open-meteo-geocoding.yaml\n',
        '    openapi: openapi/open-meteo-geocoding.yaml\n    auth:\n      - { in: header, name: X-Api-Key, value: "${GEO_KEY}" }\n',
      ),
    );
    const scenarios = path.join(tmp, 'leaky.eval.yaml');
    await writeFile(
      scenarios,
      'scenarios:\n  - name: pasted a key\n    request: "Using key geo-secret-5678 and sk-endpoint-0000, what is the forecast for New York?"\n    expect: { tool: lookup_weather_by_city, arguments: { city: New York }, optional: [day] }\n',
    );
    const start = model.requests.length;
    const report = await evaluate({
      scenarios: [scenarios],
      tools: keyed,
      repeat: 1,
      env: { GEO_KEY: 'geo-secret-5678' },
      endpoint: { ...endpoint(), apiKey: 'sk-endpoint-0000' },
    });
    const sent = JSON.stringify(model.requests.slice(start));
    expect(sent).toContain('Using key ••• and •••');
    for (const secret of ['geo-secret-5678', 'sk-endpoint-0000']) {
      expect(sent).not.toContain(secret);
      expect(JSON.stringify(report)).not.toContain(secret);
      expect(formatReport(report)).not.toContain(secret);
    }
    expect(report.catalogs[0]!.overall.argumentCorrectness.rate).toBe(1);
  });
});
