import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Document, Spectral } from '@stoplight/spectral-core';
import * as Parsers from '@stoplight/spectral-parsers';
import { arazzo } from '@stoplight/spectral-rulesets';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { parseArazzo } from '../../src/arazzo/load-arazzo.ts';
import { compileSculpts } from '../../src/compile/compile-sculpts.ts';
import type { CompiledTool } from '../../src/compile/compile-tool.ts';
import { exportArazzo } from '../../src/designer/export-arazzo.ts';
import { ExportError } from '../../src/designer/provider-exports.ts';
import { createEngine } from '../../src/engine/invoke-tool.ts';
import { type BackendClient, createBackendClient } from '../../src/http/backend-client.ts';
import { type ShopBackend, startShopBackend } from './shop-backend.ts';

let shop: ShopBackend;
let client: BackendClient;
let chains: CompiledTool[];
const folders: string[] = [];

beforeAll(async () => {
  shop = await startShopBackend();
  client = createBackendClient();
  chains = await compileSculpts('test/arazzo/fixtures/chains', { SHOP_URL: shop.url });
});
afterAll(async () => {
  await client?.close();
  await shop?.close();
  for (const f of folders) rmSync(f, { recursive: true, force: true });
});

/** Written as `sculptor export --format arazzo --out DIR` writes it: the description and a copy of each source. */
function writeExport(tools: CompiledTool[]): { dir: string; file: string; text: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'sculptor-export-'));
  folders.push(dir);
  mkdirSync(path.join(dir, 'openapi'));
  const doc = exportArazzo(tools, (backend, file) => {
    copyFileSync(file, path.join(dir, 'openapi', `${backend}${path.extname(file)}`));
    return `openapi/${backend}${path.extname(file)}`;
  });
  const text = stringify(doc, { lineWidth: 0 });
  const file = path.join(dir, 'sculptor.arazzo.yaml');
  writeFileSync(file, text);
  return { dir, file, text };
}

describe('sculptor export --format arazzo', () => {
  it("passes Spectral's arazzo ruleset, an independent validator, with no error or warning", async () => {
    const { file, text } = writeExport(chains);
    const spectral = new Spectral();
    // The ruleset object as published; its type omits the optional `extends` the setter's type asks for.
    spectral.setRuleset(arazzo as Parameters<Spectral['setRuleset']>[0]);
    const results = await spectral.run(new Document(text, Parsers.Yaml, file));
    expect(results.map((r) => `${r.code} ${r.message} at ${r.path.join('.')}`)).toEqual([]);
  });

  it("passes the specification's JSON Schema as Sculptor loads it", () => {
    const { file, text } = writeExport(chains);
    expect(parseArazzo(file, text).errors).toEqual([]);
  });

  it('round trip: the exported workflow, served by Sculptor, answers as the native chain does', async () => {
    const { dir } = writeExport(chains);
    writeFileSync(
      path.join(dir, 'backends.yaml'),
      'backends:\n  shop:\n    openapi: openapi/shop.yaml\n    baseUrl: ${SHOP_URL}\n    allowPrivate: true\n' +
        'arazzo:\n  exported:\n    document: sculptor.arazzo.yaml\n',
    );
    const served = await compileSculpts(dir, { SHOP_URL: shop.url });
    const engine = createEngine({
      sender: client,
      cacheSecret: 'export-test-secret-0123',
      allowPrivateEgress: true,
    });
    const native = await engine.invoke(chains[0]!, { pet: 1, quantity: 2 });
    const exported = await engine.invoke(
      served.find((t) => t.signature.name === 'order_named_pet')!,
      {
        pet: 1,
        quantity: 2,
      },
    );
    const values = (r: typeof native) => Object.fromEntries(r.outputs.map((o) => [o.name, o.value]));
    expect(values(native)).toEqual({ order_id: expect.stringMatching(/^ord-/), pet_name: 'Rex' });
    expect(Object.keys(values(exported)).sort()).toEqual(['order_id', 'pet_name']);
    expect(values(exported).pet_name).toBe('Rex');
    expect(
      shop.requests
        .filter((r) => r.path === '/orders')
        .map((r) => r.body)
        .slice(-2),
    ).toEqual([
      { petId: 1, quantity: 2, note: 'gift' },
      { petId: 1, quantity: 2, note: 'gift' },
    ]);
    // The declared 404 outcome ends the exported workflow as failed too.
    await expect(engine.invoke(served[0]!, { pet: 2, quantity: 1 })).rejects.toMatchObject({
      code: 'upstream.error',
    });
  });

  it('refuses a chain whose JSONata computes, naming the expression', () => {
    const computing = {
      ...chains[0]!,
      output: { ...chains[0]!.output, source: '$uppercase($steps.pet.name)', ast: { type: 'function' } },
    };
    expect(() => exportArazzo([computing as CompiledTool], () => 'x.yaml')).toThrow(ExportError);
  });

  it('keeps the cache policy as an x-sculptor-cache extension', () => {
    const { text } = writeExport(chains);
    expect(text).toContain('x-sculptor-cache');
    expect(readFileSync(path.join(folders.at(-1)!, 'openapi', 'shop.yaml'), 'utf8')).toContain(
      'operationId: getPet',
    );
  });
});
