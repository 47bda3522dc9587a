/**
 * Sculptor Studio in a real browser: Playwright driving Debian's Chromium against
 * the Studio serving a copy of the weather sculpts and of a one-step tool whose loopback backend
 * echoes its API key. Every screen is checked with axe-core (no serious or critical violation)
 * and photographed into test-artifacts/studio/ (git-ignored). With STUDIO_SCREENSHOTS set to a
 * folder (`npm run studio:screenshots` sets docs/images/studio), each screen is also written
 * there at the viewport's size (1280×800), scrolled to its subject: the images docs/DESIGNER.md
 * links, committed.
 *
 * Shown here: the catalog and its findings, updated on save (a load error, a lint warning, each
 * at file:line:col); what each consumer sees (MCP included) with sizes; a run against the
 * recordings (three steps with cache scope and TTL, the output projection's value, then two
 * cache hits) and a live run against the loopback backend (a boolean input, bounds enforced, the
 * key masked in the trace and in the saved HAR); the mapping playground (output and params
 * edited, an error at its line and column); any two versions compared side by side with the A2T
 * §5.4 verdict, exactly as `sculptor diff` prints it, a breaking version included; save as test,
 * then the real `sculptor test` CLI passing the saved cases.
 */
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import type { Browser, Page } from 'playwright-core';
import { chromiumFor, launchChromium } from '../support/chromium.ts';
import { serveStudio } from './serve-studio.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWorkspace, type Workspace } from '../../src/studio/studio-workspace.ts';
import { reportFigures } from '../support/report-figures.ts';
import { runCli } from '../cli/run-cli.ts';

/** The page answers in milliseconds; a loaded CI machine may take seconds. */
const POLL = { timeout: 10_000, interval: 100 };
const REPO = fileURLToPath(new URL('../../', import.meta.url));
const ARTIFACTS = path.join(REPO, 'test-artifacts/studio');
/** Where the screenshots docs/DESIGNER.md links are written, when asked (relative to the repository). */
const DOCS_SHOTS = process.env.STUDIO_SCREENSHOTS
  ? path.resolve(REPO, process.env.STUDIO_SCREENSHOTS)
  : undefined;
/** The echo backend's API key: it must never reach the page or the folder. */
const KEY = 'echo-key-5ecr3t-0123456789';
const hasChromium = chromiumFor('the Studio test');

let dir: string;
let workspace: Workspace;
let server: ReturnType<typeof serve>;
let echo: ReturnType<typeof serve>;
const echoSeen: Array<{ query: string; key: string | undefined }> = [];
let url: string;
let browser: Browser;
let page: Page;

/**
 * A screen into test-artifacts/ (the element when given, else the whole page); with
 * STUDIO_SCREENSHOTS, also a viewport-sized copy for the docs, scrolled so that `focus` (or the
 * element) is in view — the whole page of a run is several screens tall and too heavy to commit.
 */
async function shot(name: string, options: { element?: string; focus?: string; at?: 'start' | 'end' } = {}) {
  const file = path.join(ARTIFACTS, `${name}.png`);
  if (options.element) await page.locator(options.element).first().screenshot({ path: file });
  else await page.screenshot({ path: file, fullPage: true });
  if (!DOCS_SHOTS) return;
  const focus = options.focus ?? options.element;
  if (focus) {
    await page
      .locator(focus)
      .first()
      .evaluate((el, block) => el.scrollIntoView({ block }), options.at ?? 'start');
  } else await page.evaluate('window.scrollTo(0, 0)');
  await page.screenshot({ path: path.join(DOCS_SHOTS, `${name}.png`) });
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
  reportFigures(
    `[studio] ${screen}: axe found ${violations.length} issue(s), ${serious.length} serious or critical`,
  );
  expect(serious, screen).toEqual([]);
}

/** Writes like an editor that saves atomically: a temporary file renamed over the original. */
async function save(file: string, text: string): Promise<void> {
  const temporary = `${file}.tmp-${process.pid}`;
  await writeFile(temporary, text);
  await rename(temporary, file);
}

const findings = () => page.locator('.findings li').allTextContents();
const run = () => page.getByRole('button', { name: 'Run', exact: true }).click();
const tool = (name: RegExp) => page.getByRole('link', { name });
const tab = (name: string) => page.getByRole('tab', { name, exact: true }).click();

describe.skipIf(!hasChromium)('Sculptor Studio in Chromium', () => {
  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    if (DOCS_SHOTS) await mkdir(DOCS_SHOTS, { recursive: true });
    // The live backend: echoes its query and the API key it was sent.
    const backend = new Hono();
    backend.get('/echo', (c) => {
      const word = c.req.query('word') ?? '';
      const loud = c.req.query('loud') === 'true';
      echoSeen.push({ query: new URL(c.req.url).search, key: c.req.header('x-api-key') });
      const said = Array.from({ length: Number(c.req.query('times')) }, () =>
        loud ? word.toUpperCase() : word,
      ).join(' ');
      return c.json({ said, heard_key: c.req.header('x-api-key') });
    });
    await new Promise<void>((resolve) => {
      echo = serve({ fetch: backend.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve());
    });
    dir = await mkdtemp(path.join(tmpdir(), 'sculptor-studio-'));
    await cp('sculpts/weather', path.join(dir, 'weather'), { recursive: true });
    await cp('test/studio/fixtures/echo', path.join(dir, 'echo'), { recursive: true });
    await cp('test/studio/fixtures/keyed', path.join(dir, 'keyed'), { recursive: true });
    workspace = await openWorkspace({
      dir,
      env: {
        ...process.env,
        ECHO_BASE_URL: `http://127.0.0.1:${(echo.address() as AddressInfo).port}`,
        ECHO_KEY: KEY,
        // Unset: a run against the recordings sends a placeholder, as `sculptor test` does.
        KEYED_API_KEY: undefined,
        // The live backend is on loopback, as SCULPTOR_ALLOW_PRIVATE_EGRESS lets `serve` reach it.
        SCULPTOR_ALLOW_PRIVATE_EGRESS: 'true',
      },
    });
    ({ server, url } = await serveStudio(workspace));
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    server?.close();
    echo?.close();
    await workspace?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('lists the tools and the folder’s findings; search finds the weather tool', async () => {
    await page.goto(url);
    expect(page.url()).toMatch(/\/studio\/$/);
    await page.getByLabel('Search tools').fill('weather');
    await expect.poll(() => tool(/lookup_weather_by_city/).count(), POLL).toBe(1);
    await expect.poll(() => tool(/shout_word/).count(), POLL).toBe(0);
    await expect.poll(() => page.getByText('No errors or warnings.').count(), POLL).toBe(1);
    await shot('1-catalog');
    await accessible('catalog');
  }, 30_000);

  it('gives every tool its URL: the run form first, the views and versions in tabs after it', async () => {
    await tool(/lookup_weather_by_city/).click();
    await expect.poll(() => new URL(page.url()).hash, POLL).toBe('#/tools/lookup_weather_by_city');
    // The run form comes first: its button is on the first screen, not under the views.
    const button = page.getByRole('button', { name: 'Run', exact: true });
    await button.waitFor();
    expect((await button.boundingBox())!.y).toBeLessThan(600);
    expect(await page.getByRole('tab').allTextContents()).toEqual([
      'Run',
      'What the LLM sees',
      'Versions',
      'Try with a model',
    ]);
    expect(await page.getByRole('tab', { selected: true }).textContent()).toBe('Run');
    // The heading and the version choice are apart, the fields' labels and help on lines of their own.
    expect(await page.locator('#tool-heading').textContent()).toBe('lookup_weather_by_city');
    const city = page.getByLabel(/^city/);
    const help = page.locator(`#${await city.getAttribute('aria-describedby')}`);
    const gap =
      (await help.boundingBox())!.y - ((await city.boundingBox())!.y + (await city.boundingBox())!.height);
    expect(gap).toBeGreaterThan(0);
    // A reload (or a link) opens the same tool and panel.
    await tab('What the LLM sees');
    await expect
      .poll(() => new URL(page.url()).hash, POLL)
      .toBe('#/tools/lookup_weather_by_city?version=2&panel=llm');
    await page.reload();
    await page.getByRole('heading', { name: 'What the LLM sees' }).waitFor();
    expect(await page.getByRole('tab', { selected: true }).textContent()).toBe('What the LLM sees');
    await accessible('tool');
    await tab('Run');
    await shot('0-tool');
    await tab('What the LLM sees');
  }, 30_000);

  it('shows what each consumer receives, MCP included, with sizes in characters and tokens', async () => {
    await page.getByRole('heading', { name: 'What the LLM sees' }).waitFor();
    for (const consumer of ['A2T', 'mcp', 'openai', 'anthropic', 'gemini', 'agent-tool']) {
      await expect
        .poll(() => page.locator(`.view[data-consumer="${consumer}"] pre`).count(), {
          ...POLL,
          message: consumer,
        })
        .toBe(1);
    }
    const mcp = JSON.parse((await page.locator('.view[data-consumer="mcp"] pre').textContent()) ?? '{}');
    expect(Object.keys(mcp)).toEqual([
      'name',
      'title',
      'description',
      'inputSchema',
      'outputSchema',
      'annotations',
    ]);
    expect(mcp).toMatchObject({
      name: 'lookup_weather_by_city',
      title: 'Lookup Weather By City',
      inputSchema: { type: 'object', required: ['city'] },
      annotations: { readOnlyHint: true, openWorldHint: true },
    });
    const heading = await page.locator('.view[data-consumer="mcp"] h3').textContent();
    const text = (await page.locator('.view[data-consumer="mcp"] pre').textContent()) ?? '';
    expect(heading).toContain(`${text.length} characters, ~${Math.ceil(text.length / 4)} tokens`);
    expect(await page.getByText(/tokens ≈ characters ÷ 4/).count()).toBe(1);
    // The weather tool fits every provider: no warning.
    expect(await page.locator('.view .warning').count()).toBe(0);
    await shot('2-what-the-llm-sees');
    await accessible('tool');
  }, 30_000);

  it('compares the latest version with the one before by default, as sculptor diff does', async () => {
    await tab('Versions');
    await page.getByRole('heading', { name: 'Versions', exact: true }).waitFor();
    await expect
      .poll(() => page.locator('#versions-verdict').textContent(), POLL)
      .toBe('Compatible (A2T §5.4)');
    expect(await page.getByLabel('Compare version').inputValue()).toBe('1');
    expect(await page.getByLabel('with version').inputValue()).toBe('2');
    const diff = (await page.locator('#versions-diff').textContent()) ?? '';
    expect(diff).toContain("+ input 'day'");
    expect(diff).toContain('A2T §5.4: kept — the newer version only adds optional inputs and outputs.');
    // The new input stands on the right, marked as added, with nothing facing it on the left.
    const added = page.locator('#versions tr[data-kind="added"]', { hasText: '"name": "day"' });
    expect(await added.count()).toBe(1);
    expect(await added.locator('ins').count()).toBe(1);
    // Unchanged runs far from a change fold behind a button, and open on demand.
    const fold = page.locator('#versions tr.fold button').first();
    const folded = Number(/show (\d+) unchanged lines/.exec((await fold.textContent()) ?? '')?.[1]);
    expect(folded).toBeGreaterThan(2);
    const shown = await page.locator('#versions tbody tr').count();
    await fold.click();
    await expect.poll(() => page.locator('#versions tbody tr').count(), POLL).toBe(shown - 1 + folded);
    await shot('3-versions', { element: '#versions' });
    await accessible('versions');
  }, 30_000);

  it('shows the steps a failed run never reached as not run, and offers no test for it', async () => {
    await tab('Run');
    await page.getByLabel(/^city/).fill('xyznonexistentlocation12345');
    await run();
    await page.locator('#run-error').waitFor();
    expect(await page.locator('#run-error').textContent()).toMatch(/^tool\.error: /);
    await expect.poll(() => page.locator('.waterfall tr[data-outcome="not_run"]').count(), POLL).toBe(2);
    const rows = await page.locator('.waterfall tr[data-outcome="not_run"]').allTextContents();
    for (const row of rows) {
      expect(row).toContain('not run: an earlier step failed first');
      expect(row).not.toMatch(/\(cache\)|0\.0 ms|\boff\b/);
    }
    expect(await page.getByRole('button', { name: 'Save this run as a test' }).count()).toBe(0);
    expect(await page.locator('#save-hint').textContent()).toContain('cannot be saved as a test');
    await shot('11-not-run', { focus: '.waterfall', at: 'end' });
    await accessible('a failed run');
  }, 30_000);

  it('runs against the recordings: three steps with cache scope and TTL, the projection, then two cache hits', async () => {
    await page.getByLabel(/^city/).fill('New York');
    await run();
    await page.locator('#run-output').waitFor();
    expect(JSON.parse((await page.locator('#run-output').textContent()) ?? '{}')).toEqual({
      temperature_f: 22,
      forecast: 'Sunny',
      place: 'New York, New York, US',
    });
    await expect.poll(() => page.locator('.waterfall tbody tr[data-step]').count(), POLL).toBe(4);
    expect(await page.locator('.waterfall td.cache').allTextContents()).toEqual(['miss', 'miss', 'off']);
    expect(await page.locator('.waterfall td.cache-policy').allTextContents()).toEqual([
      'shared · 30d',
      'shared · 7d',
      'not cached',
    ]);
    // The last row: the output projection's value, before the declared outputs are checked.
    expect(await page.locator('.waterfall tbody tr').last().getAttribute('data-step')).toBe('output');
    expect(JSON.parse((await page.locator('#projection-value').textContent()) ?? '{}')).toEqual({
      temperature_f: 22,
      forecast: 'Sunny',
      place: 'New York, New York, US',
    });
    await run();
    await expect
      .poll(() => page.locator('.waterfall td.cache').allTextContents(), POLL)
      .toEqual(['hit', 'hit', 'off']);
    await shot('4-run-and-trace', { focus: '.waterfall', at: 'end' });
    await accessible('run and trace');
  }, 30_000);

  it('recomputes an edited output or params expression live; an error shows its line and column', async () => {
    const editor = page.getByLabel('JSONata');
    await editor.fill('{ "city": $inputs.city, "warmer": $steps.forecast[0].temperature + 1 }');
    await expect
      .poll(async () => (await page.locator('#playground-value').textContent()) ?? '', POLL)
      .toMatch(/"city": "New York",\s+"warmer": 23/);
    // A syntax error on the second line: "&" with nothing after it, found at the "}".
    await editor.fill('{\n  "broken": $inputs.city & }');
    await expect.poll(() => page.locator('#playground-at').textContent(), POLL).toBe('(line 2, column 28)');
    expect(await page.locator('#playground-position').textContent()).toBe(
      `  "broken": $inputs.city & }\n${' '.repeat(27)}^`,
    );
    // A step's params, evaluated over the inputs and the other steps' values.
    await page.getByLabel('Expression of').selectOption('params:geocode');
    await expect.poll(() => editor.inputValue(), POLL).toContain('"name": $inputs.city');
    await editor.fill('{ "name": $uppercase($inputs.city), "count": 1 }');
    await expect
      .poll(async () => JSON.parse((await page.locator('#playground-value').textContent()) || 'null'), POLL)
      .toEqual({ name: 'NEW YORK', count: 1 });
    await shot('5-playground', { element: '#playground' });
    await accessible('playground');
  }, 30_000);

  it('saves the run as a test that the sculptor test command passes', async () => {
    await page.getByRole('button', { name: 'Save this run as a test' }).click();
    await page.locator('#saved.ok').waitFor();
    await shot('6-saved', { focus: '#saved', at: 'end' });
    await accessible('saved');
    const testFile = path.join(dir, 'weather', 'lookup_weather_by_city.test.yaml');
    expect(await readFile(testFile, 'utf8')).toContain('lookup_weather_by_city: {"city":"New York"}');
    const cli = await runCli(['test', path.join(dir, 'weather')], { timeoutMs: 60_000 });
    expect(cli.stdout).toMatch(/✓ lookup_weather_by_city: \{"city":"New York"\} \[v2\]/);
    expect(cli.code, cli.stdout + cli.stderr).toBe(0);
  }, 90_000);

  it('runs live against a loopback backend: a boolean choice, bounds enforced, the key masked in trace and HAR', async () => {
    await page.getByLabel('Search tools').fill('shout');
    await tool(/shout_word/).click();
    await page.getByLabel(/^word/).fill('hello');
    // A boolean is a choice of true or false, not a text field.
    const loud = page.getByLabel(/^loud/);
    expect(await loud.evaluate((el) => el.tagName)).toBe('SELECT');
    expect(await loud.locator('option:not([disabled])').allTextContents()).toEqual(['true', 'false']);
    await loud.selectOption('true');
    // Bounds: 5 is over the maximum of 3, and the browser refuses to submit.
    const times = page.getByLabel(/^times/);
    await times.fill('5');
    await page.getByLabel('against').selectOption('live');
    await run();
    expect(
      await times.evaluate(
        (el) => (el as unknown as { validity: { rangeOverflow: boolean } }).validity.rangeOverflow,
      ),
    ).toBe(true);
    expect(await page.locator('#run-output').count()).toBe(0);
    expect(echoSeen).toEqual([]);
    await times.fill('2');
    await run();
    await page.locator('#run-output').waitFor();
    expect(JSON.parse((await page.locator('#run-output').textContent()) ?? '{}')).toEqual({
      said: 'HELLO HELLO',
    });
    // The backend was really called, with the key and the boolean as the operation writes it.
    expect(echoSeen).toEqual([{ query: '?word=hello&loud=true&times=2', key: KEY }]);
    expect(await page.locator('.waterfall td.cache-policy').allTextContents()).toEqual(['caller · 5m']);
    // The step's value held the echoed key: the page shows it masked, never in clear.
    await page.locator('.waterfall details summary').first().click();
    const trace = (await page.locator('.waterfall').textContent()) ?? '';
    expect(trace).toContain('"heard_key": "•••"');
    expect(await page.content()).not.toContain(KEY);
    await shot('7-live-run', { focus: '.waterfall', at: 'end' });
    await accessible('live run');

    await page.getByRole('button', { name: 'Save this run as a test' }).click();
    await page.locator('#saved.ok').waitFor();
    const recordings = path.join(dir, 'echo', 'recordings', 'studio');
    const [har] = await readdir(recordings);
    const saved = await readFile(path.join(recordings, har!), 'utf8');
    expect(saved).toContain('\\"heard_key\\":\\"•••\\"');
    expect(saved).not.toContain(KEY);
    // The saved case passes through the CLI, against the HAR (the backend is not reached).
    const before = echoSeen.length;
    const cli = await runCli(['test', path.join(dir, 'echo')], {
      env: { ECHO_KEY: KEY },
      timeoutMs: 60_000,
    });
    expect(cli.code, cli.stdout + cli.stderr).toBe(0);
    expect(echoSeen.length).toBe(before);
  }, 90_000);

  it('compares any two versions side by side, with the verdict and findings sculptor diff prints', async () => {
    await page.getByLabel('Search tools').fill('say');
    await tool(/say_word/).click();
    await tab('Versions');
    await expect.poll(() => page.getByLabel('with version').inputValue(), POLL).toBe('3');
    expect(await page.getByLabel('Compare version').inputValue()).toBe('2');
    await page.getByLabel('Compare version').selectOption('1');
    await expect
      .poll(() => page.locator('#versions-diff').textContent(), POLL)
      .toContain('say_word: version 1 → 3');
    expect(await page.locator('#versions-verdict').textContent()).toBe('Compatible (A2T §5.4)');
    expect(await page.locator('#versions thead th').allTextContents()).toEqual([
      expect.stringMatching(/^version 1 .*say_word\.v1\.sculpt\.yaml$/),
      expect.stringMatching(/^version 3 .*say_word\.v3\.sculpt\.yaml$/),
    ]);
    // The reworded description faces its old text, both marked; the new output stands alone.
    const description = page.locator('#versions tr[data-kind="changed"]', {
      hasText: '"description": "Says',
    });
    expect(await description.locator('del').textContent()).toContain('Says a word a few times.');
    expect(await description.locator('ins').textContent()).toContain('Says a word one to three times');
    const words = page.locator('#versions tr[data-kind="added"]', { hasText: '"name": "words"' });
    expect(await words.count()).toBe(1);
    // The findings are `sculptor diff`'s own, line for line.
    const env = { ECHO_KEY: KEY, ECHO_BASE_URL: 'http://127.0.0.1:9' };
    const cli = await runCli(['diff', 'say_word', path.join(dir, 'echo'), '--from', '1', '--to', '3'], {
      env,
    });
    expect(cli.code, cli.stderr).toBe(0);
    expect(await page.locator('#versions-diff').textContent()).toBe(cli.stdout.trimEnd());
    // The API says what it wants of a version it cannot read.
    const bad = await fetch(`${url}studio/api/tools/say_word/diff?from=one&to=3`);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      error: { code: 'studio.version', message: expect.stringContaining("'one'") },
    });
    await shot('8-versions-any-two', { element: '#versions' });
    await accessible('versions, any two');

    // A version 4 that drops an output breaks §5.4: the folder stops compiling, and the panel
    // still compares it (each version compiled on its own, as `sculptor diff` does).
    const v3 = await readFile(path.join(dir, 'echo', 'say_word.v3.sculpt.yaml'), 'utf8');
    const v4 = path.join(dir, 'echo', 'say_word.v4.sculpt.yaml');
    await save(
      v4,
      v3
        .replace('version: 3', 'version: 4')
        .replace('  words: { type: int, description: How many words were said. }\n', '')
        .replace(', "words": $count($split($steps.echo.said, " "))', ''),
    );
    // The panel is rebuilt on the save: the chosen version 1 stays, the unchosen end follows the
    // latest. Version 4 only adds an optional input to version 1, so that pair is compatible.
    await expect.poll(() => page.getByLabel('with version').inputValue(), POLL).toBe('4');
    expect(await page.getByLabel('Compare version').inputValue()).toBe('1');
    await expect
      .poll(() => page.locator('#versions-verdict').textContent(), POLL)
      .toBe('Compatible (A2T §5.4)');
    await page.getByLabel('Compare version').selectOption('3');
    await expect.poll(() => page.locator('#versions-verdict').textContent(), POLL).toBe('Breaks A2T §5.4');
    expect(await findings()).toEqual([
      expect.stringMatching(/say_word\.v4\.sculpt\.yaml:\d+:\d+ compile\.version_break/),
    ]);
    const broken = (await page.locator('#versions-diff').textContent()) ?? '';
    expect(broken).toContain("- output 'words': words, int");
    expect(broken).toContain('A2T §5.4: BROKEN');
    expect(broken).toMatch(/output 'words' was removed/);
    const cliBroken = await runCli(['diff', 'say_word', path.join(dir, 'echo')], { env });
    expect(cliBroken.code).toBe(1);
    expect(broken).toBe(cliBroken.stdout.trimEnd());
    expect(
      await page.locator('#versions tr[data-kind="removed"] del', { hasText: '"name": "words"' }).count(),
    ).toBe(1);
    await shot('9-versions-break', { element: '#versions' });
    await accessible('versions, a break');
    await rm(v4);
    await expect.poll(() => page.getByText('No errors or warnings.').count(), POLL).toBe(1);
  }, 60_000);

  it('runs against the recordings with the credential variable unset, as sculptor test does', async () => {
    await page.getByLabel('Search tools').fill('define');
    await tool(/define_word/).click();
    await page.getByLabel(/^word/).fill('sculpt');
    await run();
    await page.locator('#run-output').waitFor();
    expect(JSON.parse((await page.locator('#run-output').textContent()) ?? '{}')).toEqual({
      meaning: 'To shape a material into a form.',
    });
  }, 30_000);

  it('updates the findings on save: a load error, then a lint warning, each at file:line:col', async () => {
    const file = path.join(dir, 'weather', 'lookup_weather_by_city.v2.sculpt.yaml');
    const good = await readFile(file, 'utf8');
    await save(file, good.replace('version: 2\n', 'version: [2\n'));
    await expect
      .poll(findings, POLL)
      .toEqual([
        expect.stringMatching(/lookup_weather_by_city\.v2\.sculpt\.yaml:5:1 load\.yaml Flow sequence/),
      ]);
    await shot('10-findings');
    await accessible('findings');
    // A description that no longer says when to use the tool: a lint warning at `description:`.
    await save(
      file,
      good.replace(/description: >\n(?: {2}.*\n)+/, 'description: The forecast for a US city.\n'),
    );
    await expect
      .poll(findings, POLL)
      .toEqual([
        expect.stringMatching(
          /lookup_weather_by_city\.v2\.sculpt\.yaml:5:14 lint\.description_when warning: The description does not say when/,
        ),
      ]);
    await save(file, good);
    await expect.poll(() => page.getByText('No errors or warnings.').count(), POLL).toBe(1);
  }, 30_000);
});
