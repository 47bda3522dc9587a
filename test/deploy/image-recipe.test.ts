import { type ChildProcess, spawn } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolIdFor } from '../../src/compile/tool-signature.ts';
import { REPO } from '../server/gateway-process.ts';
import { type PetstoreBackend, startPetstoreBackend } from '../support/petstore-backend.ts';
import { copyOf, dockerignore, envOf, execForm, readDockerfile, type Stage } from './dockerfile.ts';
import { reportFigures } from '../support/report-figures.ts';

/**
 * No Docker engine runs here, so the image recipe is shown another way: this
 * test replays the Dockerfile's own steps in a temporary directory — each
 * stage's WORKDIR, its COPYs (through .dockerignore), the deps stage's
 * `npm ci` (with --offline added: the npm cache, no network), the runtime
 * ENV, then the exact CMD as a non-root user — waits for readiness with the
 * HEALTHCHECK's own command, invokes a baked tool against a loopback backend,
 * sends SIGTERM and expects exit 0.
 *
 * Not shown here (needs an engine): the base image, the `os` stage (node, its libraries and tini
 * copied into the runtime's empty root), tini as PID 1. test/deploy/docker/run.sh builds and runs
 * the real image where a Docker daemon can run (CI).
 */
const dockerfile = readDockerfile(join(REPO, 'Dockerfile'));
const ignored = dockerignore(join(REPO, '.dockerignore'));
const root = mkdtempSync(join(tmpdir(), 'sculptor-image-'));
chmodSync(root, 0o755);
const stageDir = (stage: Stage) => join(root, stage.name ?? `stage${dockerfile.stages.indexOf(stage)}`);
const byName = (name: string) => dockerfile.stages.find((s) => s.name === name)!;
const runtime = dockerfile.stages.at(-1)!;
const first = (stage: Stage, keyword: string) => stage.instructions.find((i) => i.keyword === keyword);
const all = (stage: Stage, keyword: string) => stage.instructions.filter((i) => i.keyword === keyword);

let backend: PetstoreBackend;
let gateway: ChildProcess | undefined;
const timings: Record<string, number> = {};

/** COPY from the build context: only what .dockerignore lets through. */
function copyFromContext(source: string, target: string): void {
  const from = join(REPO, source);
  cpSync(from, target, {
    recursive: true,
    filter: (path) => {
      const rel = relative(REPO, path);
      return rel === '' || !ignored(rel);
    },
  });
}

/** Replays WORKDIR and COPY of one stage into its directory. */
function replayCopies(stage: Stage): void {
  const workdir = first(stage, 'WORKDIR')!.args;
  expect(workdir).toBe('/app');
  const dir = stageDir(stage);
  mkdirSync(dir, { recursive: true });
  for (const ins of all(stage, 'COPY')) {
    const copy = copyOf(ins.args);
    for (const source of copy.sources) {
      const target = copy.dest.endsWith('/')
        ? join(dir, copy.dest, source.split('/').at(-1)!)
        : join(dir, copy.dest);
      // The operating system the `os` stage assembles is this machine's own here.
      if (copy.from === 'os') continue;
      if (copy.from) {
        const fromStage = byName(copy.from);
        const fromWorkdir = first(fromStage, 'WORKDIR')!.args;
        cpSync(join(stageDir(fromStage), relative(fromWorkdir, source)), target, { recursive: true });
      } else {
        copyFromContext(source, target);
      }
    }
  }
}

function run(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs: number },
) {
  return new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} timed out:\n${output}`));
    }, options.timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The container's `node` is Node 24: so is the one running this test. */
const resolveNode = (argv: string[]) => (argv[0] === 'node' ? [process.execPath, ...argv.slice(1)] : argv);

beforeAll(async () => {
  backend = await startPetstoreBackend();
}, 10_000);

afterAll(async () => {
  if (gateway && gateway.exitCode === null) gateway.kill('SIGKILL');
  await backend?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('the Dockerfile, replayed step by step', () => {
  it('has production dependencies and the os files on node:24-slim, then a runtime from scratch', () => {
    expect(dockerfile.stages.map((s) => [s.name, s.image])).toEqual([
      ['deps', 'node:24-slim'],
      ['os', 'node:24-slim'],
      ['runtime', 'scratch'],
    ]);
  });

  it('deps stage: npm ci --omit=dev installs production dependencies only (offline, from the npm cache)', async () => {
    const deps = byName('deps');
    replayCopies(deps);
    const runLine = first(deps, 'RUN')!.args;
    const npmCi = runLine
      .split('&&')
      .map((p) => p.trim())
      .find((p) => p.startsWith('npm ci'))!;
    expect(npmCi).toMatch(/--omit=dev/);
    const started = performance.now();
    const { code, output } = await run('npm', [...npmCi.split(' ').slice(1), '--offline'], {
      cwd: stageDir(deps),
      timeoutMs: 150_000,
    });
    timings.npmCiMs = Math.round(performance.now() - started);
    expect(code, output).toBe(0);
    const modules = join(stageDir(deps), 'node_modules');
    for (const dep of ['hono', 'pino', 'prom-client', '@opentelemetry/sdk-node', 'ioredis']) {
      expect(existsSync(join(modules, dep)), dep).toBe(true);
    }
    // Development tools stay out, the `node` binary package above all (≈ 120 MB).
    for (const dev of ['vitest', 'typescript', 'eslint', 'node', 'fast-check', 'autocannon']) {
      expect(existsSync(join(modules, dev)), dev).toBe(false);
    }
  }, 180_000);

  it('runtime stage: holds package.json, src and sculpts, and nothing the .dockerignore keeps out', () => {
    replayCopies(runtime);
    const app = stageDir(runtime);
    expect(readdirSync(app).sort()).toEqual(['node_modules', 'package.json', 'sculpts', 'src']);
    expect(existsSync(join(app, 'src/telemetry/register.ts'))).toBe(true);
    expect(existsSync(join(app, 'sculpts/weather/backends.yaml'))).toBe(true);
    const walk = (dir: string): string[] =>
      readdirSync(dir).flatMap((n) => {
        const p = join(dir, n);
        return statSync(p).isDirectory() ? walk(p) : [relative(app, p)];
      });
    const files = walk(join(app, 'src')).concat(walk(join(app, 'sculpts')));
    expect(files.filter((f) => /(^|\/)(test|bench|node_modules)\//.test(f) || f.endsWith('.log'))).toEqual(
      [],
    );
  }, 60_000);

  it('runs the exact CMD as a non-root user: ready per its HEALTHCHECK, serves a tool, drains on SIGTERM, exits 0', async () => {
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '' };
    for (const ins of all(runtime, 'ENV')) Object.assign(env, envOf(ins.args));
    const user = first(runtime, 'USER')!.args;
    expect(user).not.toMatch(/^(root|0)$/);
    const exposed = Number(first(runtime, 'EXPOSE')!.args);
    expect(String(exposed)).toBe(env.PORT);
    // The container's port is private to it; here the loopback needs a free one.
    const port = await freePort();
    Object.assign(env, {
      PORT: String(port),
      HOST: '127.0.0.1',
      PETSTORE_BASE_URL: `${backend.url}/v2`,
      PETSTORE3_BASE_URL: `${backend.url}/api/v3`,
      SCULPTOR_ALLOW_PRIVATE_EGRESS: 'true',
      SCULPTOR_SECRET: 'image-recipe-secret-0123456789',
    });
    const cmd = resolveNode(execForm(first(runtime, 'CMD')!.args));
    const app = stageDir(runtime);
    // The container's /app is this stage's directory.
    expect(env.SCULPTOR_SCULPTS).toBe('/app/sculpts');
    env.SCULPTOR_SCULPTS = join(app, 'sculpts');
    // The image runs as `node` (uid 1000), which this machine lacks: any unprivileged uid shows the same.
    const asUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    const started = performance.now();
    const child = spawn(cmd[0]!, cmd.slice(1), {
      cwd: app,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...asUser,
    });
    gateway = child;
    let output = '';
    child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

    const healthcheck = resolveNode(execForm(first(runtime, 'HEALTHCHECK')!.args));
    let healthy = false;
    for (let i = 0; i < 60 && !healthy && child.exitCode === null; i++) {
      const probe = await run(healthcheck[0]!, healthcheck.slice(1), { cwd: app, env, timeoutMs: 5000 });
      healthy = probe.code === 0;
      if (!healthy) await new Promise((r) => setTimeout(r, 250));
    }
    expect(healthy, output).toBe(true);
    timings.readyMs = Math.round(performance.now() - started);
    const serving = output.split('\n').find((l) => l.includes('"event":"serving"'));
    expect(JSON.parse(serving!)).toMatchObject({ sculpts: join(app, 'sculpts'), tools: expect.any(Number) });

    const res = await fetch(`http://127.0.0.1:${port}/tools/${toolIdFor('describe_pet')}:invoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'describe_pet', input_parameters: [{ name: 'pet_number', value: 1 }] }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      output_parameters: expect.arrayContaining([{ name: 'name', value: 'Rex' }]),
    });

    const stopAt = performance.now();
    child.kill(first(runtime, 'STOPSIGNAL')!.args as NodeJS.Signals);
    expect(await exited, output).toBe(0);
    timings.stopMs = Math.round(performance.now() - stopAt);
    expect(timings.stopMs).toBeLessThan(Number(env.SCULPTOR_DRAIN_MS));
    expect(output).toContain('"event":"stopped"');
    reportFigures(
      `image recipe: npm ci ${timings.npmCiMs} ms, ready ${timings.readyMs} ms, stop ${timings.stopMs} ms`,
    );
  }, 60_000);
});
