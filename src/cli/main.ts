#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { compileSculpts } from '../compile/compile-sculpts.ts';
import { readSettings, SettingsError } from '../config/settings.ts';
import { SculptLoadError, SculptorError } from '../errors/sculptor-error.ts';
import { runReplayCli } from '../replay/run-replay-cli.ts';
import { runGateway } from '../server/run-gateway.ts';

const USAGE = `Usage: sculptor <command> [options]

Commands:
  serve [dir]                 Serve the sculpts in dir (default: $SCULPTOR_SCULPTS or ./sculpts) over A2T.
  check [dir]                 Load and compile every sculpt; print every error with file:line:col.
  replay <paths…> [--port N]  Serve recorded HTTP exchanges (vcrpy cassettes, HAR) on loopback.

Run 'sculptor <command> --help' for a command's options.`;

const HELP: Record<string, string> = {
  serve: `Usage: sculptor serve [dir]

Serves the sculpts in dir over the A2T protocol. Settings come from the
environment: PORT (8080), HOST (0.0.0.0), SCULPTOR_PREFIX, REDIS_URL (unset:
in-memory cache), SCULPTOR_SECRET, SCULPTOR_ALLOW_PRIVATE_EGRESS, LOG_LEVEL,
SCULPTOR_DRAIN_MS, and the OTEL_* variables for traces (start the process with
--import ./src/telemetry/register.ts). Logs are JSON lines on stdout; metrics
are at /metrics. See the README's settings table.`,
  check: `Usage: sculptor check [dir]

Loads and compiles every sculpt below dir without serving. Prints each error
as file:line:col code message. Exit status 0 when clean, 1 otherwise.`,
  replay: `Usage: sculptor replay <files-or-dirs…> [--port N] [--host H]

Serves recorded exchanges (vcrpy cassettes, HAR files) on 127.0.0.1, matching
method, path and query. Unmatched requests get a 404 naming the request.`,
};

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h') {
    console.log(USAGE);
    return command ? 0 : 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    if (!HELP[command]) return unknown(command);
    console.log(HELP[command]);
    return 0;
  }
  switch (command) {
    case 'serve':
      return serveCommand(rest);
    case 'check':
      return checkCommand(rest);
    case 'replay':
      await runReplayCli(rest);
      return 0;
    default:
      return unknown(command);
  }
}

function unknown(command: string): number {
  console.error(`Unknown command '${command}'.\n\n${USAGE}`);
  return 2;
}

async function serveCommand(args: string[]): Promise<number> {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  const settings = readSettings(process.env, positionals[0] ? { sculpts: positionals[0] } : {});
  // Logs, drain on SIGTERM/SIGINT, crash handlers: src/server/run-gateway.ts.
  const code = await runGateway(settings);
  // Nothing left to wait for (a reconnecting Redis client, say) may keep a drained process alive.
  process.exit(code);
}

async function checkCommand(args: string[]): Promise<number> {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  const dir = positionals[0] ?? process.env.SCULPTOR_SCULPTS ?? 'sculpts';
  const tools = await compileSculpts(dir);
  const names = new Set(tools.map((t) => t.signature.name));
  console.log(`sculptor check: ${dir}: ${tools.length} tool version(s) of ${names.size} tool(s), no errors.`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof SculptLoadError) {
      for (const e of err.errors) console.error(e.format());
      console.error(`\n${err.errors.length} error(s); nothing was served.`);
    } else if (err instanceof SettingsError) {
      console.error(err.message);
    } else if (err instanceof SculptorError) {
      console.error(err.format());
    } else {
      console.error(err);
    }
    process.exitCode = 1;
  },
);
