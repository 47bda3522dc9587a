import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compileEach } from '../../src/compile/compile-sculpts.ts';

/**
 * The 183 workflows of the jentic corpus (40 real APIs, test/fixtures/arazzo/SOURCES.md), each
 * description served from a folder whose backends.yaml binds its one OpenAPI source: every
 * workflow either becomes a listed tool or is refused, each refusal with its code and at its
 * position. The counts are pinned: a change that serves more (or fewer) must say why here.
 */
const CORPUS = path.resolve('test/fixtures/arazzo/jentic');
const folders: string[] = [];
afterAll(() => folders.forEach((f) => rmSync(f, { recursive: true, force: true })));

interface Outcome {
  tools: number;
  /** Refused workflows, by the code of their first error. */
  refused: Record<string, number>;
  workflows: number;
  positioned: boolean;
  /** Credential parameters the refusals name, by provider: what backends.yaml's auth is told to send. */
  credentials: Map<string, Array<{ in: string; name: string }>>;
}

async function serveEach(credentials?: Map<string, Array<{ in: string; name: string }>>): Promise<Outcome> {
  const outcome: Outcome = { tools: 0, refused: {}, workflows: 0, positioned: true, credentials: new Map() };
  for (const provider of readdirSync(path.join(CORPUS, 'workflows')).sort()) {
    const file = path.join(CORPUS, 'workflows', provider, 'workflows.arazzo.json');
    const doc = JSON.parse(readFileSync(file, 'utf8')) as {
      sourceDescriptions: Array<{ url: string }>;
      workflows: Array<{ workflowId: string }>;
    };
    outcome.workflows += doc.workflows.length;
    const dir = mkdtempSync(path.join(tmpdir(), 'sculptor-jentic-'));
    folders.push(dir);
    const openapi = path.resolve(path.dirname(file), doc.sourceDescriptions[0]!.url);
    // As a deployer would write them: each credential from the environment.
    const auth = (credentials?.get(provider) ?? [])
      .map(
        (c, i) => `      - { in: ${c.in}, name: ${JSON.stringify(c.name)}, value: "\${CORPUS_KEY_${i}}" }\n`,
      )
      .join('');
    writeFileSync(
      path.join(dir, 'backends.yaml'),
      `backends:\n  api:\n    openapi: ${JSON.stringify(openapi)}\n    baseUrl: https://api.example.com\n` +
        (auth ? `    auth:\n${auth}` : '') +
        `arazzo:\n  corpus:\n    document: ${JSON.stringify(file)}\n`,
    );
    const env = { CORPUS_KEY_0: 'k0', CORPUS_KEY_1: 'k1', CORPUS_KEY_2: 'k2', CORPUS_KEY_3: 'k3' };
    const { tools, errors } = await compileEach(dir, env);
    outcome.tools += tools.length;
    // Every error of a workflow names it first; the description itself raised none.
    const byWorkflow = new Map<string, string>();
    const named = new Map<string, { in: string; name: string }>();
    for (const error of errors) {
      const id = /^Workflow '([^']+)'/.exec(error.message)?.[1];
      expect(id, error.format()).toBeDefined();
      if (!byWorkflow.has(id!)) byWorkflow.set(id!, error.code);
      if (error.at?.file !== file || error.at.line < 1) outcome.positioned = false;
      const credential = /(header|query|cookie) parameter '([^']+)' carries a credential/.exec(error.message);
      if (error.code === 'compile.forbidden_param' && credential) {
        const key = credential[1] === 'header' ? credential[2]!.toLowerCase() : credential[2]!;
        named.set(`${credential[1]}:${key}`, { in: credential[1]!, name: credential[2]! });
      }
    }
    if (named.size > 0) outcome.credentials.set(provider, [...named.values()]);
    for (const code of byWorkflow.values()) outcome.refused[code] = (outcome.refused[code] ?? 0) + 1;
    expect(tools.length + byWorkflow.size).toBe(doc.workflows.length);
  }
  return outcome;
}

describe('the jentic corpus: every workflow a tool or a clear refusal', () => {
  it('183 workflows: 103 tools, 80 refused, each for a reason named at its file:line:col', async () => {
    const outcome = await serveEach();
    expect(outcome.workflows).toBe(183);
    expect(outcome.tools).toBe(103);
    expect(outcome.positioned).toBe(true);
    expect(outcome.refused).toEqual({
      // An object input (a whole request body the agent would have to write): A2T inputs are
      // strings, integers, booleans or enums; a wrapping sculpt builds it (sculptor init --arazzo
      // flattens its fields into inputs). Also 32+ inputs, and input names that collide in snake case.
      'compile.input_type': 37,
      // An API key, access token, Authorization or Cookie taken from the workflow's inputs, on a
      // backend whose auth does not send it: a credential comes from backends.yaml, never from the
      // agent (the next test declares them, as the refusal says, and serves these workflows).
      'compile.forbidden_param': 36,
      // No outputs (the tool would answer nothing), or output names that collide in snake case.
      'compile.output_type': 5,
      // An image upload (image/jpeg body): Sculptor writes JSON, XML, form and multipart bodies.
      'compile.unsupported_feature': 1,
      // A JSONPath filter written inside a runtime expression ($steps.s.outputs.a[?(@.x=='y')].sid),
      // which the specification's grammar does not have: the message quotes it and names the outputs.
      'compile.arazzo': 1,
    });
  }, 120_000);

  it('with the credentials the refusals name declared under auth, those workflows are served', async () => {
    const first = await serveEach();
    // Each provider's credential parameters, as the refusals name them (at most 4 per backend).
    expect([...first.credentials.values()].every((c) => c.length <= 4)).toBe(true);
    const outcome = await serveEach(first.credentials);
    expect(outcome.workflows).toBe(183);
    expect(outcome.refused['compile.forbidden_param']).toBeUndefined();
    // 21 more tools: the backend sends each credential, and the inputs that carried it are no
    // longer the tool's. The rest of those workflows were hiding another reason behind the first.
    expect(outcome.tools).toBe(124);
    expect(outcome.refused).toEqual({
      'compile.input_type': 49,
      'compile.output_type': 5,
      'compile.unsupported_feature': 1,
      // Besides the one above: JSONPath written inside runtime expressions (items[*].id,
      // items[?(@.sent==false)].id), and a step output that the step does not declare.
      'compile.arazzo': 4,
    });
  }, 240_000);
});
