import { parseArgs } from 'node:util';
import { isSculptorError } from '../errors/sculptor-error.ts';
import { loadRecordings } from './load-recordings.ts';
import { type ReplayMode, startReplayServer } from './start-replay-server.ts';

const USAGE = 'usage: replay <files-or-dirs…> [--port N] [--host H] [--mode repeat|once]';

export interface ReplayCliOptions {
  /** Stops the server like SIGINT/SIGTERM do; lets tests run the CLI in-process. */
  signal?: AbortSignal;
  /** Where the one start-up line goes; stdout by default. */
  print?: (line: string) => void;
}

/**
 * `replay <files-or-dirs…> [--port N] [--host H] [--mode repeat|once]`: loads
 * the recordings, serves them and prints one line with the URL and the number
 * of exchanges. Resolves once stopped by SIGINT, SIGTERM or `signal`.
 */
export async function runReplayCli(argv: string[], options: ReplayCliOptions = {}): Promise<void> {
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  let parsed: ReturnType<typeof parseCliArgs>;
  try {
    parsed = parseCliArgs(argv);
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${USAGE}`, { cause: error });
  }
  const { values, positionals } = parsed;
  if (values.help) {
    print(USAGE);
    return;
  }
  if (positionals.length === 0) throw new Error(`no recordings given\n${USAGE}`);
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new Error(`--port must be an integer 0–65535, got ${values.port}\n${USAGE}`);
  }
  const mode = values.mode ?? 'repeat';
  if (mode !== 'repeat' && mode !== 'once')
    throw new Error(`--mode must be repeat or once, got ${mode}\n${USAGE}`);

  const exchanges = await loadRecordings(positionals);
  // Serving nothing would answer every request with a miss: surely a wrong path.
  if (exchanges.length === 0) throw new Error(`no recordings found in ${positionals.join(', ')}`);

  const server = await startReplayServer(exchanges, {
    port,
    mode: mode as ReplayMode,
    ...(values.host === undefined ? {} : { host: values.host }),
  });
  print(`replay: serving ${exchanges.length} recorded exchanges at ${server.url}`);

  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      options.signal?.removeEventListener('abort', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    if (options.signal?.aborted) stop();
    else options.signal?.addEventListener('abort', stop);
  });
  await server.close();
}

function parseCliArgs(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      mode: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

if (import.meta.main) {
  runReplayCli(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`${isSculptorError(error) ? error.format() : (error as Error).message}\n`);
    process.exitCode = 1;
  });
}
