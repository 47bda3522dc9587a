/**
 * The Studio's "Try with a model" panel in a real browser (Playwright driving Debian's Chromium),
 * against a copy of the weather sculpts and the loopback word-matching model of the eval tests:
 * a request typed in the page, the model's call as it made it, whether its arguments validate,
 * the run of that call against the recordings with its trace, and "save as scenario", whose
 * file `sculptor eval`'s own loader reads back expecting what the designer typed (not what the
 * model sent). Each screen is checked with axe-core and photographed into test-artifacts/studio/.
 */
import { cp, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { serve } from '@hono/node-server';
import type { Browser, Page } from 'playwright-core';
import { chromiumFor, launchChromium } from '../support/chromium.ts';
import { serveStudio } from './serve-studio.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScenarioFile } from '../../src/eval/scenario-file.ts';
import { openWorkspace, type Workspace } from '../../src/studio/studio-workspace.ts';
import { reportFigures } from '../support/report-figures.ts';
import { startTestModel, type TestModel } from '../support/word-match-model.ts';

/** The first request loads the model client and the recordings: seconds on a loaded machine. */
const POLL = { timeout: 30_000, interval: 100 };
const REPO = fileURLToPath(new URL('../../', import.meta.url));
const ARTIFACTS = path.join(REPO, 'test-artifacts/studio');
const KEY = 'sk-studio-model-key-777';
const hasChromium = chromiumFor('the Studio try-model test');

let dir: string;
let model: TestModel;
let workspace: Workspace;
const servers: Array<ReturnType<typeof serve>> = [];
let browser: Browser;
let page: Page;

async function studio(env: Record<string, string>): Promise<string> {
  const { server, url } = await serveStudio(workspace, { root: true, env });
  servers.push(server);
  return `${url}studio/`;
}

async function accessible(screen: string) {
  await page.addScriptTag({ path: fileURLToPath(import.meta.resolve('axe-core/axe.min.js')) });
  const violations = await page.evaluate(async () => {
    const { axe } = globalThis as unknown as {
      axe: { run(): Promise<{ violations: Array<{ id: string; impact: string; nodes: unknown[] }> }> };
    };
    return (await axe.run()).violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
  });
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  reportFigures(
    `[studio] ${screen}: axe found ${violations.length} issue(s), ${serious.length} serious or critical`,
  );
  expect(serious, screen).toEqual([]);
}

async function openWeather(url: string) {
  await page.goto(`${url}#/tools/lookup_weather_by_city`);
  await page.getByRole('tab', { name: 'Try with a model' }).click();
  await page.getByRole('heading', { name: 'Try with a model' }).waitFor(POLL);
}

describe.skipIf(!hasChromium)('Try with a model, in Chromium', () => {
  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    model = await startTestModel({ key: KEY });
    dir = await mkdtemp(path.join(tmpdir(), 'sculptor-try-'));
    await cp('sculpts/weather', path.join(dir, 'weather'), { recursive: true });
    workspace = await openWorkspace({ dir, env: { ...process.env } });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    for (const s of servers) s.close();
    await model?.close();
    await workspace?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('says what to set when no model is configured', async () => {
    await openWeather(await studio({}));
    await expect
      .poll(() => page.locator('#try-unconfigured').textContent(), POLL)
      .toContain('SCULPTOR_EVAL_URL');
    expect(await page.locator('#try-form').count()).toBe(0);
  }, 60_000);

  it('shows the model’s call, its validity, and the run with its trace; the key never reaches the page', async () => {
    const url = await studio({
      SCULPTOR_EVAL_URL: model.url,
      SCULPTOR_EVAL_MODEL: 'word-match',
      SCULPTOR_EVAL_API_KEY: KEY,
    });
    await openWeather(url);
    await expect
      .poll(() => page.locator('#try-model').textContent(), POLL)
      .toContain(`word-match at ${model.url}`);
    await page.getByLabel("Request, in a user's words").fill('What is the forecast for New York tomorrow?');
    await page.getByRole('button', { name: 'Ask the model' }).click();
    await expect
      .poll(() => page.locator('.try-call h3').first().textContent(), POLL)
      .toContain('The model called lookup_weather_by_city');
    expect(JSON.parse((await page.locator('.try-arguments').first().textContent()) ?? '')).toEqual({
      city: 'New York',
      day: 'TOMORROW',
    });
    expect(await page.locator('.try-validity').first().textContent()).toContain(
      'validate against the schema',
    );
    // The recorded forecast for Wednesday, through the three steps of the chain.
    await expect
      .poll(() => page.locator('#try-run-output').textContent(), POLL)
      .toContain('"temperature_f": 38');
    expect(await page.locator('#try-model .waterfall tr[data-step]').count()).toBeGreaterThanOrEqual(3);
    expect(model.authorizations.at(-1)).toBe(`Bearer ${KEY}`);
    expect(await page.content()).not.toContain(KEY);
    await page.locator('#try-model').screenshot({ path: path.join(ARTIFACTS, 'try-model-call.png') });
    await accessible('try with a model');
  }, 60_000);

  it('shows invalid arguments as the model wrote them', async () => {
    model.mode = 'bad-arguments';
    try {
      await page.getByLabel("Request, in a user's words").fill('What is the forecast for Omaha?');
      await page.getByRole('button', { name: 'Ask the model' }).click();
      await expect
        .poll(() => page.locator('.try-arguments').first().textContent(), POLL)
        .toBe('{"city": New York');
      expect(await page.locator('.try-validity').first().textContent()).toMatch(/do not validate: not JSON/);
      expect(await page.locator('#try-run-output').count()).toBe(0);
    } finally {
      model.mode = 'normal';
    }
  }, 60_000);

  it('shows an endpoint that refuses as an error, not as a result', async () => {
    model.mode = '401';
    try {
      await page.getByRole('button', { name: 'Ask the model' }).click();
      await expect
        .poll(() => page.locator('#try-error').textContent(), POLL)
        .toContain('eval.endpoint_refused');
      expect(await page.locator('#try-result').count()).toBe(0);
    } finally {
      model.mode = 'normal';
    }
  }, 60_000);

  it('saves the exchange as a scenario expecting what the designer typed, which sculptor eval reads', async () => {
    await page.getByLabel("Request, in a user's words").fill('Will it be sunny in New York tomorrow?');
    await page.getByRole('button', { name: 'Ask the model' }).click();
    await page.locator('#save-scenario').waitFor(POLL);
    await page.getByLabel('city').last().fill('New York');
    await page.locator('#expect-day').selectOption('TOMORROW');
    await page.getByLabel('Scenario name').fill('sunny tomorrow');
    await page.getByRole('button', { name: 'Save as scenario' }).click();
    await expect
      .poll(() => page.locator('#try-saved').textContent(), POLL)
      .toContain('Saved "sunny tomorrow"');
    const file = path.join(dir, 'weather', 'lookup_weather_by_city.eval.yaml');
    const text = await readFile(file, 'utf8');
    // The folder's own scenarios and comments are kept; the new one is added at the end.
    expect(text).toContain('# What a user asks about the weather');
    const { file: read, errors } = await loadScenarioFile(file);
    expect(errors).toEqual([]);
    const saved = read!.scenarios.at(-1)!;
    expect(saved.name).toBe('sunny tomorrow');
    expect(saved.turns[0]!.request).toBe('Will it be sunny in New York tomorrow?');
    expect(saved.turns[0]!.expect).toEqual([
      {
        calls: [
          {
            tool: 'lookup_weather_by_city',
            arguments: {
              city: { kind: 'literal', value: 'New York' },
              day: { kind: 'literal', value: 'TOMORROW' },
            },
            optional: [],
          },
        ],
      },
    ]);
    await page.locator('#try-model').screenshot({ path: path.join(ARTIFACTS, 'try-model-saved.png') });
    await accessible('saved as scenario');
  }, 60_000);
});
