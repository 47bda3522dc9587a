import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { copySamples, findingsOf, removeFolder, runCli } from './run-cli.ts';

const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map(removeFolder));
});

async function locked(): Promise<string> {
  const dir = await copySamples('petstore');
  folders.push(dir);
  const result = await runCli(['lock', dir]);
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(/3 version\(s\) of 2 tool\(s\), 3 newly locked/);
  return dir;
}

async function edit(file: string, from: string | RegExp, to: string): Promise<void> {
  const text = await readFile(file, 'utf8');
  const next = text.replace(from, to);
  expect(next).not.toBe(text);
  await writeFile(file, next);
}

describe('sculptor lock and check', () => {
  it('writes a sha256 per tool version; check then passes', async () => {
    const dir = await locked();
    const lock = JSON.parse(await readFile(path.join(dir, 'sculptor.lock.json'), 'utf8'));
    expect(lock.lockfileVersion).toBe(1);
    expect(Object.keys(lock.tools).sort()).toEqual(['describe_pet', 'find_pets_by_status']);
    expect(Object.keys(lock.tools.find_pets_by_status)).toEqual(['1', '2']);
    for (const versions of Object.values(lock.tools) as Array<Record<string, string>>) {
      for (const hash of Object.values(versions)) expect(hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    }
    const check = await runCli(['check', dir]);
    expect(check.code).toBe(0);
    expect(check.stdout).toMatch(/3 version\(s\) locked in sculptor\.lock\.json/);
  });

  it('catches an edited published version (even a description) at its version line, and lock refuses it', async () => {
    const dir = await locked();
    const v1 = path.join(dir, 'describe_pet.v1.sculpt.yaml');
    await edit(v1, "The pet's name.", 'The name of the pet.');

    const check = await runCli(['check', dir]);
    expect(check.code).toBe(1);
    const found = findingsOf(check.stdout, dir);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ file: 'describe_pet.v1.sculpt.yaml', line: 4, column: 10 });
    expect(found[0]!.code).toBe('lint.signature_drift');
    expect(found[0]!.warning).toBe(false);
    expect(found[0]!.message).toMatch(/new version \(version 2\)/);

    const relock = await runCli(['lock', dir]);
    expect(relock.code).toBe(1);
    expect(relock.stderr).toMatch(/lint\.signature_drift/);
    const before = await readFile(path.join(dir, 'sculptor.lock.json'), 'utf8');

    const forced = await runCli(['lock', dir, '--force']);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toMatch(/1 re-locked \(--force\)/);
    expect(await readFile(path.join(dir, 'sculptor.lock.json'), 'utf8')).not.toBe(before);
    expect((await runCli(['check', dir])).code).toBe(0);
  });

  it('accepts the change as a new version, which lock then adds', async () => {
    const dir = await locked();
    const v1 = await readFile(path.join(dir, 'describe_pet.v1.sculpt.yaml'), 'utf8');
    await writeFile(
      path.join(dir, 'describe_pet.v2.sculpt.yaml'),
      v1.replace('version: 1', 'version: 2').replace("The pet's name.", 'The name of the pet.'),
    );
    expect((await runCli(['check', dir])).code).toBe(0);
    const relock = await runCli(['lock', dir]);
    expect(relock.code).toBe(0);
    expect(relock.stdout).toMatch(/4 version\(s\) of 2 tool\(s\), 1 newly locked/);
  });

  it('reports a published version whose file was removed', async () => {
    const dir = await locked();
    await rm(path.join(dir, 'find_pets_by_status.v2.sculpt.yaml'));
    const check = await runCli(['check', dir]);
    expect(check.code).toBe(1);
    expect(findingsOf(check.stdout, dir).map((f) => [f.file, f.code])).toEqual([
      ['sculptor.lock.json', 'lint.version_removed'],
    ]);
  });

  it('reports an unreadable lock file as an error', async () => {
    const dir = await locked();
    await writeFile(path.join(dir, 'sculptor.lock.json'), '{ "lockfileVersion": 1, "tools": [');
    const check = await runCli(['check', dir]);
    expect(check.code).toBe(1);
    expect(findingsOf(check.stdout, dir).map((f) => f.code)).toEqual(['lint.lock_file']);
  });
});
