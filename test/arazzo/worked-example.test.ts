import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileSculpts } from '../../src/compile/compile-sculpts.ts';
import { createEngine } from '../../src/engine/invoke-tool.ts';
import { type BackendClient, createBackendClient } from '../../src/http/backend-client.ts';
import { type ShopBackend, startShopBackend } from './shop-backend.ts';

/**
 * docs/SCULPT-FORMAT.md's worked example, exactly as the page shows it: its backends file, its
 * Arazzo description and its wrapping sculpt, taken from the page's YAML blocks, compiled and run
 * against the loopback shop — so what the page claims about them is what Sculptor does.
 */
const DOC = path.resolve('docs/SCULPT-FORMAT.md');
let shop: ShopBackend;
let client: BackendClient;
let dir: string;

/** The page's YAML block whose first line names `file`. */
async function block(file: string): Promise<string> {
  const text = await readFile(DOC, 'utf8');
  const found = [...text.matchAll(/```yaml\n(# ([^\n]+)\n[\s\S]*?)```/g)].find((m) =>
    m[2]!.startsWith(`test/arazzo/fixtures/shop/${file}`),
  );
  if (!found) throw new Error(`docs/SCULPT-FORMAT.md shows no ${file}`);
  return found[1]!;
}

beforeAll(async () => {
  shop = await startShopBackend();
  client = createBackendClient();
  dir = await mkdtemp(path.join(tmpdir(), 'sculptor-worked-example-'));
  await copyFile('test/arazzo/fixtures/shop/openapi.yaml', path.join(dir, 'openapi.yaml'));
  await writeFile(path.join(dir, 'backends.yaml'), await block('backends.yaml'));
  await writeFile(path.join(dir, 'shop.arazzo.yaml'), await block('shop.arazzo.yaml'));
});
afterAll(async () => {
  await client?.close();
  await shop?.close();
  await rm(dir, { recursive: true, force: true });
});

const engine = () =>
  createEngine({ sender: client, cacheSecret: 'worked-example-0123456789abcdef', allowPrivateEgress: true });

describe('the worked example of docs/SCULPT-FORMAT.md', () => {
  it('served as it is: order_available_pet, its inputs and outputs as the page says, and it runs', async () => {
    const tools = await compileSculpts(dir, { SHOP_URL: shop.url });
    expect(tools.map((t) => t.signature.name)).toEqual(['order_available_pet']);
    const { signature } = tools[0]!;
    expect(signature.input_parameters.map((p) => [p.name, p.type, p.required])).toEqual([
      ['quantity', 'int', true],
      ['status', 'string', false],
    ]);
    expect(signature.output_parameters.map((p) => [p.name, p.type])).toEqual([
      ['order_id', 'json'],
      ['waitlist_position', 'json'],
    ]);
    const since = shop.requests.length;
    const result = await engine().invoke(tools[0]!, { quantity: 2 });
    expect(result.outputs.map((p) => [p.name, p.value])).toEqual([
      ['order_id', expect.stringMatching(/^ord-/)],
    ]);
    expect(shop.requests.slice(since).map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /pets?status=available',
      'POST /orders',
    ]);
  });

  it('wrapped by the sculpt: only order_pet is served, and it answers as its output says', async () => {
    await writeFile(path.join(dir, 'order_pet.v1.sculpt.yaml'), await block('order_pet.v1.sculpt.yaml'));
    const tools = await compileSculpts(dir, { SHOP_URL: shop.url });
    expect(tools.map((t) => t.signature.name)).toEqual(['order_pet']);
    const result = await engine().invoke(tools[0]!, { how_many: 1 });
    expect(result.outputs.map((p) => [p.name, p.value])).toEqual([['order', expect.stringMatching(/^ord-/)]]);
    // No pet pending: the waiting list, which the sculpt's output reads as WAITLIST.
    await writeFile(
      path.join(dir, 'order_pet.v1.sculpt.yaml'),
      (await block('order_pet.v1.sculpt.yaml')).replace('"status": "available"', '"status": "pending"'),
    );
    const [pending] = await compileSculpts(dir, { SHOP_URL: shop.url });
    const waiting = await engine().invoke(pending!, { how_many: 1 });
    expect(waiting.outputs.map((p) => [p.name, p.value])).toEqual([['order', 'WAITLIST']]);
  });
});
