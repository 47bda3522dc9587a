#!/usr/bin/env node
import { readFile } from 'node:fs/promises';
import { checkJsonataSettings, readSettings, SettingsError } from '../config/settings.ts';
import { didYouMean } from '../designer/did-you-mean.ts';
import { ExportError } from '../designer/provider-exports.ts';
import { SculptLoadError, SculptorError } from '../errors/sculptor-error.ts';
import { runReplayCli } from '../replay/run-replay-cli.ts';
import { runGateway } from '../server/run-gateway.ts';
import { describeCli } from './atip.ts';
import {
  COMMANDS,
  commandNamed,
  type CommandSpec,
  helpText,
  type ParsedArgs,
  parseCommandArgs,
  USAGE,
  UsageError,
} from './command-table.ts';
import {
  checkCommand,
  diffCommand,
  exportCommand,
  initCommand,
  lockCommand,
  operationsCommand,
} from './designer-commands.ts';
import { invokeCommand } from './invoke-command.ts';
import { offlineFirst } from './offline.ts';
import { serveWatching } from './serve-watch.ts';
import { testCommand } from './test-command.ts';

/** Commands whose arguments the table parses; replay parses its own. */
const RUN: Record<string, (args: ParsedArgs) => Promise<number>> = {
  serve: (args) => offlineFirst(args, args.positionals[0], serveCommand),
  check: checkCommand,
  test: testCommand,
  init: initCommand,
  operations: operationsCommand,
  export: exportCommand,
  diff: diffCommand,
  lock: lockCommand,
  invoke: (args) => offlineFirst(args, args.positionals[1], invokeCommand),
  mcp: async (args) => offlineFirst(args, args.positionals[0], (await import('./mcp-command.ts')).mcpCommand),
  // Loaded on demand: the model client is needed by no other command.
  eval: async (args) => (await import('./eval-command.ts')).evalCommand(args),
  // Loaded on demand: the Studio brings its web server and page along, which no other command needs.
  studio: async (args) => (await import('./studio-command.ts')).studioCommand(args),
};

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '--agent') return agent(rest);
  if (command === '--version' || command === '-v' || command === 'version') {
    console.log(await versionText());
    return 0;
  }
  if (!command || command === '--help' || command === '-h') {
    console.log(USAGE);
    return command ? 0 : 2;
  }
  const spec = commandNamed(command);
  if (!spec) return unknown(command);
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(helpText(spec));
    return 0;
  }
  checkJsonataSettings(process.env);
  if (command === 'replay') {
    await runReplayCli(rest);
    return 0;
  }
  return RUN[command]!(parseCommandArgs(spec, rest));
}

/** `sculptor --agent [--commands=a,b]`: ATIP JSON on stdout, no side effects. */
function agent(args: string[]): number {
  const filter = args.find((a) => a.startsWith('--commands='));
  const names = filter
    ?.slice('--commands='.length)
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  const unknownNames = (names ?? []).filter((n) => !commandNamed(n));
  if (unknownNames.length > 0) {
    console.error(`Unknown command(s) in --commands: ${unknownNames.join(', ')}.`);
    return 2;
  }
  process.stdout.write(`${JSON.stringify(describeCli(names), null, 2)}\n`);
  return 0;
}

function unknown(command: string): number {
  const hint = didYouMean(command, [...COMMANDS.map((c) => c.name), 'version']);
  console.error(`Unknown command '${command}'.${hint}\n\n${USAGE}`);
  return 2;
}

/** `sculptor 0.1.0 (Node v24.21.0)`: the package's version, and the Node that runs it. */
async function versionText(): Promise<string> {
  const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return `sculptor ${pkg.version} (Node ${process.version})`;
}

function usage(spec: CommandSpec | undefined, message: string): number {
  console.error(`${message}\n`);
  console.error(spec ? helpText(spec) : USAGE);
  return 2;
}

async function serveCommand({ values, positionals }: ParsedArgs): Promise<number> {
  // A designer's server listens on loopback unless HOST says otherwise; a deployment's on every interface.
  const env = values.watch === true ? { HOST: '127.0.0.1', ...process.env } : process.env;
  const settings = readSettings(env, {
    ...(positionals[0] ? { sculpts: positionals[0] } : {}),
    ...(values['reload-on-change'] === true ? { reloadOnChange: true } : {}),
  });
  // The Studio under /studio, only when asked for, behind the callers' tokens (src/cli/studio-command.ts).
  const studio =
    values.studio === true
      ? await (await import('./studio-command.ts')).studioMount(settings.sculpts, settings.host, env)
      : undefined;
  const mounts = studio ? [studio.mount] : [];
  // The designer's dev server: reload on change, human-readable output (src/cli/serve-watch.ts).
  if (values.watch === true) process.exit(await serveWatching(settings, process.env, mounts));
  // Logs, drain on SIGTERM/SIGINT, crash handlers: src/server/run-gateway.ts.
  const code = await runGateway(settings, process.env, mounts);
  // Nothing left to wait for (a reconnecting Redis client, say) may keep a drained process alive.
  process.exit(code);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof SculptLoadError) {
      for (const e of err.errors) console.error(e.format());
      console.error(`\n${err.errors.length} error(s); nothing was served.`);
    } else if (err instanceof UsageError) {
      process.exitCode = usage(commandNamed(err.command), err.message);
      return;
    } else if (err instanceof SettingsError || err instanceof ExportError) {
      console.error(err.message);
    } else if (err instanceof SculptorError) {
      console.error(err.format());
    } else {
      console.error(err);
    }
    process.exitCode = 1;
  },
);
