import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { compileSculpts } from '../../src/compile/compile-sculpts.ts';
import { checkSculpts } from '../../src/designer/check-sculpts.ts';
import { initSculpt } from '../../src/designer/init-sculpt.ts';
import { lintTools } from '../../src/designer/lint-tools.ts';
import { plural, singular } from '../../src/designer/plurals.ts';
import { routeName } from '../../src/designer/scaffold-names.ts';
import { enumName, snakeCase, toolNameFor } from '../../src/designer/scaffold-sculpt.ts';
import { createEngine } from '../../src/engine/invoke-tool.ts';
import type { BackendRequest } from '../../src/http/backend-client.ts';
import { writeStripeLike } from '../support/stripe-like-openapi.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const ORDERS = path.join(here, 'fixtures/orders.openapi.yaml');
const CUSTOMERS = path.join(here, 'fixtures/customers-3.1.openapi.yaml');

const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});
async function out(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sculptor-init-'));
  folders.push(dir);
  return dir;
}

describe('initSculpt on one operation', () => {
  it('exposes the semantic required parameters, typed as narrowly as A2T allows', async () => {
    const dir = await out();
    const result = await initSculpt({ openapi: ORDERS, operation: 'listShopOrders', out: dir });
    expect(result.toolName).toBe('list_orders_of_shop');
    expect(result.backends).toBe('created');
    const sculpt = parse(await readFile(result.sculptFile, 'utf8'));
    expect(sculpt.tool).toBe('list_orders_of_shop');
    expect(sculpt.description).toMatch(/Use it when the user asks to list the orders of a shop\.$/);
    expect(Object.keys(sculpt.inputs)).toEqual(['status', 'year', 'city']);
    expect(sculpt.inputs.status).toMatchObject({
      type: 'enum',
      description: 'Which orders to list, by status.',
    });
    expect(Object.keys(sculpt.inputs.status.values)).toEqual(['OPEN', 'CLOSED', 'ON_HOLD']);
    expect(sculpt.inputs.year).toMatchObject({ type: 'int', min: 2000, max: 2100 });
    expect(sculpt.inputs.city).toMatchObject({ type: 'string', maxLength: 80 });
  });

  it('hides ids, paging, formats and headers as constants, each with a REVIEW comment', async () => {
    const dir = await out();
    const result = await initSculpt({ openapi: ORDERS, operation: 'GET /shops/{shopId}/orders', out: dir });
    const text = await readFile(result.sculptFile, 'utf8');
    const params = parse(text).steps[0].params as string;
    expect(params).toContain('"shopId": "REPLACE_ME"');
    expect(params).toContain('"per_page": 10');
    expect(params).toContain('"format": "json"');
    expect(params).toContain('"X-Request-Id": "REPLACE_ME"');
    expect(params).not.toContain('Authorization');
    expect(params).not.toContain('note');
    expect(text).toMatch(
      /# REVIEW: shopId \(path\) — The shop's internal identifier: an identifier the LLM cannot know/,
    );
    expect(text).toMatch(/# REVIEW: per_page \(query\) — Results per page: a page size, fixed to 10/);
    expect(text).toMatch(/# note \(query\) — A free note: optional, left out/);
    expect(result.reviews).toBe((text.match(/# REVIEW:/g) ?? []).length);
  });

  it('trims the output to a few scalar fields of the success answer, preferred names first, plumbing left out', async () => {
    const dir = await out();
    const result = await initSculpt({ openapi: ORDERS, operation: 'listShopOrders', out: dir });
    const sculpt = parse(await readFile(result.sculptFile, 'utf8'));
    expect(Object.keys(sculpt.outputs)).toEqual(['name', 'status', 'created_at', 'total']);
    expect(sculpt.outputs.name.required).toBeUndefined(); // required in the schema: required here
    expect(sculpt.outputs.total).toMatchObject({
      type: 'int',
      required: false,
      description: 'How much the order costs, in cents.',
    });
  });

  it('writes a backends.yaml entry with credentials as an environment reference', async () => {
    const dir = await out();
    await initSculpt({ openapi: ORDERS, operation: 'listShopOrders', out: dir });
    const backends = parse(await readFile(path.join(dir, 'backends.yaml'), 'utf8'));
    expect(backends.backends.orders).toEqual({
      openapi: path.relative(dir, ORDERS).split(path.sep).join('/'),
      baseUrl: '${ORDERS_BASE_URL:-https://orders.example.com/v1}',
      headers: { Accept: 'application/json' },
      auth: [{ in: 'header', name: 'X-Api-Key', value: '${ORDERS_API_KEY}' }],
    });
  });

  it('adds to an existing backends.yaml, keeping its comments, and reuses a backend already using the document', async () => {
    const dir = await out();
    await writeFile(
      path.join(dir, 'backends.yaml'),
      '# Our backends.\nbackends:\n  other:\n    openapi: other.yaml # kept\n    baseUrl: https://other.example.com\n',
    );
    const first = await initSculpt({ openapi: ORDERS, operation: 'listShopOrders', out: dir });
    expect(first.backends).toBe('added');
    const text = await readFile(path.join(dir, 'backends.yaml'), 'utf8');
    expect(text).toMatch(/^# Our backends\./);
    expect(text).toMatch(/openapi: other\.yaml # kept/);
    expect(Object.keys(parse(text).backends)).toEqual(['other', 'orders']);
    const second = await initSculpt({
      openapi: ORDERS,
      operation: 'listShopOrders',
      out: dir,
      name: 'orders_again',
    });
    expect(second.backends).toBe('reused');
    expect(second.backend).toBe('orders');
  });

  it('refuses to overwrite a sculpt unless forced', async () => {
    const dir = await out();
    await initSculpt({ openapi: ORDERS, operation: 'listShopOrders', out: dir });
    await expect(initSculpt({ openapi: ORDERS, operation: 'listShopOrders', out: dir })).rejects.toThrow(
      /already exists/,
    );
    await expect(
      initSculpt({ openapi: ORDERS, operation: 'listShopOrders', out: dir, force: true }),
    ).resolves.toBeDefined();
  });

  it('names an unknown operation with close matches', async () => {
    const dir = await out();
    await expect(initSculpt({ openapi: ORDERS, operation: 'listShopOrder', out: dir })).rejects.toMatchObject(
      {
        code: 'compile.unknown_operation',
        message: expect.stringMatching(/Close matches: listShopOrders/),
      },
    );
  });

  it('compiles without lint warnings, and the engine maps the enum back to the backend value', async () => {
    const dir = await out();
    await initSculpt({ openapi: ORDERS, operation: 'listShopOrders', out: dir });
    const tools = await compileSculpts(dir, { ORDERS_API_KEY: 'key-from-env' });
    expect(lintTools(tools)).toEqual([]);
    const sent: BackendRequest[] = [];
    const engine = createEngine({
      sender: {
        async send(request) {
          sent.push(request);
          return {
            status: 200,
            headers: { 'content-type': 'application/json' },
            contentType: 'application/json',
            body: { id: 'o-1', name: 'Ada', status: 'on-hold', total: 1250, url: 'https://x' },
            bytes: 80,
          };
        },
      },
      cacheSecret: 'x'.repeat(32),
    });
    const answer = await engine.invoke(tools[0]!, {
      status: 'ON_HOLD',
      year: 2024,
      city: 'Lyon',
    });
    expect(new URL(sent[0]!.url).searchParams.get('status')).toBe('on-hold');
    expect(sent[0]!.headers['X-Api-Key']).toBe('key-from-env');
    expect(sent[0]!.url).toMatch(/^https:\/\/orders\.example\.com\/v1\/shops\/REPLACE_ME\/orders\?/);
    expect(answer.outputs).toEqual([
      { name: 'name', value: 'Ada' },
      { name: 'status', value: 'on-hold' },
      { name: 'total', value: 1250 },
    ]);
  });
});

describe('a scaffold a designer would keep', () => {
  /** The engine over the sculpt, its backend answering `body` to every call. */
  async function invokeAnswering(dir: string, body: unknown) {
    const tools = await compileSculpts(dir, {});
    const engine = createEngine({
      sender: {
        async send() {
          return {
            status: 200,
            headers: { 'content-type': 'application/json' },
            contentType: 'application/json',
            body,
            bytes: 100,
          };
        },
      },
      cacheSecret: 'x'.repeat(32),
    });
    const tool = tools[0]!;
    const args = Object.fromEntries(tool.signature.input_parameters.map((p) => [p.name, 'cus_1']));
    return engine.invoke(tool, args);
  }

  it('splits one object into a handful of its scalar fields, nullable ones optional, and names what it left out', async () => {
    const dir = await out();
    const result = await initSculpt({ openapi: CUSTOMERS, operation: 'GET /customers/{customer}', out: dir });
    expect(result.toolName).toBe('get_customer');
    const text = await readFile(result.sculptFile, 'utf8');
    const sculpt = parse(text);
    // Preferred names first; ids, constants (object), expandable ids (default_source) and livemode left out.
    expect(Object.keys(sculpt.outputs)).toEqual(['name', 'description', 'email', 'currency', 'created']);
    // Required and never null: required. Required but nullable (3.1 type list, anyOf null): optional.
    expect(sculpt.outputs.name.required).toBeUndefined();
    expect(sculpt.outputs.created.required).toBeUndefined();
    expect(sculpt.outputs.description.required).toBe(false);
    expect(sculpt.outputs.email.required).toBe(false);
    expect(sculpt.outputs.currency.required).toBe(false);
    expect(sculpt.outputs.email.description).toBe("The customer's email address.");
    expect(text).toMatch(
      /# REVIEW: the answer's other fields are left out: id, object, balance, address, livemode, default_source\. Add the ones users ask about, a nested one projected \(e\.g\. "address_city": \$steps\.customer\.address\.city\)\.$/m,
    );
    // A customer answered with a null description and email: the tool answers, without them.
    const answer = await invokeAnswering(dir, {
      id: 'cus_1',
      object: 'customer',
      name: 'Ada',
      description: null,
      email: null,
      created: 1700000000,
      balance: 0,
    });
    expect(answer.outputs).toEqual([
      { name: 'name', value: 'Ada' },
      { name: 'created', value: 1700000000 },
    ]);
  });

  it('reads OpenAPI 3.0 `nullable: true` and a oneOf of objects the same way (the generated Stripe-like description)', async () => {
    const dir = await out();
    const file = path.join(dir, 'stripe-like.json');
    await writeStripeLike(file, { resources: 6 }); // the sixth is customer
    const result = await initSculpt({ openapi: file, operation: 'GET /v1/customers/{customer}', out: dir });
    expect(result.toolName).toBe('get_customer');
    const sculpt = parse(await readFile(result.sculptFile, 'utf8'));
    expect(sculpt.description).toMatch(/^Retrieve a customer\. /);
    // `description` is nullable in that document: optional; `status` is required nowhere: optional too.
    expect(sculpt.outputs.description).toMatchObject({ type: 'string', required: false });
    expect(Object.keys(sculpt.outputs).length).toBeGreaterThanOrEqual(3);
    expect(Object.keys(sculpt.outputs)).not.toContain('result');
    const list = await initSculpt({ openapi: file, operation: 'GET /v1/customers', out: dir });
    expect(list.toolName).toBe('list_customers');
    expect(Object.keys(parse(await readFile(list.sculptFile, 'utf8')).outputs)).toEqual([
      'customers',
      'count',
    ]);
  });

  it('finds the fields of an answer in its envelope, and a deletion answering nothing useful reports success', async () => {
    const dir = await out();
    const me = await initSculpt({ openapi: CUSTOMERS, operation: 'GET /me', out: dir });
    expect(me.toolName).toBe('get_signed_in_customer');
    const text = await readFile(me.sculptFile, 'utf8');
    const sculpt = parse(text);
    expect(Object.keys(sculpt.outputs)).toEqual(['name', 'description', 'email', 'currency', 'created']);
    expect(sculpt.output).toContain('"name": $steps.me.data.name');
    expect(sculpt.outputs.name.required).toBeUndefined(); // required in a required envelope
    expect(text).toMatch(
      /# REVIEW: the answer's other fields are left out: data\.id, data\.object, .*, meta\./,
    );

    const deleted = await initSculpt({
      openapi: CUSTOMERS,
      operation: 'DELETE /customers/{customer}',
      out: dir,
    });
    expect(deleted.toolName).toBe('delete_customer');
    const gone = parse(await readFile(deleted.sculptFile, 'utf8'));
    expect(gone.outputs).toEqual({
      result: { type: 'string', description: 'Says that the customer was deleted.' },
    });
  });

  it('reads an object with fields of its own as one thing, whatever list it holds (a pet and its tags)', async () => {
    const dir = await out();
    const petstore = path.join(here, '../../sculpts/petstore/openapi/petstore.swagger.io-v2.swagger.yaml');
    const result = await initSculpt({ openapi: petstore, operation: 'getPetById', out: dir });
    const sculpt = parse(await readFile(result.sculptFile, 'utf8'));
    expect(Object.keys(sculpt.outputs)).toEqual(['name', 'status']);
    expect(sculpt.steps[0].params).toContain('"petId": "REPLACE_ME"');
  });

  it('hides every identifier as "REPLACE_ME", integer path ids too', async () => {
    const dir = await out();
    const result = await initSculpt({
      openapi: CUSTOMERS,
      operation: 'DELETE /invoices/{invoice_id}',
      out: dir,
    });
    expect(result.toolName).toBe('delete_invoice');
    const sculpt = parse(await readFile(result.sculptFile, 'utf8'));
    expect(sculpt.steps[0].params).toContain('"invoice_id": "REPLACE_ME"');
    expect(sculpt.steps[0].params).not.toMatch(/"invoice_id": 1\b/);
  });

  it('check finds each placeholder and mark at its line and column; --strict has something to fail on until they are gone', async () => {
    const dir = await out();
    const result = await initSculpt({
      openapi: CUSTOMERS,
      operation: 'DELETE /invoices/{invoice_id}',
      out: dir,
    });
    const text = await readFile(result.sculptFile, 'utf8');
    const check = await checkSculpts(dir, {});
    const errors = check.findings.filter((f) => f.severity === 'error');
    expect(errors).toEqual([]);
    const placeholders = check.findings.filter((f) => f.error.code === 'lint.placeholder');
    const lines = text.split('\n');
    expect(placeholders).toHaveLength(1);
    const at = placeholders[0]!.error.at!;
    expect(at.file).toBe(result.sculptFile);
    expect(lines[at.line - 1]!.slice(at.column - 1)).toMatch(/^REPLACE_ME"/);
    const marks = check.findings.filter((f) => f.error.code === 'lint.review_mark');
    const inSculpt = marks.filter((f) => f.error.at?.file === result.sculptFile);
    expect(inSculpt).toHaveLength(result.reviews);
    for (const f of inSculpt) {
      expect(lines[f.error.at!.line - 1]!.slice(f.error.at!.column - 1)).toMatch(/^# REVIEW: /);
    }
    expect(marks.some((f) => f.error.at?.file === result.testFile)).toBe(true);

    // A designer sets the value and deletes every mark: nothing is left to fail --strict.
    for (const file of [result.sculptFile, result.testFile, path.join(dir, 'backends.yaml')]) {
      const kept = (await readFile(file, 'utf8'))
        .split('\n')
        .filter((l) => !/^\s*# REVIEW:/.test(l))
        .map((l) => l.replace(/\s+# REVIEW:.*$/, '').replace('"REPLACE_ME"', '42'))
        .join('\n');
      await writeFile(file, kept);
    }
    const after = await checkSculpts(dir, {});
    expect(after.findings.filter((f) => /^lint\.(placeholder|review_mark)$/.test(f.error.code))).toEqual([]);
    expect(after.findings.filter((f) => f.severity === 'error')).toEqual([]);
  });
});

describe('names', () => {
  it.each([
    ['getPetById', 'get_pet_by_id'],
    ['repos/list-for-org', 'repos_list_for_org'],
    ["Get an Artist's Top Tracks", 'get_an_artists_top_tracks'],
    ['IsoCountryCode', 'iso_country_code'],
    ['HTTPServerName', 'http_server_name'],
    ['2fa', 'n_2fa'],
    ['Returns a list of tax IDs', 'returns_a_list_of_tax_ids'],
    ['imageURLs', 'image_urls'],
  ])('snakeCase(%s) = %s', (text, expected) => {
    expect(snakeCase(text)).toBe(expected);
  });

  it.each([
    ['available', 'AVAILABLE'],
    ['on-hold', 'ON_HOLD'],
    ['.json', 'JSON'],
    ['2xx', 'V_2XX'],
  ])('enumName(%s) = %s', (value, expected) => {
    expect(enumName(value)).toBe(expected);
  });

  const op = (o: object) => ({
    method: 'GET',
    path: '/albums/{id}',
    parameters: [],
    responses: {},
    security: [],
    deprecated: false,
    ...o,
  });

  it('derives a tool name from a short summary, else the operationId, else the route', () => {
    expect(toolNameFor(op({ summary: 'Get an Album', operationId: 'x' }))).toBe('get_album');
    expect(
      toolNameFor(op({ summary: 'One two three four five six seven', operationId: 'albums/fetch-one' })),
    ).toBe('albums_fetch_one');
    expect(toolNameFor(op({ description: '[Get an Album](https://example.com/docs)' }))).toBe('get_album');
    expect(toolNameFor(op({}))).toBe('get_album');
    expect(toolNameFor(op({ method: 'DELETE', path: '/users/{u}/things' }))).toBe('delete_user_things');
  });

  it("reads an operationId that only spells the route out (Stripe's) as the route: a verb and the right number", () => {
    const stripe = (method: string, path: string, operationId: string) =>
      toolNameFor(op({ method, path, operationId }));
    expect(stripe('GET', '/v1/customers/{customer}', 'GetCustomersCustomer')).toBe('get_customer');
    expect(stripe('GET', '/v1/customers', 'GetCustomers')).toBe('list_customers');
    expect(stripe('POST', '/v1/customers', 'PostCustomers')).toBe('create_customer');
    expect(stripe('POST', '/v1/customers/{customer}', 'PostCustomersCustomer')).toBe('update_customer');
    expect(stripe('DELETE', '/v1/customers/{customer}', 'DeleteCustomersCustomer')).toBe('delete_customer');
    // Words the route does not have make the operationId worth keeping.
    expect(stripe('GET', '/pet/{petId}', 'getPetById')).toBe('get_pet_by_id');
  });

  it('puts a summary in a user\'s words: the verb in the base form, retrieve as get, "all" and "a list of" as list', () => {
    const summary = (text: string) => toolNameFor(op({ summary: text, operationId: 'kept_if_no_summary' }));
    expect(summary('Retrieve a customer')).toBe('get_customer');
    expect(summary('Returns a list of pets')).toBe('list_pets');
    expect(summary('List all customers')).toBe('list_customers');
    expect(summary('Creates a pet')).toBe('create_pet');
    expect(summary('Searches the catalog')).toBe('search_catalog');
    // A generic noun after the real one goes, its number kept.
    expect(summary('Returns a list of local AvailablePhoneNumber resource representations')).toBe(
      'list_local_available_phone_numbers',
    );
    // A first word that is no verb is left alone.
    expect(summary('Status of an order')).toBe('status_of_order');
  });

  it('takes a description only when it opens with a verb and a few words, else the route', () => {
    const described = (description: string, path = '/v1/accounts/{account}') =>
      toolNameFor(op({ description, path }));
    expect(described('<p>Retrieves the details of an account.</p>')).toBe('get_account');
    expect(described('Get basic information about a user.', '/users/{user-id}')).toBe('get_user');
    expect(described('Retrieves a Customer object.', '/v1/customers/{customer}')).toBe('get_customer');
    // No verb first, or a sentence too long for a name: the route.
    expect(described('Permanently deletes an account. It cannot be undone.')).toBe('get_account');
    expect(described('Returns a list of messages associated with your account')).toBe('get_account');
  });

  it.each([
    ['GET', '/v1/customers/{customer}/sources/{id}', 'get_customer_source'],
    ['GET', '/v1/customers/{customer}/sources', 'list_customer_sources'],
    ['POST', '/v1/payment_intents/{intent}/confirm', 'confirm_payment_intent'],
    ['GET', '/v1/customers/search', 'search_customers'],
    ['GET', '/v1/balance', 'get_balance'],
    ['GET', '/v1/issuing/cards/{card}', 'get_issuing_card'],
    ['GET', '/repos/{owner}/{repo}/issues', 'list_repo_issues'],
    ['GET', '/Accounts/{AccountSid}/Messages{mediaTypeExtension}', 'list_account_messages'],
    ['GET', '/statuses/{id}', 'get_status'],
    ['GET', '/categories/{id}', 'get_category'],
    ['DELETE', '/addresses/{id}', 'delete_address'],
    ['PATCH', '/people/{id}', 'update_person'],
    ['GET', '/search', 'search'],
    ['GET', '/', 'get_root'],
  ])('routeName(%s %s) = %s', (method, path, expected) => {
    expect(routeName(method, path)).toBe(expected);
  });

  it.each([
    ['customers', 'customer'],
    ['payment_intents', 'payment_intent'],
    ['statuses', 'status'],
    ['addresses', 'address'],
    ['categories', 'category'],
    ['boxes', 'box'],
    ['branches', 'branch'],
    ['movies', 'movie'],
    ['people', 'person'],
    ['news', 'news'],
    ['status', 'status'],
  ])('singular(%s) = %s, and back', (many, one) => {
    expect(singular(many)).toBe(one);
    if (many !== one) expect(plural(one)).toBe(many);
  });
});
