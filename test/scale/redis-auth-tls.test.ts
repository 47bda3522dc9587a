/**
 * REDIS_URL with an ACL user and password, and over TLS, against real redis-server
 * processes: the gateway process caches through them (the second call is a hit: the backend sees
 * one request), and a wrong password is a fast miss, never a failed invocation. TLS trusts a CA
 * made here through NODE_EXTRA_CA_CERTS, as an enterprise trusts its own.
 */
import { execFile, execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolIdFor } from '../../src/compile/tool-signature.ts';
import { type LabBackend, labUser, startLabBackend } from '../engine/lab-backend.ts';
import { type GatewayProcess, startGatewayProcess } from '../server/gateway-process.ts';
import { ACME, GLOBEX, TENANCY_CALLERS, TENANCY_SCULPTS, tenancyEnv } from '../support/tenancy-fixture.ts';
import { freePort, type Processes, processes } from './processes.ts';

const run = promisify(execFile);
const missing = ['redis-server', 'redis-cli', 'openssl'].filter((tool) => {
  try {
    execFileSync('which', [tool], { stdio: 'ignore' });
    return false;
  } catch {
    return true;
  }
});
if (missing.length > 0 && process.env.CI) throw new Error(`CI needs ${missing.join(', ')} (see .ci/run)`);

const PASSWORD = 'app-pass-0123456789';
let procs: Processes;
let lab: LabBackend;
const gateways: GatewayProcess[] = [];

beforeAll(async () => {
  procs = await processes('redis-auth');
  lab = await startLabBackend();
});
afterAll(async () => {
  for (const g of gateways) g.kill();
  await lab?.close();
  await procs?.stop();
});

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 50; i++) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what}: not within 5 s`);
}

/** Two calls of a tool cached per caller: how many reached the backend, and the answers. */
async function twoCalls(gateway: GatewayProcess, token = GLOBEX) {
  const before = lab.requests.length;
  const answers = [];
  for (let i = 0; i < 2; i++) {
    const res = await fetch(`${gateway.url}/tools/${toolIdFor('tenant_whoami')}:invoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ name: 'tenant_whoami', input_parameters: [] }),
    });
    answers.push({ status: res.status, body: await res.json() });
  }
  return { backendCalls: lab.requests.length - before, answers };
}

/**
 * The gateway answers before its Redis connection is up (a cache that is not there yet is a
 * miss): calls as acme until one leaves its entry in Redis, so globex's calls below meet a
 * connected store.
 */
async function untilCaching(gateway: GatewayProcess, keys: () => Promise<number>): Promise<void> {
  await until(async () => {
    await twoCalls(gateway, ACME);
    return (await keys()) > 0;
  }, 'the gateway writing to Redis');
}

const served = (redisUrl: string, env: Record<string, string> = {}) =>
  startGatewayProcess({
    sculpts: TENANCY_SCULPTS,
    env: { ...tenancyEnv(lab), SCULPTOR_CALLERS: TENANCY_CALLERS, REDIS_URL: redisUrl, ...env },
  }).then((g) => (gateways.push(g), g));

describe.skipIf(missing.length > 0)('REDIS_URL with an ACL user, and over TLS', () => {
  it('an ACL user and password: the gateway caches through Redis; a wrong password is a miss, not a failure', async () => {
    const port = await freePort();
    procs.spawn('acl', 'redis-server', [
      ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      ...['--user', 'default', 'off', '--user', 'app', 'on', `>${PASSWORD}`, '~*', '&*', '+@all'],
    ]);
    const cli = (...args: string[]) =>
      run('redis-cli', [
        '-p',
        String(port),
        '--user',
        'app',
        '--pass',
        PASSWORD,
        '--no-auth-warning',
        ...args,
      ]);
    await until(async () => (await cli('PING')).stdout.trim() === 'PONG', 'redis with ACL');

    const gateway = await served(`redis://app:${PASSWORD}@127.0.0.1:${port}`);
    await untilCaching(gateway, async () => Number((await cli('DBSIZE')).stdout));
    const { backendCalls, answers } = await twoCalls(gateway);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(answers[1]!.body).toEqual({
      output_parameters: [{ name: 'user', value: labUser('globex-lab-key') }],
    });
    expect(backendCalls).toBe(1);
    // The password never reaches the log.
    expect(gateway.stdout.join('\n')).not.toContain(PASSWORD);

    const refused = await served(`redis://app:not-the-password@127.0.0.1:${port}`);
    const second = await twoCalls(refused);
    expect(second.answers.map((a) => a.status)).toEqual([200, 200]);
    expect(second.backendCalls).toBe(2);
  });

  it('rediss:// with a CA the deployment trusts (NODE_EXTRA_CA_CERTS): the gateway caches through TLS', async () => {
    const dir = procs.dir;
    const file = (name: string) => path.join(dir, name);
    await writeFile(file('san.cnf'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
    const ssl = (...args: string[]) => run('openssl', args, { cwd: dir, timeout: 20_000 });
    await ssl(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      '2',
      '-subj',
      '/CN=sculptor-test-ca',
    );
    await ssl(
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'redis.key',
      '-out',
      'redis.csr',
      '-subj',
      '/CN=localhost',
    );
    await ssl(
      'x509',
      '-req',
      '-in',
      'redis.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'redis.pem',
      '-days',
      '2',
      '-extfile',
      'san.cnf',
    );
    const port = await freePort();
    procs.spawn('tls', 'redis-server', [
      ...[
        '--port',
        '0',
        '--tls-port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
      ],
      ...[
        '--tls-cert-file',
        file('redis.pem'),
        '--tls-key-file',
        file('redis.key'),
        '--tls-ca-cert-file',
        file('ca.pem'),
      ],
      ...['--tls-auth-clients', 'no', '--requirepass', PASSWORD],
    ]);
    const cli = (...args: string[]) =>
      run('redis-cli', [
        '--tls',
        '--cacert',
        file('ca.pem'),
        '-p',
        String(port),
        '-a',
        PASSWORD,
        '--no-auth-warning',
        ...args,
      ]);
    await until(async () => (await cli('PING')).stdout.trim() === 'PONG', 'redis over TLS');

    const gateway = await served(`rediss://:${PASSWORD}@127.0.0.1:${port}`, {
      NODE_EXTRA_CA_CERTS: file('ca.pem'),
    });
    await untilCaching(gateway, async () => Number((await cli('DBSIZE')).stdout));
    const { backendCalls, answers } = await twoCalls(gateway);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(backendCalls).toBe(1);

    // Without the CA, the certificate is not trusted: Redis is unreachable, so a fast miss.
    const untrusted = await served(`rediss://:${PASSWORD}@127.0.0.1:${port}`);
    const second = await twoCalls(untrusted);
    expect(second.answers.map((a) => a.status)).toEqual([200, 200]);
    expect(second.backendCalls).toBe(2);
  });
});
