import packageJson from '../../package.json' with { type: 'json' };
import { COMMANDS, type CommandSpec } from './command-table.ts';

/** ATIP (Agent Tool Introspection Protocol) version this description follows. */
export const ATIP_VERSION = '0.1';

/**
 * `sculptor --agent`: the CLI describes itself in ATIP JSON (§3.1–3.6) —
 * commands with their arguments, options and effects — so an agent can
 * decide what to run without reading help text. `--commands=a,b` limits the
 * description to those commands (§3.1.1). No side effects.
 */
export function describeCli(filter?: string[]): Record<string, unknown> {
  const selected = filter ? COMMANDS.filter((c) => filter.includes(c.name)) : COMMANDS;
  const description: Record<string, unknown> = {
    atip: ATIP_VERSION,
    name: 'sculptor',
    version: packageJson.version,
    description: 'Turn REST APIs described by OpenAPI into sculpted A2T tools for AI agents, and serve them.',
    ...(filter
      ? {
          partial: true,
          filter: { commands: filter, depth: null },
          totalCommands: COMMANDS.length,
          includedCommands: selected.length,
        }
      : {}),
    commands: Object.fromEntries(selected.map((c) => [c.name, command(c)])),
    globalOptions: [
      { name: 'help', flags: ['-h', '--help'], type: 'boolean', description: 'Print help and exit.' },
      {
        name: 'agent',
        flags: ['--agent'],
        type: 'boolean',
        description: 'Print this ATIP description and exit.',
      },
    ],
    effects: {
      filesystem: { read: true, write: true, delete: false },
      network: true,
      subprocess: false,
      interactive: { stdin: 'none', prompts: false, tty: false },
    },
    patterns: [
      {
        name: 'designer-loop',
        description:
          'Scaffold a tool, check it, test it, serve it while editing, publish it, hand it to agents.',
        steps: [
          {
            command: 'sculptor init --openapi {openapi} --operation {operation} --out {dir}',
            description: 'Scaffold',
          },
          { command: 'sculptor check {dir}', description: 'Errors and lint warnings with file:line:col' },
          { command: 'sculptor test {dir}', description: 'Run *.test.yaml against recordings' },
          { command: 'sculptor serve {dir} --watch', description: 'Serve, reloading on change' },
          { command: 'sculptor lock {dir}', description: 'Publish: lock the signatures' },
          { command: 'sculptor export --format openai {dir}', description: 'Provider tool definitions' },
        ],
        variables: {
          openapi: { type: 'file', description: 'The OpenAPI document' },
          operation: { type: 'string', description: "An operationId or 'METHOD /path'" },
          dir: { type: 'directory', description: 'The sculpt folder' },
        },
      },
    ],
  };
  return description;
}

function command(c: CommandSpec): Record<string, unknown> {
  return {
    description: c.summary,
    arguments: c.arguments.map((a) => ({
      name: a.name,
      type: a.type,
      description: a.description,
      required: a.required,
      ...(a.variadic ? { variadic: true } : {}),
      ...(a.default !== undefined ? { default: a.default } : {}),
    })),
    options: c.options.map((o) => ({
      name: o.name,
      flags: [...(o.short ? [`-${o.short}`] : []), `--${o.name}`],
      type: o.type,
      description: o.description,
      ...(o.required ? { required: true } : {}),
      ...(o.multiple ? { variadic: true } : {}),
      ...(o.default !== undefined ? { default: o.default } : {}),
      ...(o.enum ? { enum: [...o.enum] } : {}),
      ...(o.envVar ? { envVar: o.envVar } : {}),
    })),
    effects: c.effects,
    examples: c.examples,
  };
}
