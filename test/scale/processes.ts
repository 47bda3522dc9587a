import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * Real processes for the scale-out drills: redis-server as a plain node, a
 * Sentinel deployment or a Cluster, and nginx as the load balancer, each on loopback ports
 * of its own, in a temporary folder, stopped (SIGKILL at the latest) by `stop()`.
 */
const run = promisify(execFile);

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what}: not within ${timeoutMs} ms`);
}

export async function redisCli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], {
    timeout: 5000,
  });
  return stdout.trim();
}

export interface Processes {
  dir: string;
  /** Starts a process that is stopped with the others. */
  spawn(name: string, command: string, args: string[]): ChildProcess;
  kill(name: string): void;
  stop(): Promise<void>;
}

export async function processes(label: string): Promise<Processes> {
  const dir = await mkdtemp(path.join(tmpdir(), `sculptor-${label}-`));
  const children = new Map<string, ChildProcess>();
  return {
    dir,
    spawn(name, command, args) {
      // A process group of its own: nginx's workers (and anything else forked) go with it.
      const child = spawn(command, args, { cwd: dir, stdio: 'ignore', detached: true });
      children.set(name, child);
      return child;
    },
    kill(name) {
      killGroup(children.get(name));
    },
    async stop() {
      for (const child of children.values()) killGroup(child);
      if (!process.env.SCULPTOR_KEEP_DRILL_DIR) await rm(dir, { recursive: true, force: true });
    },
  };
}

function killGroup(child: ChildProcess | undefined): void {
  if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

const REDIS_ARGS = [
  ...['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'no'],
  // Replicas sync at once (the default waits 5 s to batch replicas).
  ...['--repl-diskless-sync-delay', '0'],
];

export async function startRedis(procs: Processes, name: string, extra: string[] = []): Promise<number> {
  const port = await freePort();
  procs.spawn(name, 'redis-server', ['--port', String(port), ...REDIS_ARGS, '--dir', procs.dir, ...extra]);
  await until(`redis ${name}`, async () => (await redisCli(port, 'PING')) === 'PONG', 5000);
  return port;
}

/** 1 primary, 1 replica, 3 sentinels (quorum 2), failing over after 1 s down. */
export async function startSentinel(procs: Processes): Promise<{
  url: string;
  primaryPort: number;
  sentinelPorts: number[];
  currentPrimary(): Promise<number>;
}> {
  const primaryPort = await startRedis(procs, 'primary');
  const replicaPort = await startRedis(procs, 'replica', ['--replicaof', '127.0.0.1', String(primaryPort)]);
  await until(
    'replica in sync',
    async () => (await redisCli(replicaPort, 'INFO', 'replication')).includes('master_link_status:up'),
    10_000,
  );
  const sentinelPorts: number[] = [];
  for (const i of [1, 2, 3]) {
    const port = await freePort();
    const conf = path.join(procs.dir, `sentinel-${i}.conf`);
    await writeFile(
      conf,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        'protected-mode no',
        `dir ${procs.dir}`,
        `sentinel monitor drill 127.0.0.1 ${primaryPort} 2`,
        'sentinel down-after-milliseconds drill 1000',
        'sentinel failover-timeout drill 5000',
        'sentinel parallel-syncs drill 1',
        '',
      ].join('\n'),
    );
    procs.spawn(`sentinel-${i}`, 'redis-server', [conf, '--sentinel']);
    sentinelPorts.push(port);
  }
  for (const port of sentinelPorts) {
    await until(
      'sentinel',
      async () => (await redisCli(port, 'SENTINEL', 'ckquorum', 'drill')).startsWith('OK'),
      10_000,
    );
  }
  return {
    url: `redis+sentinel://${sentinelPorts.map((p) => `127.0.0.1:${p}`).join(',')}/drill`,
    primaryPort,
    sentinelPorts,
    currentPrimary: async () =>
      Number(
        (await redisCli(sentinelPorts[0]!, 'SENTINEL', 'get-master-addr-by-name', 'drill')).split('\n')[1],
      ),
  };
}

/** 3 primaries + 3 replicas, a node considered failed after 1 s. */
export async function startCluster(procs: Processes): Promise<{ url: string; ports: number[] }> {
  const ports: number[] = [];
  for (const i of [1, 2, 3, 4, 5, 6]) {
    ports.push(
      await startRedis(procs, `node-${i}`, [
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        `nodes-${i}.conf`,
        '--cluster-node-timeout',
        '1000',
        '--logfile',
        `node-${i}.log`,
      ]),
    );
  }
  await run(
    'redis-cli',
    [
      '--cluster',
      'create',
      ...ports.map((p) => `127.0.0.1:${p}`),
      '--cluster-replicas',
      '1',
      '--cluster-yes',
    ],
    { timeout: 20_000 },
  );
  for (const port of ports) {
    await until(
      'cluster ok',
      async () => (await redisCli(port, 'CLUSTER', 'INFO')).includes('cluster_state:ok'),
      15_000,
    );
  }
  // A replica that has not finished its first sync cannot take over: wait for every link.
  await until(
    'replicas in sync',
    async () => {
      const roles = await Promise.all(ports.map((p) => redisCli(p, 'INFO', 'replication')));
      const replicas = roles.filter((r) => r.includes('role:slave'));
      return replicas.length === 3 && replicas.every((r) => r.includes('master_link_status:up'));
    },
    15_000,
  );
  return {
    url: `redis-cluster://${ports
      .slice(0, 3)
      .map((p) => `127.0.0.1:${p}`)
      .join(',')}`,
    ports,
  };
}

/** The primaries of a running cluster, by port. */
export async function clusterPrimaries(anyPort: number): Promise<number[]> {
  const nodes = await redisCli(anyPort, 'CLUSTER', 'NODES');
  return nodes
    .split('\n')
    .filter((line) => / master /.test(line.replace('myself,', '')) && !line.includes('fail'))
    .map((line) => Number(/:(\d+)@/.exec(line)![1]));
}

/**
 * nginx in front of `upstreams`, retrying a request on the next replica when the connection
 * to one fails — POSTs included (`non_idempotent`; a request cut by a replica's death may have
 * reached its backend: acceptable for read-only tools, and said in docs/SCALING.md). A 502/503
 * answered by a gateway is its verdict (a backend down, a bulkhead) and is passed on, not retried.
 */
export async function startNginx(procs: Processes, upstreams: string[]): Promise<string> {
  const port = await freePort();
  const conf = path.join(procs.dir, 'nginx.conf');
  await writeFile(
    conf,
    `worker_processes 1;
pid ${procs.dir}/nginx.pid;
error_log ${procs.dir}/nginx-error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${procs.dir}/body;
  proxy_temp_path ${procs.dir}/proxy;
  fastcgi_temp_path ${procs.dir}/fastcgi;
  uwsgi_temp_path ${procs.dir}/uwsgi;
  scgi_temp_path ${procs.dir}/scgi;
  upstream gateways {
${upstreams.map((u) => `    server ${u.replace(/^http:\/\//, '')} max_fails=3 fail_timeout=2s;`).join('\n')}
    keepalive 32;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://gateways;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      # The client's Host, as a reverse proxy in front of Sculptor should send it: the gateway
      # answers only Host names it knows (SCULPTOR_ALLOWED_HOSTS), and "gateways" is not one.
      proxy_set_header Host $host;
      proxy_next_upstream error timeout non_idempotent;
      proxy_next_upstream_tries 3;
      proxy_connect_timeout 1s;
      proxy_read_timeout 15s;
    }
  }
}
`,
  );
  procs.spawn('nginx', 'nginx', ['-c', conf, '-p', procs.dir, '-g', 'daemon off;']);
  await until('nginx', async () => (await fetch(`http://127.0.0.1:${port}/livez`)).ok, 5000);
  return `http://127.0.0.1:${port}`;
}
