import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type CliProcess, copySamples, removeFolder, runCli, startCli } from './run-cli.ts';

const folders: string[] = [];
const processes: CliProcess[] = [];
afterEach(async () => {
  await Promise.all(processes.splice(0).map((p) => p.stop()));
  await Promise.all(folders.splice(0).map(removeFolder));
});

/** Writes like an editor that saves atomically: a temporary file renamed over the original. */
async function save(file: string, text: string): Promise<void> {
  const temporary = `${file}.tmp-${process.pid}`;
  await writeFile(temporary, text);
  await rename(temporary, file);
}

async function tools(base: string): Promise<Array<{ name: string; description: string }>> {
  const response = await fetch(`${base}/tools`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { items: Array<{ name: string; description: string }> }).items;
}

describe('sculptor serve --watch', { timeout: 60_000 }, () => {
  it('keeps serving the last good catalog through a broken edit, then picks up the fix and new files', async () => {
    const dir = await copySamples('petstore');
    folders.push(dir);
    const cli = startCli(['serve', dir, '--watch'], { env: { PORT: '0', HOST: '127.0.0.1' } });
    processes.push(cli);
    const base = (await cli.waitFor(/serving at (http:\/\/127\.0\.0\.1:\d+)\/tools/))[1]!;
    await cli.waitFor(/loaded 2 tool\(s\) from .* \(0 error\(s\), 0 warning\(s\)\)/);
    expect((await tools(base)).map((t) => t.name)).toEqual(['describe_pet', 'find_pets_by_status']);

    const file = path.join(dir, 'describe_pet.v1.sculpt.yaml');
    const good = await readFile(file, 'utf8');
    let mark = cli.output().length;
    await save(file, good.replace('version: 1\n', 'version: [1\n'));
    await cli.waitFor(
      /reload #\d+ failed with 1 error\(s\); still serving the last good catalog \(2 tool\(s\)\)/,
      {
        from: mark,
      },
    );
    expect(cli.output().slice(mark)).toMatch(/describe_pet\.v1\.sculpt\.yaml:5:1 load\.yaml /);
    const during = await tools(base);
    expect(during.map((t) => t.name)).toEqual(['describe_pet', 'find_pets_by_status']);

    mark = cli.output().length;
    await save(file, good.replace('Describe one pet of the pet store', 'Describe a single pet of the store'));
    await cli.waitFor(/reloaded \(#\d+\) 2 tool\(s\)/, { from: mark });
    const after = await tools(base);
    expect(after.find((t) => t.name === 'describe_pet')!.description).toMatch(
      /^Describe a single pet of the store/,
    );

    // A new folder with a new tool: watched from the moment it appears.
    mark = cli.output().length;
    await mkdir(path.join(dir, 'more'));
    const another = good.replace('tool: describe_pet', 'tool: describe_pet_again');
    await writeFile(path.join(dir, 'more', 'again.sculpt.yaml'), another);
    await cli.waitFor(/reloaded \(#\d+\) 3 tool\(s\)/, { from: mark });
    // …and a lint warning there is reported with its position.
    mark = cli.output().length;
    await save(
      path.join(dir, 'more', 'again.sculpt.yaml'),
      another.replace(/Use it\s+when the user asks about a specific pet\./, 'Handy.'),
    );
    await cli.waitFor(/reloaded \(#\d+\) 3 tool\(s\) from .* \(0 error\(s\), 1 warning\(s\)\)/, {
      from: mark,
    });
    expect(cli.output().slice(mark)).toMatch(/again\.sculpt\.yaml:5:14 lint\.description_when warning: /);
    expect((await tools(base)).map((t) => t.name)).toContain('describe_pet_again');

    expect(await cli.stop()).toBe(0);
    expect(cli.output()).toMatch(/sculptor: stopping/);
  });

  it('never serves a changed published version (sculptor.lock.json): keeps the last good catalog until the lock says otherwise', async () => {
    const dir = await copySamples('petstore');
    folders.push(dir);
    expect((await runCli(['lock', dir])).code).toBe(0);
    const cli = startCli(['serve', dir, '--watch'], { env: { PORT: '0', HOST: '127.0.0.1' } });
    processes.push(cli);
    const base = (await cli.waitFor(/serving at (http:\/\/127\.0\.0\.1:\d+)\/tools/))[1]!;
    await cli.waitFor(/loaded 2 tool\(s\)/);

    const file = path.join(dir, 'describe_pet.v1.sculpt.yaml');
    const good = await readFile(file, 'utf8');
    let mark = cli.output().length;
    await save(file, good.replace('Describe one pet of the pet store', 'Describe a single pet of the store'));
    await cli.waitFor(
      /reload #\d+ failed with 1 error\(s\); still serving the last good catalog \(2 tool\(s\)\)/,
      { from: mark },
    );
    expect(cli.output().slice(mark)).toMatch(/describe_pet\.v1\.sculpt\.yaml:4:10 lint\.signature_drift /);
    expect(cli.output().slice(mark)).not.toMatch(/reloaded/);
    const described = async () => (await tools(base)).find((t) => t.name === 'describe_pet')!.description;
    expect(await described()).toMatch(/^Describe one pet of the pet store/);

    // Re-locking (no agent uses it yet) publishes the change: the lock file is watched too.
    mark = cli.output().length;
    expect((await runCli(['lock', dir, '--force'])).code).toBe(0);
    await cli.waitFor(/reloaded \(#\d+\) 2 tool\(s\) from .* \(0 error\(s\)/, { from: mark });
    expect(await described()).toMatch(/^Describe a single pet of the store/);
    expect(await cli.stop()).toBe(0);
  });

  it('refuses to start on a changed published version (exit 1); SCULPTOR_ALLOW_LOCK_DRIFT serves it, warning', async () => {
    const dir = await copySamples('petstore');
    folders.push(dir);
    expect((await runCli(['lock', dir])).code).toBe(0);
    const file = path.join(dir, 'describe_pet.v1.sculpt.yaml');
    await writeFile(file, (await readFile(file, 'utf8')).replace("The pet's name.", 'The name of the pet.'));
    const refused = startCli(['serve', dir, '--watch'], { env: { PORT: '0', HOST: '127.0.0.1' } });
    processes.push(refused);
    await refused.waitFor(/describe_pet\.v1\.sculpt\.yaml:4:10 lint\.signature_drift /);
    await refused.waitFor(/nothing was served/);
    expect(await refused.exit()).toBe(1);

    const allowed = startCli(['serve', dir, '--watch'], {
      env: { PORT: '0', HOST: '127.0.0.1', SCULPTOR_ALLOW_LOCK_DRIFT: 'true' },
    });
    processes.push(allowed);
    await allowed.waitFor(
      /SCULPTOR_ALLOW_LOCK_DRIFT is set: published versions that changed are served anyway/,
    );
    await allowed.waitFor(/loaded 2 tool\(s\) from .* \(1 error\(s\)/);
    expect(allowed.output()).toMatch(/describe_pet\.v1\.sculpt\.yaml:4:10 lint\.signature_drift /);
    expect(await allowed.stop()).toBe(0);
  });

  it('refuses to start on broken sculpts and names the errors (exit 1)', async () => {
    const dir = await copySamples('petstore');
    folders.push(dir);
    const file = path.join(dir, 'describe_pet.v1.sculpt.yaml');
    await writeFile(
      file,
      (await readFile(file, 'utf8')).replace(
        'call: petstore GET /pet/{petId}',
        'call: petstore GET /pets/{petId}',
      ),
    );
    const cli = startCli(['serve', dir, '--watch'], { env: { PORT: '0', HOST: '127.0.0.1' } });
    processes.push(cli);
    await cli.waitFor(/describe_pet\.v1\.sculpt\.yaml:\d+:\d+ compile\.unknown_operation/);
    await cli.waitFor(/nothing was served/);
    expect(await cli.exit()).toBe(1);
  });
});
