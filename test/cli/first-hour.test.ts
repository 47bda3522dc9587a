/**
 * A newcomer's first commands: `--version`, a mistyped command, `diff` on a tool with one
 * version, `invoke --offline`, and the secret checks that guard what reaches an LLM —
 * `check --strict` failing on an input that looks like a secret and `export --strict` refusing
 * it — through the real CLI.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { copySamples, removeFolder, runCli } from './run-cli.ts';

const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map(removeFolder));
});
const LONG = { timeoutMs: 60_000 };

describe('the first hour', () => {
  it('--version, -v and version say which Sculptor and which Node; a typo gets a did-you-mean', async () => {
    const pkg = JSON.parse(await readFile(path.resolve(import.meta.dirname, '../../package.json'), 'utf8'));
    for (const flag of ['--version', '-v', 'version']) {
      const out = await runCli([flag], LONG);
      expect(out.code, flag).toBe(0);
      expect(out.stdout.trim()).toBe(`sculptor ${pkg.version} (Node ${process.version})`);
    }
    const typo = await runCli(['chek'], LONG);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/^Unknown command 'chek'\. Did you mean 'check'\?/);
  }, 120_000);

  it('diff on a tool with one version says why there is nothing to compare, and exits 0', async () => {
    const out = await runCli(['diff', 'describe_pet', 'sculpts'], LONG);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(
      /describe_pet has one version, 1 \(.*describe_pet\.v1\.sculpt\.yaml\): nothing to compare yet/,
    );
    expect(out.stdout).toContain('describe_pet.v2.sculpt.yaml');
  }, 60_000);

  it('invoke --offline answers from the recordings, with no network and no credential', async () => {
    const out = await runCli(['invoke', 'describe_pet', 'sculpts', '-i', 'pet_number=10', '--offline'], LONG);
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({
      output_parameters: expect.arrayContaining([{ name: 'name', value: 'doggie' }]),
    });
    expect(out.stderr).toMatch(/offline: every backend is answered from [^\n]*petstore\/recordings/);
  }, 60_000);

  it('an input that looks like a secret: a warning, an error under check --strict, refused by export --strict', async () => {
    const dir = await copySamples('petstore');
    folders.push(dir);
    const file = path.join(dir, 'describe_pet.v1.sculpt.yaml');
    const sculpt = (await readFile(file, 'utf8'))
      .replace(
        'inputs:\n',
        'inputs:\n  api_key: { type: string, maxLength: 64, description: "Your API key." }\n',
      )
      .replace('$inputs.pet_number', '$inputs.pet_number & $inputs.api_key');
    expect(sculpt).toContain('$inputs.api_key');
    await writeFile(file, sculpt);

    const check = await runCli(['check', dir], LONG);
    expect(check.stdout).toMatch(
      /describe_pet\.v1\.sculpt\.yaml:\d+:\d+ lint\.secret_input warning: Input 'api_key' looks like a secret/,
    );
    expect(check.stdout).toContain('{ in: header, name: "…", value: "${API_KEY}" }');
    const strict = await runCli(['check', dir, '--strict'], LONG);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toMatch(/lint\.secret_input Input 'api_key' looks like a secret/);

    const exported = await runCli(['export', '--format', 'openai', dir], LONG);
    expect(exported.code).toBe(0);
    expect(exported.stderr).toMatch(/describe_pet v1: lint\.secret_input/);
    const refused = await runCli(['export', '--format', 'openai', '--strict', dir], LONG);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/Nothing exported \(--strict\): 1 input\(s\) look like secrets/);
  }, 180_000);
});
