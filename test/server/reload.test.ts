/**
 * Production reloads of a running `serve` process: SIGHUP, a
 * Kubernetes-style ConfigMap swap with SCULPTOR_RELOAD_ON_CHANGE, and the
 * signature lock enforced at start and on every reload. Real processes, a
 * real backend, every wait bounded.
 */
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { compileSculpts } from '../../src/compile/compile-sculpts.ts';
import { toolIdFor } from '../../src/compile/tool-signature.ts';
import { buildLock, writeLock } from '../../src/designer/signature-lock.ts';
import { type ItemsBackend, startItemsBackend } from '../telemetry/support/items-backend.ts';
import { type GatewayProcess, REPO, startGatewayProcess } from './gateway-process.ts';

const FIXTURE = path.join(REPO, 'test/telemetry/fixtures/sculpts');
const TOKEN_A = 'reload-caller-token-a-0123456789';
const TOKEN_B = 'reload-caller-token-b-0123456789';

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function scratch(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sculptor-reload-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A copy of the items sculpts in a plain folder. */
async function copyFixture(): Promise<string> {
  const dir = path.join(await scratch(), 'sculpts');
  await cp(FIXTURE, dir, { recursive: true });
  return dir;
}

async function backendFor(): Promise<ItemsBackend> {
  const backend = await startItemsBackend();
  cleanup.push(() => backend.close());
  return backend;
}

function itemsEnv(backend: ItemsBackend): Record<string, string> {
  return { ITEMS_URL: backend.url, ITEMS_TOKEN: 'reload-token-0001', ITEMS_QUERY_KEY: 'reload-qkey' };
}

async function gatewayFor(
  sculpts: string,
  backend: ItemsBackend,
  env: Record<string, string> = {},
): Promise<GatewayProcess> {
  const gateway = await startGatewayProcess({
    sculpts,
    register: false,
    env: { ...itemsEnv(backend), ...env },
  });
  cleanup.push(() => gateway.kill());
  return gateway;
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

function invoke(
  url: string,
  name: string,
  params: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return fetch(`${url}/tools/${toolIdFor(name)}:invoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({
      name,
      input_parameters: Object.entries(params).map(([n, value]) => ({ name: n, value })),
    }),
  }).then(async (res) => ({ status: res.status, body: (await res.json()) as Record<string, unknown> }));
}

function output(answer: Answer, name: string): unknown {
  const params = answer.body.output_parameters as Array<{ name: string; value: unknown }> | undefined;
  return params?.find((p) => p.name === name)?.value;
}

async function toolNames(url: string, headers: Record<string, string> = {}): Promise<string[]> {
  const res = await fetch(`${url}/tools`, { headers });
  expect(res.status).toBe(200);
  return ((await res.json()) as { items: Array<{ name: string }> }).items.map((t) => t.name);
}

async function description(url: string, name: string): Promise<string> {
  const res = await fetch(`${url}/tools/${toolIdFor(name)}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { description: string }).description;
}

async function until(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Log lines of one event, from the `from`-th line on. */
function events(gateway: GatewayProcess, event: string, from = 0): Array<Record<string, unknown>> {
  return gateway
    .logs()
    .slice(from)
    .filter((l) => l.event === event);
}

/** Waits for the next reload's outcome line (reloaded or reload_refused) after log line `from`. */
async function reloadOutcome(gateway: GatewayProcess, from: number): Promise<Record<string, unknown>> {
  await until(
    'a reload outcome in the log',
    () => events(gateway, 'reloaded', from).length + events(gateway, 'reload_refused', from).length > 0,
  );
  return [...events(gateway, 'reloaded', from), ...events(gateway, 'reload_refused', from)][0]!;
}

async function metric(url: string, series: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  if (!line) throw new Error(`no series ${series} in /metrics`);
  return Number(line.slice(series.length + 1));
}

/**
 * Invocations of lookup_item by `workers` loops, until stopped or `maxMs`
 * has passed: the load a reload must not disturb.
 */
function load(url: string, workers = 3, maxMs = 30_000, headers: Record<string, string> = {}) {
  let stopped = false;
  const failures: Answer[] = [];
  let answered = 0;
  const deadline = performance.now() + maxMs;
  const loops = Array.from({ length: workers }, async (_, w) => {
    for (let i = 0; !stopped && performance.now() < deadline; i++) {
      const answer = await invoke(url, 'lookup_item', { name: `load-${w}-${i % 50}` }, headers).catch(
        (err: unknown) => ({ status: 0, body: { error: String(err) } }),
      );
      if (answer.status === 200) answered++;
      else failures.push(answer);
    }
  });
  const stop = async () => {
    stopped = true;
    await Promise.all(loops);
    return { answered, failures };
  };
  cleanup.push(stop);
  return { answered: () => answered, stop };
}

/** slow_call's output, negated: the new version answers −ms where the old one answered ms. */
async function negateSlowCall(dir: string): Promise<void> {
  const file = path.join(dir, 'slow_call.v1.sculpt.yaml');
  const text = await readFile(file, 'utf8');
  const next = text.replace(
    `output: '{ "waited": $steps.wait.waited }'`,
    `output: '{ "waited": 0 - $steps.wait.waited }'`,
  );
  expect(next).not.toBe(text);
  await writeFile(file, next);
}

/** Locks the sculpts of `dir` as `sculptor lock` does. */
async function lock(dir: string, backend: ItemsBackend): Promise<void> {
  await writeLock(dir, buildLock(await compileSculpts(dir, itemsEnv(backend))));
}

async function editDescription(dir: string): Promise<string> {
  const file = path.join(dir, 'slow_call.v1.sculpt.yaml');
  const text = await readFile(file, 'utf8');
  await writeFile(file, text.replace('Asks the backend to answer after a delay.', 'Waits, then answers.'));
  return file;
}

describe('reload on SIGHUP', { timeout: 60_000 }, () => {
  it('under load: a good folder replaces the catalog while a call in flight answers from its version; a bad one is refused, every error logged, the old kept; no request fails', async () => {
    const backend = await backendFor();
    const dir = await copyFixture();
    const gateway = await gatewayFor(dir, backend);
    expect(events(gateway, 'serving')[0]).toMatchObject({ generation: 1, reload_on_change: false });
    expect(await metric(gateway.url, 'sculptor_catalog_generation')).toBe(1);
    const loaded = await metric(gateway.url, 'sculptor_last_reload_timestamp_seconds');

    const traffic = load(gateway.url);
    await until('load to run', () => traffic.answered() >= 10);

    // A call in flight on the slow backend across the reload.
    const inFlight = invoke(gateway.url, 'slow_call', { ms: 2500 });
    await until('the slow call to reach the backend', () => backend.pending() === 1);
    await negateSlowCall(dir);
    let mark = gateway.stdout.length;
    gateway.child.kill('SIGHUP');
    const reloaded = await reloadOutcome(gateway, mark);
    expect(reloaded).toMatchObject({ event: 'reloaded', trigger: 'SIGHUP', generation: 2, tools: 4 });
    // Still in flight when the new catalog was already served.
    expect(backend.pending()).toBe(1);
    expect(output(await invoke(gateway.url, 'slow_call', { ms: 5 }), 'waited')).toBe(-5);
    const old = await inFlight;
    expect(old.status).toBe(200);
    expect(output(old, 'waited')).toBe(2500);

    // A bad folder: two broken files; both errors logged with their positions, the old catalog kept.
    await writeFile(
      path.join(dir, 'broken.v1.sculpt.yaml'),
      'tool: broken\nversion: [1\ndescription: Broken.\n',
    );
    const lookup = path.join(dir, 'lookup_item.v1.sculpt.yaml');
    await writeFile(lookup, (await readFile(lookup, 'utf8')).replace('version: 1', 'version: one'));
    mark = gateway.stdout.length;
    gateway.child.kill('SIGHUP');
    const refused = await reloadOutcome(gateway, mark);
    expect(refused).toMatchObject({ event: 'reload_refused', trigger: 'SIGHUP', errors: 2, generation: 2 });
    const errors = events(gateway, 'reload_error', mark);
    expect(errors).toHaveLength(2);
    for (const e of errors) {
      expect(e).toMatchObject({ level: 'error', trigger: 'SIGHUP' });
      expect(e.at).toBe(`${e.file as string}:${e.line as number}:${e.column as number}`);
      expect(String(e.msg)).toContain(`${e.at as string} ${e.code as string} `);
    }
    expect(Object.fromEntries(errors.map((e) => [path.basename(String(e.file)), e.code]))).toEqual({
      'broken.v1.sculpt.yaml': 'load.yaml',
      'lookup_item.v1.sculpt.yaml': 'load.schema',
    });
    expect(await toolNames(gateway.url)).toEqual([
      'fail_call',
      'lookup_item',
      'read_item_as_user',
      'slow_call',
    ]);
    expect(output(await invoke(gateway.url, 'slow_call', { ms: 5 }), 'waited')).toBe(-5);

    const { answered, failures } = await traffic.stop();
    expect(failures).toEqual([]);
    expect(answered).toBeGreaterThan(20);

    expect(await metric(gateway.url, 'sculptor_catalog_generation')).toBe(2);
    expect(await metric(gateway.url, 'sculptor_reloads_total{outcome="ok"}')).toBe(1);
    expect(await metric(gateway.url, 'sculptor_reloads_total{outcome="refused"}')).toBe(1);
    expect(await metric(gateway.url, 'sculptor_last_reload_successful')).toBe(0);
    expect(await metric(gateway.url, 'sculptor_last_reload_timestamp_seconds')).toBeGreaterThan(loaded);

    gateway.child.kill('SIGTERM');
    expect((await gateway.exited).code).toBe(0);
  });

  it('reloads the callers file with the sculpts: a new token is accepted, the old one refused', async () => {
    const backend = await backendFor();
    const dir = await copyFixture();
    const callers = path.join(path.dirname(dir), 'callers.yaml');
    const callersFor = (token: string) =>
      `tenants:\n  acme:\n    callers:\n      - { name: agent, token: '\${${token}}' }\n`;
    await writeFile(callers, callersFor('TOKEN_A'));
    const gateway = await gatewayFor(dir, backend, {
      SCULPTOR_CALLERS: callers,
      TOKEN_A,
      TOKEN_B,
    });
    const a = { authorization: `Bearer ${TOKEN_A}` };
    const b = { authorization: `Bearer ${TOKEN_B}` };
    expect((await invoke(gateway.url, 'lookup_item', { name: 'x' }, a)).status).toBe(200);
    expect((await invoke(gateway.url, 'lookup_item', { name: 'x' }, b)).status).toBe(401);

    await writeFile(callers, callersFor('TOKEN_B'));
    const mark = gateway.stdout.length;
    gateway.child.kill('SIGHUP');
    expect(await reloadOutcome(gateway, mark)).toMatchObject({ event: 'reloaded', generation: 2 });
    expect((await invoke(gateway.url, 'lookup_item', { name: 'x' }, b)).status).toBe(200);
    expect((await invoke(gateway.url, 'lookup_item', { name: 'x' }, a)).status).toBe(401);
  });
});

/**
 * A Kubernetes ConfigMap volume as the kubelet writes it (AtomicWriter): the
 * files in a hidden `..<timestamp>` folder, `..data` a symlink to it, and each
 * file a symlink through `..data`.
 */
class ConfigMapVolume {
  private serial = 0;
  readonly dir: string;
  constructor(dir: string) {
    this.dir = dir;
  }

  /** The kubelet's update: a new timestamped folder, `..data_tmp` renamed over `..data`, links added and removed, the old folder removed. */
  async write(files: Record<string, string>): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const previous = this.serial > 0 ? `..2026_01_01_00_00_0${this.serial}.000` : undefined;
    const next = `..2026_01_01_00_00_0${++this.serial}.000`;
    await mkdir(path.join(this.dir, next));
    for (const [name, text] of Object.entries(files)) await writeFile(path.join(this.dir, next, name), text);
    await symlink(next, path.join(this.dir, '..data_tmp'));
    await rename(path.join(this.dir, '..data_tmp'), path.join(this.dir, '..data'));
    for (const name of Object.keys(files)) {
      await symlink(path.join('..data', name), path.join(this.dir, name)).catch(
        (err: NodeJS.ErrnoException) => {
          if (err.code !== 'EEXIST') throw err;
        },
      );
    }
    if (previous) {
      const old = await readdir(path.join(this.dir, previous));
      for (const name of old.filter((n) => !(n in files))) await rm(path.join(this.dir, name));
      await rm(path.join(this.dir, previous), { recursive: true });
    }
  }
}

async function fixtureFiles(): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const name of [
    'backends.yaml',
    'items.openapi.yaml',
    'lookup_item.v1.sculpt.yaml',
    'slow_call.v1.sculpt.yaml',
  ]) {
    files[name] = await readFile(path.join(FIXTURE, name), 'utf8');
  }
  return files;
}

describe('reload on change (SCULPTOR_RELOAD_ON_CHANGE)', { timeout: 60_000 }, () => {
  it('follows ConfigMap updates of the sculpts and of the callers file (the ..data symlink swap); refuses a bad one, keeping the old catalog', async () => {
    const backend = await backendFor();
    const root = await scratch();
    const sculpts = new ConfigMapVolume(path.join(root, 'sculpts', 'items'));
    const callersVolume = new ConfigMapVolume(path.join(root, 'callers'));
    const files = await fixtureFiles();
    await sculpts.write(files);
    const callersFor = (token: string) =>
      `tenants:\n  acme:\n    callers:\n      - { name: agent, token: '\${${token}}' }\n`;
    await callersVolume.write({ 'callers.yaml': callersFor('TOKEN_A') });

    const gateway = await gatewayFor(path.join(root, 'sculpts'), backend, {
      SCULPTOR_RELOAD_ON_CHANGE: 'true',
      SCULPTOR_CALLERS: path.join(root, 'callers', 'callers.yaml'),
      TOKEN_A,
      TOKEN_B,
    });
    const a = { authorization: `Bearer ${TOKEN_A}` };
    const b = { authorization: `Bearer ${TOKEN_B}` };
    expect(events(gateway, 'serving')[0]).toMatchObject({ reload_on_change: true, tools: 2 });
    expect(await toolNames(gateway.url, a)).toEqual(['lookup_item', 'slow_call']);
    expect(output(await invoke(gateway.url, 'slow_call', { ms: 5 }, a), 'waited')).toBe(5);

    const traffic = load(gateway.url, 2, 30_000, a);
    await until('load to run', () => traffic.answered() >= 10);

    // A new version of the ConfigMap: one sculpt changed, one added.
    let mark = gateway.stdout.length;
    await sculpts.write({
      ...files,
      'slow_call.v1.sculpt.yaml': files['slow_call.v1.sculpt.yaml']!.replace(
        '$steps.wait.waited }',
        '0 - $steps.wait.waited }',
      ),
      'fail_call.v1.sculpt.yaml': await readFile(path.join(FIXTURE, 'fail_call.v1.sculpt.yaml'), 'utf8'),
    });
    expect(await reloadOutcome(gateway, mark)).toMatchObject({
      event: 'reloaded',
      trigger: 'change',
      generation: 2,
      tools: 3,
    });
    expect(await toolNames(gateway.url, a)).toEqual(['fail_call', 'lookup_item', 'slow_call']);
    expect(output(await invoke(gateway.url, 'slow_call', { ms: 5 }, a), 'waited')).toBe(-5);

    // A bad version: refused with its position, the catalog of generation 2 kept.
    mark = gateway.stdout.length;
    await sculpts.write({
      ...files,
      'slow_call.v1.sculpt.yaml': files['slow_call.v1.sculpt.yaml']!.replace(
        'call: items#slow',
        'call: items#slower',
      ),
    });
    expect(await reloadOutcome(gateway, mark)).toMatchObject({
      event: 'reload_refused',
      trigger: 'change',
      generation: 2,
    });
    const [error] = events(gateway, 'reload_error', mark);
    // The path the designer knows, not the hidden timestamped folder.
    expect(error!.file).toBe(path.join(root, 'sculpts', 'items', 'slow_call.v1.sculpt.yaml'));
    expect(await toolNames(gateway.url, a)).toEqual(['fail_call', 'lookup_item', 'slow_call']);
    expect(await metric(gateway.url, 'sculptor_last_reload_successful')).toBe(0);

    // Fixed, and the callers file's own ConfigMap updated: both picked up.
    mark = gateway.stdout.length;
    await sculpts.write(files);
    expect(await reloadOutcome(gateway, mark)).toMatchObject({ event: 'reloaded', generation: 3, tools: 2 });
    mark = gateway.stdout.length;
    await callersVolume.write({ 'callers.yaml': callersFor('TOKEN_B') });
    expect(await reloadOutcome(gateway, mark)).toMatchObject({ event: 'reloaded', generation: 4 });
    expect((await invoke(gateway.url, 'lookup_item', { name: 'x' }, b)).status).toBe(200);
    expect((await invoke(gateway.url, 'lookup_item', { name: 'x' }, a)).status).toBe(401);

    const { answered, failures } = await traffic.stop();
    // The load used TOKEN_A, refused from generation 4 on: only those 401s are expected.
    expect(failures.filter((f) => f.status !== 401)).toEqual([]);
    expect(answered).toBeGreaterThan(10);
    expect(await metric(gateway.url, 'sculptor_reloads_total{outcome="ok"}')).toBe(3);
    expect(await metric(gateway.url, 'sculptor_reloads_total{outcome="refused"}')).toBe(1);
  });
});

describe('the signature lock, enforced when serving', { timeout: 60_000 }, () => {
  it('serve refuses to start on a changed published version, naming it as check does (exit 1)', async () => {
    const backend = await backendFor();
    const dir = await copyFixture();
    await lock(dir, backend);
    const file = await editDescription(dir);
    await expect(gatewayFor(dir, backend)).rejects.toThrow(
      new RegExp(
        `${file.replaceAll('.', '\\.')}:2:10 lint\\.signature_drift The signature of slow_call version 1 changed`,
      ),
    );
  });

  it('a reload (SIGHUP) refuses it and keeps serving the locked version', async () => {
    const backend = await backendFor();
    const dir = await copyFixture();
    await lock(dir, backend);
    const gateway = await gatewayFor(dir, backend);
    const file = await editDescription(dir);
    const mark = gateway.stdout.length;
    gateway.child.kill('SIGHUP');
    expect(await reloadOutcome(gateway, mark)).toMatchObject({
      event: 'reload_refused',
      errors: 1,
      generation: 1,
    });
    expect(events(gateway, 'reload_error', mark)).toEqual([
      expect.objectContaining({
        code: 'lint.signature_drift',
        file,
        line: 2,
        column: 10,
        at: `${file}:2:10`,
      }),
    ]);
    expect(await description(gateway.url, 'slow_call')).toMatch(
      /^Asks the backend to answer after a delay\./,
    );
    expect(await metric(gateway.url, 'sculptor_reloads_total{outcome="refused"}')).toBe(1);
  });

  it('SCULPTOR_ALLOW_LOCK_DRIFT=true serves it, with a warning naming each change', async () => {
    const backend = await backendFor();
    const dir = await copyFixture();
    await lock(dir, backend);
    const file = await editDescription(dir);
    const gateway = await gatewayFor(dir, backend, { SCULPTOR_ALLOW_LOCK_DRIFT: 'true' });
    expect(events(gateway, 'lock_drift_allowed')).toEqual([
      expect.objectContaining({ level: 'warn', code: 'lint.signature_drift', at: `${file}:2:10` }),
    ]);
    expect(await description(gateway.url, 'slow_call')).toMatch(/^Waits, then answers\./);
  });
});
