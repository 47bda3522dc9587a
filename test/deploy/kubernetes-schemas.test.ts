import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { loadCallers } from '../../src/callers/load-callers.ts';
import { REPO } from '../server/gateway-process.ts';

/**
 * The Kubernetes manifests against the API's own schemas: kubernetes-models (the OpenAPI
 * definitions of a current Kubernetes release — resource.k8s.io/v1, GA in 1.34, is among them —
 * compiled into validators), for every file the base lists and the Secret example, and for what
 * `kubectl kustomize` renders from the base and from the production overlay (deploy/overlays/production),
 * whose settings (replicas, Redis, secrets, callers file, OTel endpoint) are checked to land.
 *
 * The validator refuses wrong types, missing required fields and bad formats; like kubeconform
 * without -strict it does not refuse unknown fields (the API server warns about those).
 * `kubectl` comes with the machine's google-cloud-cli (its kustomize 5.5); where it is missing the
 * rendering tests are skipped, with a note, except in CI where they must run.
 */

/* eslint-disable @typescript-eslint/no-explicit-any -- manifests are untyped YAML */
type Doc = any;

const temp: string[] = [];
afterAll(() => {
  for (const dir of temp) rmSync(dir, { recursive: true, force: true });
});

const base = join(REPO, 'deploy/kubernetes');
const overlay = join(REPO, 'deploy/overlays/production');
const parseDocs = (text: string): Doc[] =>
  parseAllDocuments(text).map((d) => {
    expect(d.errors).toEqual([]);
    return d.toJS();
  });
const load = (file: string): Doc[] => parseDocs(readFileSync(join(base, file), 'utf8'));

/** Validates one object with the model of its apiVersion and kind; resolves with the errors (none: ''). */
async function schemaErrors(doc: Doc): Promise<string> {
  const group = String(doc.apiVersion);
  const models = (await import(`kubernetes-models/${group}`)) as Record<
    string,
    new (data: unknown) => { validate(): void }
  >;
  const Model = models[doc.kind as string];
  if (!Model) return `no schema for ${group} ${doc.kind}`;
  try {
    new Model(doc).validate();
    return '';
  } catch (error) {
    return String(error);
  }
}

async function expectValid(docs: Doc[]): Promise<void> {
  expect(docs.length).toBeGreaterThan(0);
  for (const doc of docs) {
    expect(await schemaErrors(doc), `${doc.kind} ${doc.metadata?.name}`).toBe('');
  }
}

function whichKubectl(): string | undefined {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore', timeout: 10_000 });
    return 'kubectl';
  } catch {
    return undefined;
  }
}
const kubectl = whichKubectl();
if (!kubectl && process.env.CI)
  throw new Error('kubectl (google-cloud-cli) is missing: CI renders the kustomizations');
if (!kubectl)
  console.warn('kubectl not found: the kustomize rendering tests are skipped here (CI runs them)');
const kustomize = (dir: string): Doc[] =>
  parseDocs(execFileSync(kubectl!, ['kustomize', dir], { encoding: 'utf8', timeout: 30_000 }));

describe('deploy/kubernetes against the Kubernetes schemas', () => {
  const kustomization = load('kustomization.yaml')[0];
  const files = [...(kustomization.resources as string[]), 'secret.example.yaml'];

  it.each(files)('%s is valid', async (file) => {
    await expectValid(load(file));
  });

  it('the validator refuses what the API server would: a wrong type, a missing required field', async () => {
    const deployment = load('deployment.yaml')[0];
    const wrongType = structuredClone(deployment);
    wrongType.spec.replicas = 'two';
    expect(await schemaErrors(wrongType)).toMatch(/replicas must be integer/);
    const noImage = structuredClone(deployment);
    delete noImage.spec.template.spec.containers;
    expect(await schemaErrors(noImage)).toMatch(/must have required property containers/);
    const badProbe = structuredClone(deployment);
    badProbe.spec.template.spec.containers[0].readinessProbe.periodSeconds = '5s';
    expect(await schemaErrors(badProbe)).toMatch(/periodSeconds must be integer/);
  });
});

describe.skipIf(!kubectl)('kubectl kustomize: the base and the production overlay', () => {
  it('renders the base into valid objects, the ones the kustomization lists', async () => {
    const rendered = kustomize(base);
    await expectValid(rendered);
    const listed = (load('kustomization.yaml')[0].resources as string[]).flatMap(load);
    expect(rendered.map((d) => `${d.kind}/${d.metadata.name}`).sort()).toEqual(
      listed.map((d) => `${d.kind}/${d.metadata.name}`).sort(),
    );
  });

  const rendered = kubectl ? kustomize(overlay) : [];
  const find = (kind: string, name: string) =>
    rendered.find((d) => d.kind === kind && String(d.metadata.name).startsWith(name));
  const deployment = find('Deployment', 'sculptor-gateway');
  const container = deployment?.spec.template.spec.containers[0];
  const env = (name: string) => (container?.env as Doc[] | undefined)?.find((e) => e.name === name);

  it('renders the overlay into valid objects', async () => {
    await expectValid(rendered);
  });

  it('sets replicas and the autoscaler bounds', () => {
    expect(deployment.spec.replicas).toBe(3);
    expect(find('HorizontalPodAutoscaler', 'sculptor-gateway').spec).toMatchObject({
      minReplicas: 3,
      maxReplicas: 12,
    });
    expect(container.image).toBe('registry.example.com/platform/sculptor:0.1.0');
  });

  it('takes REDIS_URL from a Secret and leaves the in-cluster Redis out', () => {
    expect(env('REDIS_URL')).toEqual({
      name: 'REDIS_URL',
      valueFrom: { secretKeyRef: { name: 'sculptor-redis', key: 'REDIS_URL' } },
    });
    expect(rendered.filter((d) => d.metadata.name === 'sculptor-redis')).toEqual([]);
    expect(env('SCULPTOR_SECRET').valueFrom.secretKeyRef.name).toBe('sculptor-secrets');
  });

  it('points traces at the cluster Collector', () => {
    expect(env('OTEL_EXPORTER_OTLP_ENDPOINT').value).toBe('http://otel-collector.monitoring:4318');
  });

  it('mounts the callers file where SCULPTOR_CALLERS names it, and the file loads', async () => {
    const path = env('SCULPTOR_CALLERS').value as string;
    const mount = (container.volumeMounts as Doc[]).find((m) => m.mountPath === dirname(path));
    expect(mount).toMatchObject({ readOnly: true });
    const volume = (deployment.spec.template.spec.volumes as Doc[]).find((v) => v.name === mount.name);
    const configMap = find('ConfigMap', volume.configMap.name);
    expect(configMap.metadata.name).toBe(volume.configMap.name);
    const dir = mkdtempSync(join(tmpdir(), 'sculptor-callers-'));
    temp.push(dir);
    const file = join(dir, 'callers.yaml');
    writeFileSync(file, configMap.data['callers.yaml'] as string);
    const loaded = await loadCallers(file, { ACME_AGENT_TOKEN: 'an-agent-token-of-32-characters!' });
    expect(loaded.errors).toEqual([]);
    expect(loaded.directory).toBeDefined();
  });
});
