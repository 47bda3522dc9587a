/**
 * Sculptor Studio in a real browser (issue #17): Playwright driving Debian's Chromium against
 * the Studio serving a copy of the weather sculpts — find the flagship tool, run it against its
 * recordings, read the waterfall (three steps; two cache hits on a second run), edit the output
 * expression in the playground, save the run as a test that `sculptor test` then passes — with
 * an accessibility check (axe-core) of each screen and a screenshot of each, kept in
 * test-artifacts/studio/ (git-ignored).
 */
import { execFileSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStudioApp } from '../../src/studio/studio-app.ts';
import { openWorkspace, type Workspace } from '../../src/studio/studio-workspace.ts';
import { runSculptTests } from '../../src/testing/index.ts';

const CHROMIUM = '/usr/bin/chromium';
/** The page answers in milliseconds; a loaded CI machine may take seconds. */
const POLL = { timeout: 10_000, interval: 100 };
const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/studio/', import.meta.url));
const hasChromium = (() => {
  try {
    execFileSync(CHROMIUM, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (!hasChromium && process.env.CI)
  throw new Error('the Studio test needs Debian chromium (.ci/run installs it)');
if (!hasChromium) console.warn('[studio] skipped: apt-get install chromium');

let dir: string;
let workspace: Workspace;
let server: ReturnType<typeof serve>;
let url: string;
let browser: Browser;
let page: Page;

async function shot(name: string) {
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** axe-core in the page: no serious or critical violation. */
async function accessible(screen: string) {
  await page.addScriptTag({ path: fileURLToPath(import.meta.resolve('axe-core/axe.min.js')) });
  const violations = await page.evaluate(async () => {
    const { axe } = globalThis as unknown as {
      axe: { run(): Promise<{ violations: Array<{ id: string; impact: string; nodes: unknown[] }> }> };
    };
    const result = await axe.run();
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
  });
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  console.info(
    `[studio] ${screen}: axe found ${violations.length} issue(s), ${serious.length} serious or critical`,
  );
  expect(serious, screen).toEqual([]);
}

describe.skipIf(!hasChromium)('Sculptor Studio in Chromium', () => {
  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    dir = await mkdtemp(path.join(tmpdir(), 'sculptor-studio-'));
    await cp('sculpts/weather', path.join(dir, 'weather'), { recursive: true });
    workspace = await openWorkspace({ dir });
    await new Promise<void>((resolve) => {
      server = serve(
        { fetch: createStudioApp(workspace, { root: true }).fetch, hostname: '127.0.0.1', port: 0 },
        () => resolve(),
      );
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/studio/`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    server?.close();
    await workspace?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('lists the tools and the folder’s findings; search finds the weather tool', async () => {
    await page.goto(url);
    await page.getByLabel('Search tools').fill('weather');
    const tool = page.getByRole('button', { name: /lookup_weather_by_city/ });
    await expect.poll(() => tool.count(), POLL).toBe(1);
    await expect.poll(() => page.getByText('No errors or warnings.').count(), POLL).toBe(1);
    await shot('1-catalog');
    await accessible('catalog');
    await tool.click();
    await page.getByRole('heading', { name: 'What the LLM sees' }).waitFor();
    for (const consumer of ['A2T', 'openai', 'anthropic', 'gemini', 'agent-tool']) {
      await expect
        .poll(() => page.locator(`.view[data-consumer="${consumer}"] pre`).count(), {
          ...POLL,
          message: consumer,
        })
        .toBe(1);
    }
    await shot('2-what-the-llm-sees');
    await accessible('tool');
  }, 30_000);

  it('runs against the recordings: three steps, then two cache hits on a second run', async () => {
    await page.getByLabel(/^city/).fill('New York');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.locator('#run-output').waitFor();
    expect(JSON.parse((await page.locator('#run-output').textContent()) ?? '{}')).toEqual({
      temperature_f: 22,
      forecast: 'Sunny',
      place: 'New York, New York, US',
    });
    await expect.poll(() => page.locator('.waterfall tbody tr').count(), POLL).toBe(3);
    expect(await page.locator('.waterfall td.cache').allTextContents()).toEqual(['miss', 'miss', 'off']);
    await shot('3-run-and-trace');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await expect
      .poll(() => page.locator('.waterfall td.cache').allTextContents(), POLL)
      .toEqual(['hit', 'hit', 'off']);
    await accessible('run');
  }, 30_000);

  it('recomputes an edited output expression live against the last run', async () => {
    const editor = page.getByLabel('JSONata');
    await editor.fill('{ "city": $inputs.city, "warmer": $steps.forecast[0].temperature + 1 }');
    await expect
      .poll(async () => (await page.locator('#playground-value').textContent()) ?? '', POLL)
      .toMatch(/"city": "New York",\s+"warmer": 23/);
    await editor.fill('{ "broken": $inputs.city & }');
    await expect.poll(() => page.locator('#playground-error').count(), POLL).toBe(1);
    await shot('4-playground');
  }, 30_000);

  it('saves the run as a test that sculptor test passes', async () => {
    await page.getByRole('button', { name: 'Save this run as a test' }).click();
    await page.locator('#saved.ok').waitFor();
    await shot('5-saved');
    const testFile = path.join(dir, 'weather', 'lookup_weather_by_city.test.yaml');
    expect(await readFile(testFile, 'utf8')).toContain('lookup_weather_by_city: {"city":"New York"}');
    const run = await runSculptTests([testFile]);
    const saved = run.files[0]!.cases.find((c) => c.name.includes('{"city":"New York"}'));
    expect(saved?.passed, JSON.stringify(saved?.failures)).toBe(true);
    expect(run.passed).toBe(true);
  }, 30_000);
});
