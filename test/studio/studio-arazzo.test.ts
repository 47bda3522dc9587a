/**
 * The Studio on Arazzo workflows (test/arazzo/fixtures/shop, against its recordings): each step
 * execution is a row of the trace — a called workflow's row, then its own steps, indented and
 * named by their path; a retried step once per attempt — and the projection row reads the
 * workflow's outputs. The same trace in Chromium's waterfall when Debian's chromium is installed.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { serve } from '@hono/node-server';
import type { Browser, Page } from 'playwright-core';
import { chromiumFor, launchChromium } from '../support/chromium.ts';
import { serveStudio } from './serve-studio.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWorkspace, type Workspace } from '../../src/studio/studio-workspace.ts';

const POLL = { timeout: 10_000, interval: 100 };
const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/studio', import.meta.url));
const hasChromium = chromiumFor('the Studio workflow test');

let workspace: Workspace;
beforeAll(async () => {
  workspace = await openWorkspace({ dir: path.resolve('test/arazzo/fixtures/shop'), env: {} });
});
afterAll(async () => {
  await workspace?.close();
});

const rows = (run: Awaited<ReturnType<Workspace['run']>>) =>
  run.steps.map((s) => ({
    id: s.id,
    depth: s.depth,
    outcome: s.outcome,
    ...(s.workflow ? { workflow: s.workflow } : {}),
    ...(s.request ? { request: `${s.request.method} ${new URL(s.request.url).pathname}` } : {}),
    ...(s.status !== undefined ? { status: s.status } : {}),
  }));

describe('the Studio trace of a workflow', () => {
  it('a nested workflow: its row, then its steps by path, each with its request; the projection of $outputs', async () => {
    const run = await workspace.run('order_and_check', undefined, { quantity: 2 }, 'recordings');
    expect(run.outputs).toEqual({ order_id: 'ord-41', name: 'Rex' });
    expect(rows(run)).toEqual([
      { id: 'ordering', depth: 0, outcome: 'ok', workflow: 'order-available-pet' },
      { id: 'ordering/find', depth: 1, outcome: 'ok', request: 'GET /pets', status: 200 },
      { id: 'ordering/order', depth: 1, outcome: 'ok', request: 'POST /orders', status: 201 },
      { id: 'pet', depth: 0, outcome: 'ok', request: 'GET /pets/1', status: 200 },
    ]);
    // The called workflow's row spans its steps: they start where it starts.
    const [ordering, find, order, pet] = run.steps;
    expect(find!.startMs).toBe(ordering!.startMs);
    expect(order!.startMs).toBeCloseTo(find!.startMs + find!.durationMs, 6);
    expect(pet!.startMs).toBeCloseTo(order!.startMs + order!.durationMs, 6);
    expect(run.projection).toEqual({ value: { order_id: 'ord-41', name: 'Rex' } });
  });

  it('a wrapping sculpt: the JSONPath goto skips the waiting list, and the projection is the sculpt’s', async () => {
    const run = await workspace.run('order_pet', undefined, { how_many: 2 }, 'recordings');
    expect(rows(run).map((r) => r.id)).toEqual(['find', 'order']);
    expect(run.projection).toEqual({ value: { order: 'ord-41' } });
  });

  it('a retried step is one row per attempt', async () => {
    const run = await workspace.run('flaky_read', undefined, { key: 'down' }, 'recordings');
    expect(run.error?.code).toBe('upstream.unavailable');
    // retryLimit 2: three attempts, each its own request.
    expect(run.steps.map((s) => [s.id, s.outcome, s.request?.url.endsWith('/flaky/down')])).toEqual([
      ['read', 'error', true],
      ['read', 'error', true],
      ['read', 'error', true],
    ]);
    expect(new Set(run.steps).size).toBe(3);
    expect(run.projection).toBeUndefined();
  });
});

describe.skipIf(!hasChromium)('the workflow waterfall in Chromium', () => {
  let browser: Browser;
  let page: Page;
  let server: ReturnType<typeof serve>;
  let url: string;
  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    ({ server, url } = await serveStudio(workspace));
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    server?.close();
  });

  it('shows the called workflow and its steps, indented under it', async () => {
    await page.goto(`${url}studio/#/tools/order_and_check`);
    await page.getByLabel(/^quantity/).fill('2');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.locator('#run-output').waitFor(POLL);
    await expect.poll(() => page.locator('.waterfall tbody tr[data-depth]').count(), POLL).toBe(4);
    const shown = await page
      .locator('.waterfall tbody tr[data-depth]')
      .evaluateAll((trs) => trs.map((tr) => [tr.getAttribute('data-step'), tr.getAttribute('data-depth')]));
    expect(shown).toEqual([
      ['ordering', '0'],
      ['ordering/find', '1'],
      ['ordering/order', '1'],
      ['pet', '0'],
    ]);
    const workflowRow = page.locator('.waterfall tr.calls-workflow');
    await expect.poll(() => workflowRow.textContent(), POLL).toContain('runs workflow order-available-pet');
    expect(await page.locator('.waterfall tr[data-step="ordering/find"]').textContent()).toContain(
      'GET http://127.0.0.1',
    );
    // Indented by depth: a called workflow's step starts to the right of its caller's.
    const indent = (step: string) =>
      page
        .locator(`.waterfall tr[data-step="${step}"] td`)
        .first()
        .evaluate((td) => parseFloat(td.style.paddingLeft));
    expect(await indent('ordering/find')).toBeGreaterThan(await indent('ordering'));
    expect(await page.locator('.waterfall tbody tr').last().textContent()).toContain(
      "evaluated over the inputs and the workflow's outputs",
    );
    await page.locator('.waterfall').screenshot({ path: path.join(ARTIFACTS, 'arazzo-waterfall.png') });
  }, 30_000);
});
