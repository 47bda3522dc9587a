/**
 * The docs page in a real browser: Playwright driving Debian's Chromium against a
 * gateway serving the samples (the weather backends replayed from their recordings). A person
 * finds a tool by its group, reads it, calls it from the page ("Try it out" → Execute) and reads
 * the answer; the page loads nothing from outside the gateway. A screenshot is kept in
 * test-artifacts/openapi/ (git-ignored).
 */
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { chromiumFor, launchChromium } from '../../support/chromium.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRecordings, startReplayServer } from '../../../src/replay/index.ts';
import { replayEnv } from '../../../src/testing/index.ts';
import { startTestGateway } from '../../support/start-test-gateway.ts';
import { nestedSamples, REPO } from '../a2t-lite/lite-fixtures.ts';

const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/openapi/', import.meta.url));
const WAIT = { timeout: 15_000 };
const hasChromium = chromiumFor('the docs page test');

describe.skipIf(!hasChromium)('the docs page in Chromium', () => {
  let root: string;
  let gateway: Awaited<ReturnType<typeof startTestGateway>>;
  let replay: Awaited<ReturnType<typeof startReplayServer>>;
  let browser: Browser;
  let page: Page;
  const outside: string[] = [];
  const errors: string[] = [];

  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    root = await nestedSamples();
    replay = await startReplayServer(await loadRecordings([path.join(REPO, 'sculpts/weather/recordings')]));
    gateway = await startTestGateway(
      root,
      {
        ...(await replayEnv(path.join(REPO, 'sculpts/weather'), replay.url)),
        PETSTORE_BASE_URL: 'http://127.0.0.1:9/v2',
      },
      { shedLagMs: 0 },
    );
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('request', (request) => {
      if (!request.url().startsWith(gateway.url) && !request.url().startsWith('data:'))
        outside.push(request.url());
    });
    page.on('console', (message) => {
      // The browser logs the tool error called on purpose below; anything else (a CSP refusal…) counts.
      if (message.type() === 'error' && !/status of 422/.test(message.text())) errors.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(error.message));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
    await replay?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('finds a tool, calls it from the page and shows its answer', async () => {
    await page.goto(`${gateway.url}/docs`);
    const weather = page.locator('.opblock-summary-path', { hasText: '/call/lookup_weather_by_city' });
    await weather.waitFor(WAIT);
    // Every tool is there, grouped by its folder.
    for (const tool of [
      'describe_pet',
      'find_pets_by_status',
      'count_pets_in_stock',
      'list_available_pets',
    ]) {
      expect(await page.locator('.opblock-summary-path', { hasText: `/call/${tool}` }).count(), tool).toBe(1);
    }
    // Find it: the filter keeps the groups whose name matches.
    await page.locator('.operation-filter-input').fill('weather');
    await expect
      .poll(() => page.locator('.opblock-summary-path', { hasText: '/call/describe_pet' }).count(), WAIT)
      .toBe(0);
    await weather.click();
    const operation = page.locator('.opblock', { has: weather });
    await operation.locator('.opblock-description-wrapper', { hasText: 'weather forecast' }).waitFor(WAIT);
    // Try it: the request body is editable at once (tryItOutEnabled); send New York.
    const body = operation.locator('textarea.body-param__text');
    await body.waitFor(WAIT);
    await body.fill('{ "city": "New York", "day": "TODAY" }');
    await operation.locator('button.execute').click();
    const answer = operation.locator('.live-responses-table');
    await answer.locator('.response-col_status', { hasText: '200' }).waitFor(WAIT);
    await expect.poll(() => answer.textContent(), WAIT).toContain('"forecast": "Sunny"');
    expect(await answer.textContent()).toContain('"place": "New York, New York, US"');
    await answer.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(ARTIFACTS, 'docs-try-it.png'), fullPage: false });
    expect(gateway.reports.at(-1)).toMatchObject({ tool: 'lookup_weather_by_city', outcome: 'ok' });
  });

  it('shows a tool error as the problem details the gateway answered', async () => {
    const weather = page.locator('.opblock-summary-path', { hasText: '/call/lookup_weather_by_city' });
    const operation = page.locator('.opblock', { has: weather });
    await operation.locator('textarea.body-param__text').fill('{ "city": "London" }');
    await operation.locator('button.execute').click();
    const answer = operation.locator('.live-responses-table');
    await answer.locator('.response-col_status', { hasText: '422' }).waitFor(WAIT);
    await expect.poll(() => answer.textContent(), WAIT).toContain('tool.error');
    await answer.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(ARTIFACTS, 'docs-tool-error.png'), fullPage: false });
  });

  it('loaded nothing from outside the gateway, and raised no error', () => {
    expect(outside).toEqual([]);
    expect(errors).toEqual([]);
  });
});
