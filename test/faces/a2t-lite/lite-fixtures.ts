/**
 * Sculpt folders for the a2t-lite and OpenAPI face tests, made in a temporary directory from the
 * project's own samples and fixtures, so that groups (folders) and a group of groups exist.
 */
import { cp, mkdir, mkdtemp, readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'yaml';

export const REPO = path.resolve(import.meta.dirname, '../../..');

/**
 * The samples, nested: `outdoors/weather` (lookup_weather_by_city), `pets/petstore`
 * (describe_pet, find_pets_by_status) and `pets/petstore3` (count_pets_in_stock,
 * list_available_pets). Groups: outdoors, outdoors.weather, pets, pets.petstore, pets.petstore3.
 */
export async function nestedSamples(): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'sculptor-lite-'));
  for (const [from, to] of [
    ['weather', 'outdoors/weather'],
    ['petstore', 'pets/petstore'],
    ['petstore3', 'pets/petstore3'],
  ] as const) {
    await cp(path.join(REPO, 'sculpts', from), path.join(root, to), { recursive: true });
  }
  return root;
}

/**
 * The tenancy fixture (test/hardening/fixtures/tenancy, its callers file beside it) in folders:
 * `stats` (public_stats: acme only), `tenant` (tenant_balance, tenant_whoami,
 * tenant_whoami_fresh) and `tenant/user` (user_whoami); one backends.yaml at the root.
 */
export async function nestedTenancy(): Promise<string> {
  const fixture = path.join(REPO, 'test/hardening/fixtures/tenancy');
  const root = await mkdtemp(path.join(tmpdir(), 'sculptor-lite-tenancy-'));
  await cp(fixture, root, { recursive: true });
  const backends = await readFile(path.join(root, 'backends.yaml'), 'utf8');
  await writeFile(
    path.join(root, 'backends.yaml'),
    backends.replaceAll('../../../engine/fixtures/', `${path.join(REPO, 'test/engine/fixtures')}/`),
  );
  await mkdir(path.join(root, 'stats'));
  await mkdir(path.join(root, 'tenant/user'), { recursive: true });
  await rename(
    path.join(root, 'public_stats.v1.sculpt.yaml'),
    path.join(root, 'stats/public_stats.v1.sculpt.yaml'),
  );
  for (const name of ['tenant_balance', 'tenant_whoami', 'tenant_whoami_fresh']) {
    await rename(path.join(root, `${name}.v1.sculpt.yaml`), path.join(root, `tenant/${name}.v1.sculpt.yaml`));
  }
  await rename(
    path.join(root, 'user_whoami.v1.sculpt.yaml'),
    path.join(root, 'tenant/user/user_whoami.v1.sculpt.yaml'),
  );
  return root;
}

export interface RankingCase {
  query: string;
  top?: string[];
  first?: string[];
  absent?: string[];
}

interface RankingFile {
  tools: { name: string; description: string; tags: string[]; inputs: Record<string, string> }[];
  cases: RankingCase[];
}

/** `createCalendarEvent` → `create_calendar_event`: sculpt names are snake case. */
export const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * test/cases/search-ranking.yaml as real sculpts: each tool a sculpt in the folder of its first
 * tag (so `billing`, `calendar`… are groups), calling the lab backend (never reached: the search
 * cases only list). Names are written in snake case, in the tools and in the cases alike.
 */
export async function rankingSculpts(): Promise<{
  root: string;
  cases: RankingCase[];
  folderOf: Map<string, string>;
}> {
  const data = parse(
    await readFile(path.join(REPO, 'test/cases/search-ranking.yaml'), 'utf8'),
  ) as RankingFile;
  const root = await mkdtemp(path.join(tmpdir(), 'sculptor-lite-ranking-'));
  await writeFile(
    path.join(root, 'backends.yaml'),
    stringify({
      backends: {
        lab: {
          openapi: path.join(REPO, 'test/engine/fixtures/lab/openapi/lab.openapi.yaml'),
          baseUrl: 'http://127.0.0.1:9',
          allowPrivate: true,
        },
      },
    }),
  );
  const folderOf = new Map<string, string>();
  for (const tool of data.tools) {
    const name = snake(tool.name);
    const folder = tool.tags[0]!;
    folderOf.set(name, folder);
    await mkdir(path.join(root, folder), { recursive: true });
    const inputs = Object.fromEntries(
      Object.entries(tool.inputs)
        // A flow mapping splits at commas: "The city's name, e.g. New York." makes a key of its
        // own, with no description; only real input names are kept.
        .filter(
          ([input, description]) => /^[a-z][A-Za-z0-9_]*$/.test(input) && typeof description === 'string',
        )
        .map(([input, description]) => [snake(input), { type: 'string', description }]),
    );
    await writeFile(
      path.join(root, folder, `${name}.v1.sculpt.yaml`),
      stringify({
        tool: name,
        version: 1,
        description: tool.description,
        tags: tool.tags,
        ...(Object.keys(inputs).length > 0 ? { inputs } : {}),
        outputs: { visits: { type: 'int', description: 'A counter.' } },
        steps: [{ id: 'stats', call: 'lab#stats' }],
        output: '{ "visits": $steps.stats.visits }',
      }),
    );
  }
  const cases = data.cases.map((c) => ({
    query: c.query,
    ...(c.top ? { top: c.top.map(snake) } : {}),
    ...(c.first ? { first: c.first.map(snake) } : {}),
    ...(c.absent ? { absent: c.absent.map(snake) } : {}),
  }));
  return { root, cases, folderOf };
}
