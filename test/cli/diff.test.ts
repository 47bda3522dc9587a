import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { copySamples, removeFolder, REPO, runCli } from './run-cli.ts';

const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map(removeFolder));
});

describe('sculptor diff', () => {
  it('shows the last two versions by default and says A2T §5.4 holds (exit 0)', async () => {
    const result = await runCli(['diff', 'find_pets_by_status', path.join(REPO, 'sculpts/petstore')]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/find_pets_by_status: version 1 → 2/);
    expect(result.stdout).toMatch(/^ {2}\+ input 'limit': limit, int, optional, 1–50, default 20$/m);
    expect(result.stdout).toMatch(/A2T §5\.4: kept/);
  });

  it(
    'shows a breaking version although the folder does not compile, and exits 1',
    { timeout: 90_000 },
    async () => {
      const dir = await copySamples('petstore');
      folders.push(dir);
      const v1 = await readFile(path.join(dir, 'describe_pet.v1.sculpt.yaml'), 'utf8');
      const v2 = v1
        .replace('version: 1', 'version: 2')
        .replace(`  tags: { type: json, description: "The pet's tags, as a list of words." }\n`, '')
        .replace(',\n    "tags": [$steps.pet.tags.name]', '')
        .replace('    min: 1\n', '    min: 0\n');
      expect(v2).not.toContain('tags: { type: json');
      await writeFile(path.join(dir, 'describe_pet.v2.sculpt.yaml'), v2);
      expect((await runCli(['check', dir])).stdout).toMatch(/compile\.version_break/);

      const text = await runCli(['diff', 'describe_pet', dir]);
      expect(text.code).toBe(1);
      expect(text.stdout).toMatch(/- output 'tags': tags, json/);
      expect(text.stdout).toMatch(
        /~ input 'pet_number'\n\s+- pet_number, int, required, 1–2147483647\n\s+\+ pet_number, int, required, 0–2147483647/,
      );
      expect(text.stdout).toMatch(/A2T §5\.4: BROKEN/);

      const json = await runCli(['diff', 'describe_pet', dir, '--json', '--from', '1', '--to', '2']);
      expect(json.code).toBe(1);
      const diff = JSON.parse(json.stdout);
      expect(diff.compatible).toBe(false);
      expect(diff.breaks).toHaveLength(2);
      expect(diff.changes.map((c: { kind: string; subject: string }) => `${c.kind} ${c.subject}`)).toEqual([
        "changed input 'pet_number'",
        "removed output 'tags'",
      ]);
    },
  );

  it(
    'explains what is missing: an unknown tool, a single version, an unknown version',
    { timeout: 120_000 },
    async () => {
      const samples = path.join(REPO, 'sculpts/petstore');
      const unknown = await runCli(['diff', 'no_such_tool', samples]);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(/no tool 'no_such_tool'/);
      // One version is nothing wrong: said on stdout, with how a second one is made, exit 0.
      const single = await runCli(['diff', 'describe_pet', samples]);
      expect(single.code).toBe(0);
      expect(single.stdout).toMatch(/describe_pet has one version, 1 .*nothing to compare yet/);
      const asked = await runCli(['diff', 'describe_pet', samples, '--to', '1']);
      expect(asked.code).toBe(1);
      expect(asked.stderr).toMatch(/only version 1/);
      const version = await runCli(['diff', 'find_pets_by_status', samples, '--from', '7']);
      expect(version.code).toBe(1);
      expect(version.stderr).toMatch(/no version 7 \(it has 1, 2\)/);
    },
  );
});
