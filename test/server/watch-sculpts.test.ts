/**
 * The folder watcher behind serve --watch and SCULPTOR_RELOAD_ON_CHANGE, on real fs.watch: a
 * change made while a run reads the folder is told to that run (`changedSince`) and causes one
 * more run — so a load that straddled a ConfigMap swap is superseded, never reported as refused.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SculptLoadError } from '../../src/errors/sculptor-error.ts';
import { watchSculpts } from '../../src/server/watch-sculpts.ts';
import { startTestGateway } from '../support/start-test-gateway.ts';

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function folder(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sculptor-watch-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Polls `check` every 10 ms for at most `ms`. */
async function until(check: () => boolean, ms = 5000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end;) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return check();
}

describe('watchSculpts', () => {
  it('tells a run that the folder changed while it ran, then runs once more', async () => {
    const dir = await folder();
    const runs: Array<{ changedAtStart: boolean; changedAtEnd: boolean }> = [];
    const watcher = watchSculpts(
      dir,
      async (changedSince) => {
        const changedAtStart = changedSince();
        // The first run is "reading" when a second write lands (a ConfigMap swap mid-load).
        if (runs.length === 0) {
          await writeFile(path.join(dir, 'b.sculpt.yaml'), 'tool: b\n');
          await until(changedSince);
        }
        runs.push({ changedAtStart, changedAtEnd: changedSince() });
      },
      { debounceMs: 20 },
    );
    cleanup.push(() => watcher.close());
    await watcher.ready;

    await writeFile(path.join(dir, 'a.sculpt.yaml'), 'tool: a\n');
    expect(await until(() => runs.length >= 2)).toBe(true);
    expect(runs[0]).toEqual({ changedAtStart: false, changedAtEnd: true });
    expect(runs[1]).toEqual({ changedAtStart: false, changedAtEnd: false });
  });

  it('ignores editor temporaries', async () => {
    const dir = await folder();
    let runs = 0;
    const watcher = watchSculpts(dir, async () => void runs++, { debounceMs: 20 });
    cleanup.push(() => watcher.close());
    await watcher.ready;
    await writeFile(path.join(dir, 'a.sculpt.yaml~'), 'backup');
    await writeFile(path.join(dir, '.a.sculpt.yaml.swp'), 'swap');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(runs).toBe(0);
    await writeFile(path.join(dir, 'a.sculpt.yaml'), 'tool: a\n');
    expect(await until(() => runs === 1)).toBe(true);
  });
});

describe('Gateway.reload({ superseded })', () => {
  const refused = async (url: string) => {
    const text = await (await fetch(`${url}/metrics`)).text();
    return Number(/^sculptor_reloads_total\{outcome="refused"\} (\d+)/m.exec(text)?.[1]);
  };

  it('does not count a failed load as refused when the sculpts changed while it read them', async () => {
    const dir = path.join(await folder(), 'sculpts');
    await cp(path.join(import.meta.dirname, '../telemetry/fixtures/sculpts'), dir, { recursive: true });
    const gateway = await startTestGateway(dir, {
      ITEMS_URL: 'http://127.0.0.1:9',
      ITEMS_TOKEN: 'reload-token-0001',
      ITEMS_QUERY_KEY: 'reload-qkey',
    });
    cleanup.push(() => gateway.close());
    const file = path.join(dir, 'slow_call.v1.sculpt.yaml');
    await writeFile(file, (await readFile(file, 'utf8')).replace('call: items#slow', 'call: items#slower'));

    await expect(gateway.reload({ superseded: () => true })).rejects.toBeInstanceOf(SculptLoadError);
    expect(await refused(gateway.url)).toBe(0);
    await expect(gateway.reload({ superseded: () => false })).rejects.toBeInstanceOf(SculptLoadError);
    expect(await refused(gateway.url)).toBe(1);
    expect(gateway.generation).toBe(1);
  });
});
