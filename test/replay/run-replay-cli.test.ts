import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runReplayCli } from '../../src/replay/run-replay-cli.ts';
import { CASSETTES, FIXTURES } from './recordings-paths.ts';

const CLI = fileURLToPath(new URL('../../src/replay/run-replay-cli.ts', import.meta.url));
const STARTED = /^replay: serving (\d+) recorded exchanges at (http:\/\/127\.0\.0\.1:\d+)$/;

describe('runReplayCli in-process', () => {
  it('prints one line with the exchange count and URL, serves, and stops on abort', async () => {
    const stop = new AbortController();
    const lines: string[] = [];
    let started!: (line: string) => void;
    const firstLine = new Promise<string>((resolve) => {
      started = resolve;
    });
    const done = runReplayCli([CASSETTES, FIXTURES, '--port', '0', '--host', '127.0.0.1'], {
      signal: stop.signal,
      print: (line) => {
        lines.push(line);
        started(line);
      },
    });
    try {
      const [, count, url] = STARTED.exec(await firstLine) ?? [];
      expect(count).toBe('12');
      const res = await fetch(`${url}/gridpoints/OKX/33,35/forecast`);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    } finally {
      stop.abort();
      await done;
    }
    expect(lines).toHaveLength(1);
  });

  it('refuses bad arguments with the usage', async () => {
    await expect(runReplayCli([])).rejects.toThrow(/no recordings given[\s\S]*usage: replay/);
    await expect(runReplayCli([CASSETTES, '--port', 'eighty'])).rejects.toThrow(/--port/);
    await expect(runReplayCli([CASSETTES, '--verbose'])).rejects.toThrow(/usage: replay/);
    await expect(runReplayCli([FIXTURES, '--mode', 'sometimes'])).rejects.toThrow(/--mode/);
    await expect(runReplayCli([`${CASSETTES}/../SOURCES.md`])).rejects.toThrow(/no recordings found/);
  });

  it('prints the usage for --help', async () => {
    const lines: string[] = [];
    await runReplayCli(['--help'], { print: (line) => lines.push(line) });
    expect(lines).toEqual([expect.stringMatching(/^usage: replay/)]);
  });
});

describe('run-replay-cli.ts as a program', () => {
  it('starts with node, answers, and exits cleanly on SIGTERM', async () => {
    const child = spawn(process.execPath, [CLI, CASSETTES, '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const kill = setTimeout(() => child.kill('SIGKILL'), 15_000); // never outlive a hung test
    try {
      let stdout = '';
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
      });
      const line = await new Promise<string>((resolve, reject) => {
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          stdout += chunk;
          if (stdout.includes('\n')) resolve(stdout.split('\n')[0]!);
        });
        child.once('exit', (code) => reject(new Error(`exited early with ${code}: ${stderr}`)));
      });
      const [, count, url] = STARTED.exec(line) ?? [];
      expect(count).toBe('10');
      const res = await fetch(`${url}/points/40.7128,-74.006`);
      expect(res.headers.get('content-type')).toBe('application/geo+json');
      await res.arrayBuffer();

      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const [code, signal] = await exited;
      expect({ code, signal }).toEqual({ code: 0, signal: null });
    } finally {
      clearTimeout(kill);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });

  it('exits with status 1 and names the file when a recording is malformed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sculptor-replay-cli-'));
    try {
      const broken = join(dir, 'broken.har');
      await writeFile(broken, '{"log": {"entries": [{"request": {}, "response": {"status": 200}}]}}');
      const child = spawn(process.execPath, [CLI, dir], { stdio: ['ignore', 'ignore', 'pipe'] });
      const kill = setTimeout(() => child.kill('SIGKILL'), 15_000);
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
      });
      const [code] = await once(child, 'exit');
      clearTimeout(kill);
      expect(code).toBe(1);
      expect(stderr).toContain(`${broken}: log.entries[0]: request.method`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
