import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { compileSculpts } from '../compile/compile-sculpts.ts';
import { loadRecordings, type ReplayServer, startReplayServer } from '../replay/index.ts';
import { replayEnv } from './point-at-replay.ts';
import { PLACEHOLDER_CREDENTIAL } from './run-sculpt-tests.ts';

/** What `--offline` sets up: the environment that answers every backend from the recordings. */
export interface OfflineBackends {
  /** Base URLs pointed at the replay server, private egress allowed, unset credentials as placeholders. */
  env: Record<string, string>;
  /** The replay server's origin. */
  url: string;
  /** The `recordings` folders it serves, relative to the sculpts folder. */
  recordings: string[];
  /** Credential variables that were unset and are sent as a placeholder. */
  placeholders: string[];
  close(): Promise<void>;
}

/**
 * `serve --offline`, `mcp --offline`, `invoke --offline`: every backend of a sculpt folder
 * answered by one replay server on 127.0.0.1 from the `recordings/` folders below it, as
 * `sculptor test` answers them — the base URLs pointed at it (each `${VAR:-default}` keeps its
 * path), loopback egress allowed (the replay server is on it) and every unset credential sent as
 * a placeholder (recordings never check one). Nothing leaves the machine; a request no
 * recording holds gets the replay server's 404 naming it.
 */
export async function startOfflineBackends(
  dir: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<OfflineBackends> {
  const root = path.resolve(dir);
  const recordings = await recordingFolders(root);
  if (recordings.length === 0) {
    throw new Error(
      `--offline answers the backends from recordings, and ${dir} has no recordings/ folder: record exchanges (HAR files or vcrpy cassettes) into <sculpt folder>/recordings/, or run without --offline.`,
    );
  }
  const server: ReplayServer = await startReplayServer(await loadRecordings(recordings), {
    host: '127.0.0.1',
    port: 0,
  });
  try {
    const bases = await replayEnv(root, server.url, env);
    const pointed = { ...env, ...bases, SCULPTOR_ALLOW_PRIVATE_EGRESS: 'true' };
    const placeholders = await unsetCredentials(root, pointed);
    return {
      env: {
        ...bases,
        SCULPTOR_ALLOW_PRIVATE_EGRESS: 'true',
        ...Object.fromEntries(placeholders.map((name) => [name, PLACEHOLDER_CREDENTIAL])),
      },
      url: server.url,
      recordings: recordings.map((r) => path.relative(root, r) || '.'),
      placeholders,
      close: () => server.close(),
    };
  } catch (err) {
    await server.close();
    throw err;
  }
}

/** Every folder named `recordings` below `root` (not those inside another one), sorted. */
async function recordingFolders(root: string): Promise<string[]> {
  const entries = await readdir(root, { withFileTypes: true, recursive: true });
  const folders = entries
    .filter((e) => e.isDirectory() && e.name === 'recordings')
    .map((e) => path.join(e.parentPath, e.name))
    .filter(
      (f) =>
        !path
          .relative(root, f)
          .split(path.sep)
          .some((p) => p.startsWith('.') || p === 'node_modules'),
    )
    .sort();
  return folders.filter((f) => !folders.some((other) => other !== f && f.startsWith(`${other}${path.sep}`)));
}

/** The credential variables the folder's backends read that are unset (none when it does not compile). */
async function unsetCredentials(root: string, env: Readonly<Record<string, string | undefined>>) {
  try {
    const tools = await compileSculpts(root, env);
    return [...new Set(tools.flatMap((t) => t.steps.flatMap((s) => s.backend.credentialsMissing)))].sort();
  } catch {
    return []; // the command that runs next reports what does not compile
  }
}
