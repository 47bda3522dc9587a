/**
 * openapi-mcp-generator's server for the NWS description, as a user would get it: the generator
 * (pinned below) is installed into a folder of its own, generates a StreamableHTTP project from
 * the description, and that project's dependencies are installed as its own package.json asks
 * (caret ranges, so the report names the MCP SDK version they resolved to). Its TypeScript is
 * compiled module by module with the repository's TypeScript (its own build runs `tsc` and `shx`,
 * development dependencies a running server does not need), with one fix (BODY_READ below).
 * Everything lives under the bench cache folder and is reused by the next run; the first needs
 * the npm registry (≈ 1 min).
 *
 * The generator and its output are not dependencies of this repository: they need zod 3 and the
 * SDK's 1.x line, beside the gateway's zod 4 and SDK 2.x.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';

export const GENERATOR = { name: 'openapi-mcp-generator', version: '4.0.1' };

const run = promisify(execFile);

/** npm as the bench was started with it (`npm run bench`), else the one on PATH. */
export async function npm(args: string[], cwd: string): Promise<void> {
  const cli = process.env.npm_execpath;
  const [command, prefix] = cli?.endsWith('.js') ? [process.execPath, [cli]] : ['npm', []];
  await run(command, [...prefix, ...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    timeout: 300_000,
    maxBuffer: 16 * 1024 * 1024,
  });
}

export interface GeneratedPeer {
  /** The compiled entry point: `node <entry> --transport=streamable-http`, with PORT and API_BASE_URL. */
  entry: string;
  /** The MCP SDK version the generated project's dependencies resolved to. */
  sdkVersion: string;
}

/** Generates (or reuses) the server for `description` under `cacheDir`. */
export async function prepareGeneratedPeer(
  cacheDir: string,
  description: string,
  log: (line: string) => void,
): Promise<GeneratedPeer> {
  const home = path.join(cacheDir, `${GENERATOR.name}-${GENERATOR.version}`);
  const server = path.join(home, 'server');
  const entry = path.join(server, 'build', 'index.js');
  const readyMark = path.join(home, 'ready.json');
  // A changed description or fix prepares it again.
  const key = `${description} ${readFileSync(description).length} ${BODY_READ_FIXED}`;
  const ready = existsSync(readyMark) && (JSON.parse(readFileSync(readyMark, 'utf8')) as { key: string }).key;
  if (ready !== key) {
    log(`preparing ${GENERATOR.name} ${GENERATOR.version}'s server in ${home} (npm install, once)`);
    await rm(home, { recursive: true, force: true });
    const tool = path.join(home, 'tool');
    await mkdir(tool, { recursive: true });
    writeFileSync(
      path.join(tool, 'package.json'),
      JSON.stringify({ private: true, dependencies: { [GENERATOR.name]: GENERATOR.version } }),
    );
    await npm(['install', '--ignore-scripts'], tool);
    await run(
      process.execPath,
      [
        path.join(tool, 'node_modules', GENERATOR.name, 'bin', `${GENERATOR.name}.js`),
        '--input',
        description,
        '--output',
        server,
        '--transport=streamable-http',
        '--force',
      ],
      { timeout: 120_000 },
    );
    await npm(['install', '--ignore-scripts', '--omit=dev'], server);
    compile(server);
    writeFileSync(readyMark, JSON.stringify({ key }));
  }
  const sdk = JSON.parse(
    readFileSync(path.join(server, 'node_modules', '@modelcontextprotocol', 'sdk', 'package.json'), 'utf8'),
  ) as { version: string };
  return { entry, sdkVersion: sdk.version };
}

/**
 * The one change the generated server needs to answer more than one request: its POST handler
 * parses the body (`c.req.json()`, which consumes the request's stream) and then hands the same
 * request to fetch-to-node, whose reader throws "ReadableStream is locked" as an uncaught error
 * after the first answer — the process exits (Node 20 and 24, with the dependency versions its
 * package.json resolves to today). Parsing a clone leaves the stream to fetch-to-node.
 */
const BODY_READ = 'const body = await c.req.json();';
const BODY_READ_FIXED = 'const body = await c.req.raw.clone().json();';

/** src/*.ts → build/*.js, each module on its own (what `tsc` emits, without its type check). */
function compile(project: string): void {
  const src = path.join(project, 'src');
  const build = path.join(project, 'build');
  mkdirSync(build, { recursive: true });
  for (const file of readdirSync(src).filter((f) => f.endsWith('.ts'))) {
    let source = readFileSync(path.join(src, file), 'utf8');
    if (file === 'streamable-http.ts') {
      if (!source.includes(BODY_READ)) throw new Error(`${file} no longer reads the body as "${BODY_READ}"`);
      source = source.replace(BODY_READ, BODY_READ_FIXED);
    }
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      fileName: file,
    });
    const out = path.join(build, file.replace(/\.ts$/, '.js'));
    writeFileSync(out, outputText);
  }
}
