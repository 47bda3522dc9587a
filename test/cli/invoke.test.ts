import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copySamples, removeFolder, runCli } from './run-cli.ts';

/** A Petstore on loopback: pet 1, and 200 pets by status (far more than 2 KiB of JSON). */
let server: Server;
let base: string;
const seen: string[] = [];
let dir: string;
const KEY = 'k3y-that-must-never-show';

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.url ?? '');
    const url = new URL(req.url ?? '/', 'http://x');
    res.setHeader('content-type', 'application/json');
    if (url.pathname === '/v2/pet/1') {
      res.end(
        JSON.stringify({ id: 1, name: 'Rex', status: 'available', category: { name: 'Dogs' }, tags: [] }),
      );
    } else if (url.pathname === '/v2/pet/2' || url.pathname === '/v2/pet/3') {
      // A backend that echoes the credential it received: pet 2 in a field
      // the tool drops, pet 3 in one it returns; both far into the body, JSON-escaped as sent.
      const key = url.searchParams.get('api_key') ?? '';
      const pet = { id: 2, name: 'Echo', status: 'available', tags: [], filler: 'x'.repeat(1500) };
      res.end(
        JSON.stringify(
          url.pathname === '/v2/pet/2'
            ? { ...pet, category: { name: 'Dogs' }, request: { query: `api_key=${key}` } }
            : { ...pet, category: { name: key } },
        ),
      );
    } else if (url.pathname === '/v2/pet/findByStatus') {
      res.end(
        JSON.stringify(
          Array.from({ length: 200 }, (_, i) => ({ id: i, name: `Pet number ${i}`, status: 'available' })),
        ),
      );
    } else {
      res.statusCode = 404;
      res.end('{"message":"no"}');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = await copySamples('petstore');
  // Credentials in the query, from the environment: the debug view must name them, never show them.
  const backends = path.join(dir, 'backends.yaml');
  await writeFile(
    backends,
    (await readFile(backends, 'utf8')).replace(
      '      Accept: application/json',
      '      Accept: application/json\n    auth:\n      - { in: query, name: api_key, value: "${PET_KEY}" }',
    ),
  );
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await removeFolder(dir);
});

const env = () => ({ PETSTORE_BASE_URL: `${base}/v2`, SCULPTOR_ALLOW_PRIVATE_EGRESS: 'true', PET_KEY: KEY });

describe('sculptor invoke', { timeout: 60_000 }, () => {
  it('prints the A2T answer on stdout, and nothing else without --debug', async () => {
    const result = await runCli(['invoke', 'describe_pet', dir, '--input', 'pet_number=1'], { env: env() });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      output_parameters: [
        { name: 'name', value: 'Rex' },
        { name: 'status', value: 'AVAILABLE' },
        { name: 'category', value: 'Dogs' },
        { name: 'tags', value: [] },
      ],
    });
    expect(result.stderr).toBe('');
    // The credential was really sent…
    expect(seen.some((u) => u.includes(`api_key=${KEY}`))).toBe(true);
  });

  it('--debug shows per step the request (names only), the status, a 2 KiB body, the cache and timings', async () => {
    const result = await runCli(
      ['invoke', 'find_pets_by_status', dir, '-i', 'status=AVAILABLE', '-i', 'limit=2', '--debug'],
      { env: env() },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).output_parameters[1]).toEqual({ name: 'count', value: 200 });
    const debug = result.stderr;
    expect(debug).toMatch(/^── debug: find_pets_by_status v2 — ok in [\d.]+ ms$/m);
    expect(debug).toMatch(/^step find: petstore findPetsByStatus — ok, cache off, [\d.]+ ms$/m);
    expect(debug).toContain(`  → GET ${base}/v2/pet/findByStatus?status=available\n`);
    expect(debug).toMatch(/^ {4}headers: accept$/m);
    expect(debug).toMatch(/^ {4}credentials added: api_key \(query\)$/m);
    expect(debug).toMatch(/^ {2}← 200 application\/json, \d{4,} bytes$/m);
    const body = /^ {4}(\[\{"id":0.*) … \(2048 of (\d+) bytes shown\)$/m.exec(debug);
    expect(body).not.toBeNull();
    expect(Buffer.byteLength(body![1]!)).toBe(2048);
    // …but never shown.
    expect(debug).not.toContain(KEY);
    expect(result.stdout).not.toContain(KEY);
  });

  it('--debug redacts a credential the backend echoes in its answer', async () => {
    const result = await runCli(['invoke', 'describe_pet', dir, '--input', 'pet_number=2', '--debug'], {
      env: env(),
    });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).output_parameters[0]).toEqual({ name: 'name', value: 'Echo' });
    // The answer is shown (redacted), the key nowhere.
    expect(result.stderr).toContain('"request":{"query":"api_key=[REDACTED]"}');
    expect(result.stderr).not.toContain(KEY);
    expect(result.stdout).not.toContain(KEY);
  });

  it('an echoed credential in an output is refused (502 upstream.secret_echoed), and never printed', async () => {
    const result = await runCli(['invoke', 'describe_pet', dir, '--input', 'pet_number=3', '--debug'], {
      env: env(),
    });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 502, code: 'upstream.secret_echoed' });
    expect(result.stderr).toContain('"category":{"name":"[REDACTED]"}');
    expect(result.stderr + result.stdout).not.toContain(KEY);
  });

  it('answers a tool error as problem JSON (exit 1); an unknown tool or bad input option is explained', async () => {
    const missing = await runCli(['invoke', 'describe_pet', dir, '--input', 'pet_number=99', '--debug'], {
      env: env(),
    });
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout)).toMatchObject({ status: 422, code: 'tool.error', retryable: false });
    expect(missing.stderr).toMatch(/^ {2}← 404 application\/json, 16 bytes$/m);

    const invalid = await runCli(['invoke', 'describe_pet', dir, '--input', 'pet_number="ten"'], {
      env: env(),
    });
    expect(invalid.code).toBe(1);
    expect(JSON.parse(invalid.stdout)).toMatchObject({
      code: 'input.invalid',
      problems: [{ parameter: 'pet_number' }],
    });

    const unknown = await runCli(['invoke', 'no_such_tool', dir], { env: env() });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no tool 'no_such_tool'/);

    const malformed = await runCli(['invoke', 'describe_pet', dir, '--input', 'pet_number'], { env: env() });
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toMatch(/--input takes NAME=VALUE/);
  });
});
