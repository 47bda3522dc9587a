import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO, removeFolder, runCli, tempFolder } from './run-cli.ts';

const FIXTURES = path.join(REPO, 'test/cli/fixtures');
const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map(removeFolder));
});

describe('sculptor test', () => {
  it('passes a folder whose cases all pass (exit 0), one line per case', async () => {
    const result = await runCli(['test', path.join(FIXTURES, 'test-sculpts')]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^PASS .*passing\.test\.yaml \(describe_thing\)$/m);
    expect(result.stdout).toMatch(/^ {2}✓ describes a recorded thing \[v1\] \d+ ms$/m);
    expect(result.stdout).toMatch(/^ {2}✓ a thing the backend does not know is a tool error \[v1\]/m);
    expect(result.stdout).toMatch(/1 file\(s\), 3 case\(s\): 3 passed, 0 failed\./);
  });

  it('fails (exit 1) with each failure at its case position and a diff of expected and actual', async () => {
    const result = await runCli(['test', path.join(FIXTURES, 'test-failing/failing.test.yaml')]);
    expect(result.code).toBe(1);
    const out = result.stdout;
    expect(out).toMatch(/^FAIL .*failing\.test\.yaml/m);
    expect(out).toMatch(
      /✗ expects the wrong size \[v1\].*\n\s+at .*failing\.test\.yaml:5:5\n\s+outputs: Output 'size': expected 8, got 7\./,
    );
    expect(out).toMatch(
      /--- expected\n\s+\+\+\+ actual\n\s+ {2}\{\n\s+ {2} {2}"name": "Seven",\n\s+- {3}"size": 8\n\s+\+ {3}"size": 7\n/,
    );
    expect(out).toMatch(
      /✗ expects an error but gets outputs[\s\S]*-\s+"error": "tool\.error"[\s\S]*\+\s+"name": "Seven"/,
    );
    expect(out).toMatch(/✓ still passes/);
    expect(out).toMatch(/1 file\(s\), 3 case\(s\): 1 passed, 2 failed\./);
  });

  it('reports a file that cannot run, and a folder with no test file, as failures', async () => {
    const dir = await tempFolder(
      {
        'backends.yaml': 'backends: {}\n',
        'ghost.test.yaml':
          'tool: ghost_tool\nrecordings: []\ncases:\n  - name: x\n    expect: { error: input.invalid }\n',
      },
      'sculptor-test-',
    );
    folders.push(dir);
    const ghost = await runCli(['test', dir]);
    expect(ghost.code).toBe(1);
    expect(ghost.stdout).toMatch(/^FAIL .*ghost\.test\.yaml \(ghost_tool\)$/m);

    const empty = await tempFolder({}, 'sculptor-test-');
    folders.push(empty);
    const none = await runCli(['test', empty]);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/no \*\.test\.yaml file/);

    const missing = await runCli(['test', path.join(empty, 'nope')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no such file or folder/);
  });
});
