import { afterEach, describe, expect, it } from 'vitest';
import { copySamples, findingsOf, miniFiles, removeFolder, runCli, tempFolder } from './run-cli.ts';

const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map(removeFolder));
});
async function folder(files: Record<string, string>): Promise<string> {
  const dir = await tempFolder({ ...(await miniFiles()), ...files });
  folders.push(dir);
  return dir;
}

const GOOD = `tool: get_thing
version: 1
description: Get a thing by its name. Use it when the user asks about one thing.
inputs:
  thing: { type: string, description: "The thing's name." }
outputs:
  name: { type: string, description: Its name. }
steps:
  - id: get
    call: mini#getThing
    params: '{ "thingId": $inputs.thing }'
output: '{ "name": $steps.get.name }'
`;

describe('sculptor check', () => {
  it('is clean on the sample sculpts: exit 0, no error, no warning', async () => {
    const dir = await copySamples('petstore');
    folders.push(dir);
    const result = await runCli(['check', dir]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/3 tool version\(s\) of 2 tool\(s\); 0 error\(s\), 0 warning\(s\)/);
    expect(findingsOf(result.stdout, dir)).toEqual([]);
  });

  it('reports every error of a broken folder with its code and position, and exits 1', async () => {
    const dir = await folder({
      'good.sculpt.yaml': GOOD,
      'yaml.sculpt.yaml': 'tool: get_thing\nversion: [1\n',
      'schema.sculpt.yaml': GOOD.replace('tool: get_thing', 'tool: other_thing').replace(
        'version: 1',
        'version: 1\ncolour: blue',
      ),
      'operation.sculpt.yaml': GOOD.replace('tool: get_thing', 'tool: third_thing').replace(
        'mini#getThing',
        'mini#getThingy',
      ),
      'eval.sculpt.yaml': GOOD.replace('tool: get_thing', 'tool: fourth_thing').replace(
        `output: '{ "name": $steps.get.name }'`,
        `output: '{ "name": $eval("1") }'`,
      ),
    });
    const result = await runCli(['check', dir]);
    expect(result.code).toBe(1);
    const found = findingsOf(result.stdout, dir).map(({ file, line, column, code, warning }) => ({
      file,
      line,
      column,
      code,
      warning,
    }));
    expect(found).toEqual([
      { file: 'eval.sculpt.yaml', line: 12, column: 20, code: 'compile.forbidden_function', warning: false },
      {
        file: 'operation.sculpt.yaml',
        line: 10,
        column: 11,
        code: 'compile.unknown_operation',
        warning: false,
      },
      { file: 'schema.sculpt.yaml', line: 3, column: 1, code: 'load.schema', warning: false },
      { file: 'yaml.sculpt.yaml', line: 3, column: 1, code: 'load.yaml', warning: false },
    ]);
    expect(result.stdout).toMatch(/4 error\(s\); nothing compiled\./);
  });

  it('prints lint warnings as "code warning: message" and exits 0, or 1 with --strict', async () => {
    const dir = await folder({
      't.sculpt.yaml': GOOD.replace(
        'description: Get a thing by its name. Use it when the user asks about one thing.',
        'description: Get a thing.',
      ).replace(
        '  thing: { type: string, description: "The thing\'s name." }',
        '  thing: { type: string, description: "The thing\'s name." }\n  thing_id: { type: string, description: Which. }',
      ),
    });
    const plain = await runCli(['check', dir]);
    expect(plain.code).toBe(0);
    const found = findingsOf(plain.stdout, dir);
    expect(found.map(({ line, column, code, warning }) => ({ line, column, code, warning }))).toEqual([
      { line: 3, column: 14, code: 'lint.description_when', warning: true },
      { line: 6, column: 3, code: 'lint.programmatic_input', warning: true },
      { line: 6, column: 3, code: 'lint.unused_input', warning: true },
    ]);
    expect(plain.stdout).toMatch(/0 error\(s\), 3 warning\(s\)/);

    const strict = await runCli(['check', dir, '--strict']);
    expect(strict.code).toBe(1);
    expect(findingsOf(strict.stdout, dir)).toHaveLength(3);
  });

  it('with --callers, checks the callers file against the tools as serve would (load.tenancy)', async () => {
    const keyed =
      'backends:\n  mini:\n    openapi: mini.openapi.yaml\n    baseUrl: http://127.0.0.1:9/api\n' +
      "    auth: [{ in: header, name: x-api-key, value: '${MINI_KEY}' }]\n";
    const callers = (globex: string) =>
      `tenants:\n  acme:\n    callers: [{ name: a, token: '\${A_TOKEN}' }]\n  globex:\n${globex}    callers: [{ name: g, token: '\${G_TOKEN}' }]\n`;
    const dir = await folder({
      'good.sculpt.yaml': GOOD,
      'backends.yaml': keyed,
      'shared.callers.yaml': callers(''),
      'narrow.callers.yaml': callers('    tools: [other_tool_*]\n'),
    });
    const env = { MINI_KEY: 'k', A_TOKEN: 'a'.repeat(24), G_TOKEN: 'g'.repeat(24) };
    const both = await runCli(['check', dir, '--callers', `${dir}/shared.callers.yaml`], { env });
    expect(both.code).toBe(1);
    expect(findingsOf(both.stdout, dir)).toMatchObject([
      { file: 'backends.yaml', line: 5, column: 11, code: 'load.tenancy', warning: false },
    ]);
    const narrowed = await runCli(['check', dir, '--callers', `${dir}/narrow.callers.yaml`], { env });
    expect(narrowed.code).toBe(0);
    expect(findingsOf(narrowed.stdout, dir)).toEqual([]);
  });

  it('reports a bad SCULPTOR_JSONATA_* variable like any setting: named, no stack trace, exit 1', async () => {
    const result = await runCli(['check', 'sculpts'], {
      env: { SCULPTOR_JSONATA_WORKERS: 'abc', SCULPTOR_JSONATA_FAST_PATH: 'no' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Invalid settings:');
    expect(result.stderr).toContain(
      "SCULPTOR_JSONATA_WORKERS must be a whole number from 1 to 64 (got 'abc').",
    );
    expect(result.stderr).toContain("SCULPTOR_JSONATA_FAST_PATH must be true or false (got 'no').");
    expect(result.stderr).not.toMatch(/\bat .*\.ts:\d+/);
  });

  it('refuses an unknown option with the usage (exit 2)', async () => {
    const result = await runCli(['check', '--stritc']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Unknown option '--stritc'/);
    expect(result.stderr).toMatch(/Usage: sculptor check/);
  });
});
