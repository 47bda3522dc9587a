import { startOfflineBackends } from '../testing/offline-backends.ts';
import type { ParsedArgs } from './command-table.ts';
import { sculptsDir } from './designer-commands.ts';

/**
 * Runs a command with its backends answered from the recordings when `--offline` is given: the
 * replay server starts first and its environment (base URLs, private egress, placeholder
 * credentials) is the process's before the command reads any setting, so the command runs its
 * one ordinary path. Notes go to stderr (stdout is JSON-RPC for `mcp`, the answer for `invoke`).
 */
export async function offlineFirst(
  args: ParsedArgs,
  dir: string | undefined,
  run: (args: ParsedArgs) => Promise<number>,
): Promise<number> {
  if (args.values.offline !== true) return run(args);
  const offline = await startOfflineBackends(sculptsDir(dir), process.env);
  Object.assign(process.env, offline.env);
  const unset =
    offline.placeholders.length > 0 ? `; placeholders for ${offline.placeholders.join(', ')}` : '';
  console.error(
    `sculptor: offline: every backend is answered from ${offline.recordings.join(', ')} by a replay server at ${offline.url}${unset}.`,
  );
  try {
    return await run(args);
  } finally {
    await offline.close();
  }
}
