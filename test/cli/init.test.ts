import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { findingsOf, REPO, removeFolder, runCli, tempFolder } from './run-cli.ts';

/** The shared corpus of real documents (see its SOURCES.md), beside the repository. */
const SPECS = path.resolve(REPO, 'test/fixtures/specs');
const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map(removeFolder));
});

/** init each operation into one folder, then check it and run its test stubs: all must pass as written (check without --strict). */
async function initThenCheck(
  openapi: string,
  operations: string[],
): Promise<{ dir: string; tools: string[] }> {
  const dir = await tempFolder({}, 'sculptor-init-');
  folders.push(dir);
  const tools: string[] = [];
  for (const operation of operations) {
    const init = await runCli(['init', '--openapi', openapi, '--operation', operation, '--out', dir], {
      timeoutMs: 30_000,
    });
    expect(init.code, `${operation}\n${init.stdout}\n${init.stderr}`).toBe(0);
    const name = /^sculptor init: ([a-z0-9_]+)$/m.exec(init.stdout)?.[1];
    expect(name).toBeDefined();
    tools.push(name!);
  }
  // No error; the only warnings are what init left for a designer, which --strict fails on.
  const check = await runCli(['check', dir], { timeoutMs: 30_000 });
  expect(check.code, check.stdout + check.stderr).toBe(0);
  const findings = findingsOf(check.stdout, dir);
  expect(findings.filter((f) => !/^lint\.(review_mark|placeholder)$/.test(f.code))).toEqual([]);
  expect(findings.filter((f) => f.code === 'lint.review_mark').length).toBeGreaterThan(0);
  expect(check.stdout).toMatch(
    new RegExp(
      `${operations.length} tool version\\(s\\) of ${operations.length} tool\\(s\\); 0 error\\(s\\), ${findings.length} warning\\(s\\)`,
    ),
  );
  const strict = await runCli(['check', dir, '--strict'], { timeoutMs: 30_000 });
  expect(strict.code).toBe(1);
  expect(strict.stdout).toContain(
    `Failing on warnings (--strict); ${findings.length} of them are placeholders and REVIEW marks`,
  );
  const test = await runCli(['test', dir], { timeoutMs: 30_000 });
  expect(test.code, test.stdout + test.stderr).toBe(0);
  expect(test.stdout).toMatch(
    new RegExp(
      `${operations.length} file\\(s\\), ${operations.length} case\\(s\\): ${operations.length} passed, 0 failed`,
    ),
  );
  return { dir, tools };
}

describe('sculptor init → check → test', { timeout: 90_000 }, () => {
  it('GitHub (Swagger 2.0): list issues, get a user, delete a repository', async () => {
    const { dir, tools } = await initThenCheck(`${SPECS}/apis-guru/github.com/v3/swagger.yaml`, [
      'GET /repos/{owner}/{repo}/issues',
      'GET /users/{username}',
      'DELETE /repos/{owner}/{repo}',
    ]);
    expect(tools).toEqual(['list_issues_for_repository', 'get_user', 'delete_repository']);
    const issues = parse(await readFile(path.join(dir, 'list_issues_for_repository.v1.sculpt.yaml'), 'utf8'));
    expect(Object.keys(issues.inputs)).toEqual(['owner', 'repo', 'labels']);
    // Required in this document but with a default: hidden as constants, not asked of the LLM.
    expect(issues.steps[0].params).toContain('"state": "open"');
    expect(issues.outputs.issues.type).toBe('json');
    expect(issues.output).toContain('[$steps.issues[[0..9]].{');
    const exported = await runCli(['export', '--format', 'openai', dir, '--tool', 'delete_repository']);
    expect(JSON.parse(exported.stdout)[0].function.description).toMatch(
      /\[⚠️ DESTRUCTIVE \| ⚠️ NOT REVERSIBLE\]$/,
    );
  });

  it('GitHub (OpenAPI 3.0, 2.4 MB, by operationId)', async () => {
    const { dir, tools } = await initThenCheck(`${SPECS}/large/github/api.github.com.2020-07-30.json`, [
      'search/repos',
    ]);
    expect(tools).toEqual(['search_repositories']);
    const sculpt = parse(await readFile(path.join(dir, 'search_repositories.v1.sculpt.yaml'), 'utf8'));
    expect(sculpt.steps[0].call).toBe('github#search/repos');
    expect(Object.keys(sculpt.inputs)).toEqual(['q']);
    expect(sculpt.steps[0].params).toContain('"per_page": 10');
  });

  it('Twilio: the account sid hidden, the .json media type extension fixed, basic credentials from the environment', async () => {
    const { dir } = await initThenCheck(`${SPECS}/apis-guru/twilio.com/2010-04-01/swagger.yaml`, [
      'GET /Accounts/{AccountSid}/Messages{mediaTypeExtension}',
      'GET /Accounts/{AccountSid}/AvailablePhoneNumbers/{IsoCountryCode}/Local{mediaTypeExtension}',
    ]);
    const text = await readFile(path.join(dir, 'list_available_phone_number_local.v1.sculpt.yaml'), 'utf8');
    const sculpt = parse(text);
    expect(sculpt.inputs).toEqual({
      iso_country_code: { type: 'string', maxLength: 2, description: 'ISO 3166-1 alpha-2.' },
    });
    expect(sculpt.steps[0].params).toContain('"AccountSid": "REPLACE_ME"');
    expect(sculpt.steps[0].params).toContain('"mediaTypeExtension": ".json"');
    expect(text).toMatch(/# REVIEW: AccountSid \(path\): an identifier the LLM cannot know/);
    const backends = parse(await readFile(path.join(dir, 'backends.yaml'), 'utf8'));
    expect(backends.backends.twilio.auth).toEqual([
      { in: 'header', name: 'Authorization', value: 'Basic ${TWILIO_BASIC_CREDENTIALS}' },
    ]);
  });

  it('Spotify: search, and an album by id (the id hidden, the tool has no input)', async () => {
    const { dir, tools } = await initThenCheck(`${SPECS}/apis-guru/spotify.com/v1/swagger.yaml`, [
      'GET /search',
      'GET /albums/{id}',
    ]);
    expect(tools).toEqual(['search_for_item', 'get_album']);
    const album = parse(await readFile(path.join(dir, 'get_album.v1.sculpt.yaml'), 'utf8'));
    expect(album.inputs).toBeUndefined();
    expect(Object.keys(album.outputs)).toEqual(['name', 'release_date', 'popularity', 'type', 'album_type']);
    const search = parse(await readFile(path.join(dir, 'search_for_item.v1.sculpt.yaml'), 'utf8'));
    expect(search.output).toContain('$steps.search.albums.items[[0..9]]');
    expect(Object.keys(search.outputs)).toEqual(['albums', 'count']);
  });

  it('explains a document or operation it cannot use (exit 1)', async () => {
    const dir = await tempFolder({}, 'sculptor-init-');
    folders.push(dir);
    const result = await runCli([
      'init',
      '--openapi',
      `${SPECS}/apis-guru/spotify.com/v1/swagger.yaml`,
      '--operation',
      'GET /serch',
      '--out',
      dir,
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /compile\.unknown_operation No operation 'GET \/serch'.*Close matches: GET \/search/,
    );
  });
});
