import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { compileSculpts } from '../../src/compile/compile-sculpts.ts';
import { toolIdFor } from '../../src/compile/tool-signature.ts';
import { readSettings, readTelemetrySettings } from '../../src/config/settings.ts';
import { runReplayCli } from '../../src/replay/run-replay-cli.ts';
import { createHostPolicy } from '../../src/server/host-policy.ts';
import { SHUTDOWN_MARGIN_MS } from '../../src/server/run-gateway.ts';
import { REPO } from '../server/gateway-process.ts';
import { invoke, startTestGateway } from '../support/start-test-gateway.ts';
import { envOf, execForm, readDockerfile } from './dockerfile.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- manifests are untyped YAML */
type Doc = any;

const temp: string[] = [];
afterAll(() => {
  for (const dir of temp) rmSync(dir, { recursive: true, force: true });
});

const dockerfile = readDockerfile(join(REPO, 'Dockerfile'));
const runtime = dockerfile.stages.at(-1)!;
const imageEnv: Record<string, string> = Object.assign(
  {},
  ...runtime.instructions.filter((i) => i.keyword === 'ENV').map((i) => envOf(i.args)),
);

/** ${VAR:-default} as compose resolves it with VAR unset. */
const composeValue = (value: unknown) => String(value).replace(/\$\{\w+:-([^}]*)\}/g, '$1');

describe('Dockerfile', () => {
  const find = (keyword: string) => runtime.instructions.find((i) => i.keyword === keyword)!;

  it('starts Node under tini, exec form, telemetry register first; never through npm', () => {
    expect(execForm(find('ENTRYPOINT').args)).toEqual(['/usr/bin/tini', '--']);
    const cmd = execForm(find('CMD').args);
    expect(cmd).toEqual([
      'node',
      '--max-semi-space-size=16',
      '--no-allocation-site-pretenuring',
      '--import',
      './src/telemetry/register.ts',
      'src/cli/main.ts',
      'serve',
    ]);
  });

  it('starts node as `npm start` does: same flags, same entry point', () => {
    const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
      scripts: { start: string };
    };
    const cmd = execForm(find('CMD').args);
    // npm start names the sample folder; the image takes it from SCULPTOR_SCULPTS. `exec` makes
    // node replace npm's shell, so a SIGTERM to npm reaches the gateway.
    expect(pkg.scripts.start).toBe(`exec ${cmd.join(' ')} sculpts`);
  });

  it('runs as the non-root node user, health-checks /readyz with node, serves the baked sculpts', () => {
    expect(find('USER').args).toBe('node');
    const check = execForm(find('HEALTHCHECK').args);
    expect(check[0]).toBe('node');
    expect(check.join(' ')).toContain('/readyz');
    expect(imageEnv.SCULPTOR_SCULPTS).toBe('/app/sculpts');
    expect(runtime.instructions.some((i) => i.keyword === 'COPY' && i.args === 'sculpts ./sculpts')).toBe(
      true,
    );
    expect(find('EXPOSE').args).toBe(imageEnv.PORT);
    expect(() => readSettings(imageEnv)).not.toThrow();
  });
});

describe('docker-compose.yml', () => {
  const compose = parse(readFileSync(join(REPO, 'docker-compose.yml'), 'utf8')) as Doc;
  const services = compose.services as Record<string, Doc>;
  const gatewayEnv = Object.fromEntries(
    Object.entries(services.gateway.environment as Record<string, unknown>).map(([k, v]) => [
      k,
      composeValue(v),
    ]),
  ) as Record<string, string>;
  const collector = parse(readFileSync(join(REPO, 'deploy/otel-collector.yaml'), 'utf8')) as Doc;

  it('runs the gateway, Redis, an OpenTelemetry Collector, Jaeger and the weather replay backend', () => {
    expect(Object.keys(services).sort()).toEqual(['gateway', 'jaeger', 'otel-collector', 'redis', 'replay']);
    expect(services.gateway.build).toBe('.');
    expect(services.gateway.ports).toContain(`${gatewayEnv.PORT}:${gatewayEnv.PORT}`);
  });

  it('gives the gateway settings that pass validation, with tracing on', () => {
    expect(() => readSettings(gatewayEnv)).not.toThrow();
    expect(readSettings(gatewayEnv)).toMatchObject({ allowPrivateEgress: true, secretFromEnv: true });
    expect(readTelemetrySettings(gatewayEnv).tracing).toBe(true);
  });

  it('points the gateway at services that exist, on the ports they listen on', () => {
    const redis = new URL(gatewayEnv.REDIS_URL!);
    expect(services[redis.hostname]).toBeDefined();
    expect(redis.port).toBe('6379');
    const otlp = new URL(gatewayEnv.OTEL_EXPORTER_OTLP_ENDPOINT!);
    expect(services[otlp.hostname]).toBeDefined();
    expect(collector.receivers.otlp.protocols.http.endpoint).toBe(`0.0.0.0:${otlp.port}`);
    const replayArgs = services.replay.command as string[];
    const replayPort = replayArgs[replayArgs.indexOf('--port') + 1];
    for (const name of ['NWS_BASE_URL', 'GEOCODER_BASE_URL']) {
      const url = new URL(gatewayEnv[name]!);
      expect([url.hostname, url.port]).toEqual(['replay', replayPort]);
    }
    const jaeger = collector.exporters['otlp_grpc/jaeger'].endpoint as string;
    expect(services[jaeger.split(':')[0]!]).toBeDefined();
    expect(collector.service.pipelines.traces).toEqual({
      receivers: ['otlp'],
      processors: ['memory_limiter', 'redaction', 'batch'],
      exporters: ['otlp_grpc/jaeger'],
    });
  });

  it('answers the names the demo reaches it by: localhost from the machine, its service name on the network', () => {
    const policy = createHostPolicy({
      bindAddress: readSettings(gatewayEnv).host,
      allowedHosts: readSettings(gatewayEnv).allowedHosts,
      callersConfigured: false,
    });
    expect(policy(`localhost:${gatewayEnv.PORT}`, undefined)).toBeUndefined();
    expect(policy(`gateway:${gatewayEnv.PORT}`, undefined)).toBeUndefined();
    expect(services.gateway).toBeDefined();
    expect(policy('evil.example', undefined)?.code).toBe('request.host_not_allowed');
  });

  it('lets the gateway drain inside its stop grace period, read-only and without capabilities', () => {
    const grace = Number(/^(\d+)s$/.exec(services.gateway.stop_grace_period)![1]) * 1000;
    expect(Number(gatewayEnv.SCULPTOR_DRAIN_MS) + SHUTDOWN_MARGIN_MS).toBeLessThanOrEqual(grace);
    expect(services.gateway.read_only).toBe(true);
    expect(services.gateway.cap_drop).toEqual(['ALL']);
  });

  it('serves the demo: the replay command as written, and the weather tool through it', async () => {
    const args = (services.replay.command as string[]).slice();
    expect(args.slice(0, 3)).toEqual(['node', 'src/cli/main.ts', 'replay']);
    // /app in the image is the repository here; loopback and an ephemeral port instead of 0.0.0.0:9091.
    const cli = args.slice(3).map((a) => a.replace(/^\/app\//, `${REPO}`));
    cli[cli.indexOf('--port') + 1] = '0';
    cli[cli.indexOf('--host') + 1] = '127.0.0.1';
    const stop = new AbortController();
    let replayUrl = '';
    const ready = new Promise<void>((resolve) => {
      void runReplayCli(cli, {
        signal: stop.signal,
        print: (line) => {
          replayUrl = /(http:\/\/\S+)/.exec(line)![1]!;
          resolve();
        },
      });
    });
    await ready;
    const gateway = await startTestGateway('sculpts', {
      ...gatewayEnv,
      NWS_BASE_URL: replayUrl,
      GEOCODER_BASE_URL: replayUrl,
    });
    try {
      const res = await invoke(gateway.url, `/tools/${toolIdFor('lookup_weather_by_city')}:invoke`, {
        name: 'lookup_weather_by_city',
        input_parameters: [{ name: 'city', value: 'New York' }],
      });
      expect(res.status).toBe(200);
      expect(res.body.output_parameters).toContainEqual({ name: 'forecast', value: 'Sunny' });
    } finally {
      await gateway.close();
      stop.abort();
    }
  });
});

describe('OpenTelemetry Collector config', () => {
  const collector = parse(readFileSync(join(REPO, 'deploy/otel-collector.yaml'), 'utf8')) as Doc;

  it('redacts by allowlist, and its value patterns are valid regular expressions', () => {
    const redaction = collector.processors.redaction;
    expect(redaction.allow_all_keys).toBe(false);
    for (const pattern of redaction.blocked_values as string[]) {
      // Go RE2 syntax; the ones used here are also valid JavaScript once (?i) becomes a flag.
      expect(() => new RegExp(pattern.replace(/^\(\?i\)/, ''), 'i')).not.toThrow();
    }
    const masks = (text: string) =>
      (redaction.blocked_values as string[]).some((p) =>
        new RegExp(p.replace(/^\(\?i\)/, ''), 'i').test(text),
      );
    expect(masks('Bearer abc.def-123')).toBe(true);
    expect(masks('https://h/x?api_key=sk123')).toBe(true);
    expect(masks('https://h/pets/{petId}')).toBe(false);
  });
});

describe('Kubernetes manifests', () => {
  const dir = join(REPO, 'deploy/kubernetes');
  const load = (file: string): Doc[] =>
    parseAllDocuments(readFileSync(join(dir, file), 'utf8')).map((d) => {
      expect(d.errors).toEqual([]);
      return d.toJS();
    });
  const kustomization = load('kustomization.yaml')[0];
  const docs: Doc[] = (kustomization.resources as string[]).flatMap(load);
  const secrets: Doc[] = load('secret.example.yaml');
  const get = (kind: string, name?: string): Doc => {
    const found = docs.filter((d) => d.kind === kind && (name === undefined || d.metadata.name === name));
    expect(found, `${kind} ${name ?? ''}`).toHaveLength(1);
    return found[0];
  };
  const deployment = get('Deployment', 'sculptor-gateway');
  const pod = deployment.spec.template.spec;
  const container = pod.containers[0];
  /** The namespace the pods are taken to run in: `$(POD_NAMESPACE)` references read as Kubernetes expands them. */
  const namespace = 'shop';
  const literalEnv: Record<string, string> = Object.fromEntries(
    (container.env as Doc[])
      .filter((e) => e.value !== undefined)
      .map((e) => [e.name, String(e.value).replaceAll('$(POD_NAMESPACE)', namespace)]),
  );
  const podLabels = deployment.spec.template.metadata.labels as Record<string, string>;
  const selects = (selector: Record<string, string>) =>
    Object.entries(selector).every(([k, v]) => podLabels[k] === v);

  it('lists only files that exist, and every file is listed or is the Secret example', () => {
    const files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));
    expect(files.sort()).toEqual(
      [...(kustomization.resources as string[]), 'kustomization.yaml', 'secret.example.yaml'].sort(),
    );
  });

  it('probes /livez and /readyz on the container port the gateway listens on', async () => {
    const port = container.ports.find((p: Doc) => p.name === 'http');
    expect(String(port.containerPort)).toBe(literalEnv.PORT);
    expect(container.livenessProbe.httpGet).toEqual({ path: '/livez', port: 'http' });
    expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
    expect(container.startupProbe.httpGet).toEqual({ path: '/livez', port: 'http' });
    // The probed paths are real routes of a gateway serving the ConfigMap's sculpts.
    const gateway = await startTestGateway(sculptsFromConfigMaps(), {});
    try {
      for (const probe of [container.livenessProbe, container.readinessProbe]) {
        expect((await fetch(`${gateway.url}${probe.httpGet.path}`)).status).toBe(200);
      }
    } finally {
      await gateway.close();
    }
  });

  it('runs as the image’s non-root user with a read-only root filesystem and no capabilities', () => {
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
    expect(container.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(container.resources.requests).toMatchObject({
      cpu: expect.any(String),
      memory: expect.any(String),
    });
    expect(container.resources.limits.memory).toBeDefined();
  });

  it('gives SIGTERM time: preStop + drain + shutdown margin fit the termination grace period', () => {
    const preStop = Number(container.lifecycle.preStop.exec.command[1]);
    const needed = preStop * 1000 + Number(literalEnv.SCULPTOR_DRAIN_MS) + SHUTDOWN_MARGIN_MS;
    expect(needed).toBeLessThanOrEqual(pod.terminationGracePeriodSeconds * 1000);
  });

  it('answers the Service by every name the cluster DNS gives it, and probes by the pod address', () => {
    const service = get('Service', 'sculptor');
    // Kubernetes expands $(VAR) from variables defined earlier in the list.
    const names = (container.env as Doc[]).map((e) => e.name as string);
    expect(names.indexOf('POD_NAMESPACE')).toBeLessThan(names.indexOf('SCULPTOR_ALLOWED_HOSTS'));
    const settings = readSettings(literalEnv);
    const policy = createHostPolicy({
      bindAddress: settings.host,
      allowedHosts: settings.allowedHosts,
      callersConfigured: false,
    });
    const name = service.metadata.name as string;
    for (const host of [
      name,
      `${name}.${namespace}`,
      `${name}.${namespace}.svc`,
      `${name}.${namespace}.svc.cluster.local:80`,
    ]) {
      expect(policy(host, undefined), host).toBeUndefined();
    }
    // Probes name the pod's IP address, which no page can rebind.
    expect(policy('10.244.1.7:8080', undefined)).toBeUndefined();
    expect(policy('evil.example', undefined)?.code).toBe('request.host_not_allowed');
  });

  it('has settings that pass validation, with tracing on and the secrets from Secrets', () => {
    const env = { ...literalEnv, SCULPTOR_SECRET: 'from-the-secret-0123456789' };
    expect(() => readSettings(env)).not.toThrow();
    expect(readTelemetrySettings(env).tracing).toBe(true);
    const secretRef = (container.env as Doc[]).find((e) => e.name === 'SCULPTOR_SECRET').valueFrom
      .secretKeyRef;
    const secret = secrets.find((s) => s.metadata.name === secretRef.name);
    expect(Object.keys(secret.stringData)).toContain(secretRef.key);
    expect(container.envFrom[0].secretRef.name).toBe('sculptor-backend-credentials');
  });

  it('mounts sculpt ConfigMaps below SCULPTOR_SCULPTS; they compile, and their credentials are in the Secret', async () => {
    for (const mount of container.volumeMounts as Doc[]) {
      expect(mount.mountPath.startsWith(`${literalEnv.SCULPTOR_SCULPTS}/`)).toBe(true);
      expect(mount.readOnly).toBe(true);
    }
    const tools = await compileSculpts(sculptsFromConfigMaps(), {});
    expect(tools.map((t) => t.signature.name)).toEqual(['count_pets_in_stock']);
    const credentials = secrets.find((s) => s.metadata.name === 'sculptor-backend-credentials');
    for (const missing of tools.flatMap((t) => t.steps.flatMap((s) => s.backend.credentialsMissing))) {
      expect(Object.keys(credentials.stringData)).toContain(missing);
    }
  });

  it('wires Service, PodDisruptionBudget, HPA, Redis and its NetworkPolicy to the gateway', () => {
    const service = get('Service', 'sculptor');
    expect(selects(service.spec.selector)).toBe(true);
    expect(service.spec.ports[0].targetPort).toBe('http');
    const pdb = get('PodDisruptionBudget');
    expect(selects(pdb.spec.selector.matchLabels)).toBe(true);
    const hpa = get('HorizontalPodAutoscaler');
    expect(hpa.spec.scaleTargetRef).toMatchObject({ kind: 'Deployment', name: deployment.metadata.name });
    expect(pdb.spec.minAvailable).toBeLessThan(hpa.spec.minReplicas);
    expect(deployment.spec.replicas).toBeGreaterThanOrEqual(hpa.spec.minReplicas);
    const redisUrl = new URL(literalEnv.REDIS_URL!);
    const redisService = get('Service', redisUrl.hostname);
    expect(String(redisService.spec.ports[0].port)).toBe(redisUrl.port);
    const policy = get('NetworkPolicy');
    expect(selects(policy.spec.ingress[0].from[0].podSelector.matchLabels)).toBe(true);
  });

  /** Writes each mounted ConfigMap's files where the pod would see them; returns SCULPTOR_SCULPTS. */
  function sculptsFromConfigMaps(): string {
    const root = mkdtempSync(join(tmpdir(), 'sculptor-configmaps-'));
    temp.push(root);
    for (const mount of container.volumeMounts as Doc[]) {
      const volume = (pod.volumes as Doc[]).find((v) => v.name === mount.name);
      const configMap = get('ConfigMap', volume.configMap.name);
      const target = join(root, mount.mountPath.slice(literalEnv.SCULPTOR_SCULPTS!.length + 1));
      mkdirSync(target, { recursive: true });
      for (const [file, text] of Object.entries(configMap.data as Record<string, string>)) {
        writeFileSync(join(target, file), text);
      }
    }
    return root;
  }
});
