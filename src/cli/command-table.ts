import { parseArgs } from 'node:util';

/**
 * Every `sculptor` command, once: the help text, the option parser and the
 * ATIP description (`sculptor --agent`) are all derived from this table, so
 * they cannot disagree.
 */

/** ATIP §3.7 types. */
export type AtipType = 'string' | 'integer' | 'boolean' | 'file' | 'directory' | 'enum';

export interface OptionSpec {
  name: string;
  short?: string;
  type: AtipType;
  description: string;
  /** The placeholder shown in help, e.g. FILE. */
  value?: string;
  required?: boolean;
  multiple?: boolean;
  default?: string | number | boolean;
  enum?: readonly string[];
  envVar?: string;
}

export interface ArgumentSpec {
  name: string;
  type: AtipType;
  description: string;
  required: boolean;
  variadic?: boolean;
  default?: string;
}

/** ATIP §3.6, the fields that apply to a command-line tool like this one. */
export interface CommandEffects {
  filesystem: { read: boolean; write: boolean; delete: boolean; paths?: string[] };
  network: boolean;
  idempotent: boolean;
  reversible: boolean;
  destructive: boolean;
  creates?: string[];
  modifies?: string[];
  interactive: { stdin: 'none' | 'optional' | 'required'; prompts: boolean; tty: boolean };
  duration?: { typical: string; timeout?: string };
}

export interface CommandSpec {
  name: string;
  summary: string;
  /** Paragraphs after the usage line in `--help`. */
  details: string;
  arguments: ArgumentSpec[];
  options: OptionSpec[];
  effects: CommandEffects;
  examples: string[];
  /** Exit status meanings, for help. */
  exit?: string;
}

const SCULPTS_ARG: ArgumentSpec = {
  name: 'dir',
  type: 'directory',
  description: 'The folder of sculpts (default: $SCULPTOR_SCULPTS, else ./sculpts).',
  required: false,
  default: 'sculpts',
};

const READS_ONLY: CommandEffects = {
  filesystem: { read: true, write: false, delete: false },
  network: false,
  idempotent: true,
  reversible: true,
  destructive: false,
  interactive: { stdin: 'none', prompts: false, tty: false },
  duration: { typical: '<2s' },
};

export const COMMANDS: readonly CommandSpec[] = [
  {
    name: 'serve',
    summary: 'Serve the sculpts in dir over HTTP: A2T, MCP, a2t-lite and the OpenAPI document.',
    details: `Serves the sculpts in dir over the A2T protocol. Settings come from the
environment: PORT (8080), HOST (0.0.0.0), SCULPTOR_PREFIX, REDIS_URL (unset:
in-memory cache), SCULPTOR_SECRET, SCULPTOR_ALLOW_PRIVATE_EGRESS, LOG_LEVEL,
SCULPTOR_DRAIN_MS, and the OTEL_* variables for traces (start the process with
--import ./src/telemetry/register.ts). Logs are JSON lines on stdout; metrics
are at /metrics. See the README's settings table.

SIGHUP reloads the sculpts and the callers file: a catalog with errors is
refused (each error logged at file:line:col) and the old one kept. With
--reload-on-change (or SCULPTOR_RELOAD_ON_CHANGE=true) a change below dir or to
the callers file reloads too (a Kubernetes ConfigMap update included). When dir
holds a sculptor.lock.json, a catalog whose published versions changed
(lint.signature_drift, as check reports) is refused at start and on reload,
unless SCULPTOR_ALLOW_LOCK_DRIFT=true.

With --watch (for designers), the catalog is rebuilt whenever a file below dir
changes and swapped in atomically; a change that breaks a sculpt is reported
(file:line:col code message) and the last good catalog keeps being served.
Output is then human-readable lines instead of JSON logs, and the server
listens on 127.0.0.1 unless HOST is set.

With --studio, Sculptor Studio is served too, at /studio/ (off unless asked
for). Its API asks for a caller's bearer token when SCULPTOR_CALLERS is set;
without it the gateway must listen on loopback, or serve refuses to start.`,
    arguments: [SCULPTS_ARG],
    options: [
      {
        name: 'watch',
        short: 'w',
        type: 'boolean',
        description: 'Rebuild the catalog when files change; keep the last good one on errors.',
        default: false,
      },
      {
        name: 'studio',
        type: 'boolean',
        description: "Also serve the Studio at /studio/, behind the callers' authentication.",
        default: false,
      },
      {
        name: 'reload-on-change',
        type: 'boolean',
        description:
          'Reload when the sculpts or the callers file change, as on SIGHUP (SCULPTOR_RELOAD_ON_CHANGE).',
        default: false,
      },
    ],
    effects: { ...READS_ONLY, network: true, duration: { typical: 'until SIGINT or SIGTERM' } },
    examples: [
      'sculptor serve sculpts',
      'PORT=9090 sculptor serve sculpts --watch',
      'sculptor serve /etc/sculptor/sculpts --reload-on-change',
    ],
    exit: '0 after a clean shutdown; 1 when the sculpts do not load at start.',
  },
  {
    name: 'mcp',
    summary: 'Serve the sculpts in dir as MCP tools over stdio, for clients that launch their servers.',
    details: `Serves the same tools as serve's /mcp endpoint over stdin and stdout (MCP
2026-07-28 and 2025-era revisions), for desktop clients that start their MCP
servers themselves (Claude Desktop, Cursor, VS Code). stdout carries JSON-RPC
only; logs are JSON lines on stderr (LOG_LEVEL).

The process serves one caller: the anonymous one, or, when SCULPTOR_CALLERS is
set, the caller whose token SCULPTOR_MCP_TOKEN holds (its tenant's tools and
credentials). Backends are called for real. SIGHUP reloads the sculpts; with
--watch every change does; the client is told the tool list changed, and a
change that breaks a sculpt keeps the last good catalog.`,
    arguments: [SCULPTS_ARG],
    options: [
      {
        name: 'watch',
        short: 'w',
        type: 'boolean',
        description: 'Reload the sculpts when files change and tell the client (list_changed).',
        default: false,
      },
    ],
    effects: {
      filesystem: { read: true, write: false, delete: false },
      network: true,
      // It runs whatever the client's tool calls do: assume the worst.
      idempotent: false,
      reversible: false,
      destructive: true,
      interactive: { stdin: 'required', prompts: false, tty: false },
      duration: { typical: 'until stdin closes' },
    },
    examples: [
      'sculptor mcp sculpts',
      'SCULPTOR_CALLERS=callers.yaml SCULPTOR_MCP_TOKEN=… sculptor mcp sculpts',
    ],
    exit: '0 when the client closes stdin; 1 when the sculpts do not load or the caller is unknown.',
  },
  {
    name: 'check',
    summary: 'Load, compile and lint every sculpt; print every error and warning.',
    details: `Loads and compiles every sculpt below dir without serving, then lints what
compiled (lint.* warnings: programmatic inputs, whole backend objects in
outputs, unused inputs, unbounded $sort, optional inputs on a first version,
descriptions that do not say when to use the tool, the REPLACE_ME
placeholders and "# REVIEW:" marks init left…) and, when dir holds a
sculptor.lock.json, checks that no published version changed
(lint.signature_drift, an error). With --callers, also checks a callers
file against the tools as serve does (load.tenancy: a credential that
would reach another tenant's data). Each finding is printed as
file:line:col code message; warnings read "code warning: message".`,
    arguments: [SCULPTS_ARG],
    options: [
      {
        name: 'callers',
        type: 'string',
        description:
          'A callers file to check against the sculpts (what SCULPTOR_CALLERS names when serving).',
      },
      {
        name: 'strict',
        type: 'boolean',
        description: 'Fail (exit 1) on warnings too.',
        default: false,
      },
    ],
    effects: READS_ONLY,
    examples: [
      'sculptor check sculpts',
      'sculptor check sculpts --strict',
      'sculptor check sculpts --callers callers.yaml',
    ],
    exit: '0 when there is no error (and, with --strict, no warning); 1 otherwise.',
  },
  {
    name: 'test',
    summary: 'Run sculpt test files (*.test.yaml) against recorded backend exchanges.',
    details: `Runs sculpt test files, named or found below folders, with the sculpts
compiled as the gateway would and every backend call answered by a replay
server on 127.0.0.1 from the file's recordings. Prints each case as passed or
failed, with a diff of expected and actual outputs.`,
    arguments: [
      {
        name: 'paths',
        type: 'file',
        description: 'Test files or folders (default: $SCULPTOR_SCULPTS, else ./sculpts).',
        required: false,
        variadic: true,
      },
    ],
    options: [
      {
        name: 'sculpts',
        type: 'directory',
        value: 'DIR',
        description: "The sculpt folder for every file (default: each file's own).",
      },
    ],
    effects: { ...READS_ONLY, duration: { typical: '1-10s' } },
    examples: ['sculptor test sculpts', 'sculptor test sculpts/weather/lookup_weather_by_city.test.yaml'],
    exit: '0 when every case passes; 1 when one fails, a file cannot run, or no test file is found.',
  },
  {
    name: 'init',
    summary: 'Scaffold a sculpt for one OpenAPI operation.',
    details: `Writes <tool>.v1.sculpt.yaml and <tool>.test.yaml into --out, and a
backends.yaml entry for the document when the folder has none for it.
Required parameters that mean something to a user become inputs typed as
narrowly as A2T allows (enums with capitalized values, bounded integers,
strings with a maximum length); identifiers, paging, formats and headers are
hidden as constants ("REPLACE_ME" where a value must be set); the output is
a few fields of the success answer, each its own output. Every decision a
designer should check is marked "# REVIEW:". The result passes sculptor check
as written (no error); check --strict fails until every REPLACE_ME is set and
every REVIEW mark read and deleted.`,
    arguments: [],
    options: [
      {
        name: 'openapi',
        type: 'file',
        value: 'FILE',
        required: true,
        description: 'The OpenAPI 3.x or Swagger 2.0 document (JSON or YAML).',
      },
      {
        name: 'operation',
        type: 'string',
        value: 'ID',
        required: true,
        description: "The operation: its operationId, or 'METHOD /path' as written in the document.",
      },
      {
        name: 'out',
        type: 'directory',
        value: 'DIR',
        description: 'The sculpt folder to write into (created when missing).',
        default: '.',
      },
      {
        name: 'backend',
        type: 'string',
        value: 'NAME',
        description: 'Backend name (default: the one already using this document, else from its title).',
      },
      {
        name: 'name',
        type: 'string',
        value: 'TOOL',
        description: 'Tool name (default: from the summary, operationId or route).',
      },
      {
        name: 'force',
        type: 'boolean',
        description: 'Overwrite existing sculpt and test files.',
        default: false,
      },
    ],
    effects: {
      filesystem: { read: true, write: true, delete: false },
      network: false,
      idempotent: false,
      reversible: true,
      destructive: false,
      creates: ['sculpt_file', 'test_file', 'backends_file'],
      interactive: { stdin: 'none', prompts: false, tty: false },
      duration: { typical: '<5s' },
    },
    examples: [
      "sculptor init --openapi specs/spotify.yaml --operation 'GET /search' --out sculpts/spotify",
      'sculptor init --openapi github.yaml --operation repos/get --out sculpts/github',
    ],
    exit: '0 when the files were written; 1 when the document or operation cannot be used.',
  },
  {
    name: 'export',
    summary: "Print tool signatures in a provider's function-calling format.",
    details: `Prints the latest version of each tool (or --tool NAME, --version N) as JSON:
  openai      Chat Completions tools, strict mode (every property required,
              optional ones nullable, additionalProperties false, 1024-character
              descriptions)
  anthropic   Messages API tools (name, description, input_schema)
  gemini      {functionDeclarations: [...]} with the OpenAPI-subset Schema
  agent-tool  Agent Tool v0.2 tool_declarations with external_mappings
Effects (read-only, idempotent, destructive, reversible, billable) are folded
into provider descriptions as ATIP §8.2 asks, e.g. "[⚠️ DESTRUCTIVE]".`,
    arguments: [SCULPTS_ARG],
    options: [
      {
        name: 'format',
        short: 'f',
        type: 'enum',
        value: 'FORMAT',
        required: true,
        enum: ['openai', 'anthropic', 'gemini', 'agent-tool'],
        description: 'openai, anthropic, gemini or agent-tool.',
      },
      { name: 'tool', type: 'string', value: 'NAME', description: 'Only this tool.' },
      { name: 'version', type: 'integer', value: 'N', description: 'That version instead of the latest.' },
    ],
    effects: READS_ONLY,
    examples: [
      'sculptor export --format openai sculpts',
      'sculptor export --format gemini --tool describe_pet',
    ],
    exit: '0 when exported; 1 when the sculpts do not load or a tool cannot be exported.',
  },
  {
    name: 'diff',
    summary: "Show how a tool's signature changed between two versions, and whether A2T §5.4 holds.",
    details: `Compares the signatures of two versions of one tool (default: the last two)
and says whether the newer one keeps A2T §5.4: only optional inputs and new
outputs added.`,
    arguments: [{ name: 'name', type: 'string', description: 'The tool.', required: true }, SCULPTS_ARG],
    options: [
      {
        name: 'from',
        type: 'integer',
        value: 'N',
        description: 'The older version (default: the one before --to).',
      },
      { name: 'to', type: 'integer', value: 'M', description: 'The newer version (default: the latest).' },
      { name: 'json', type: 'boolean', description: 'Print the diff as JSON.', default: false },
    ],
    effects: READS_ONLY,
    examples: [
      'sculptor diff find_pets_by_status sculpts',
      'sculptor diff find_pets_by_status --from 1 --to 2',
    ],
    exit: '0 when A2T §5.4 holds; 1 when it breaks or the versions do not exist.',
  },
  {
    name: 'lock',
    summary: 'Write sculptor.lock.json: the signature hash of every tool version.',
    details: `Writes sculptor.lock.json in dir: for every tool version, sha256 of its
served A2T signature (canonical JSON). Locked versions are published: check
then fails with lint.signature_drift when one changes. Refuses to re-lock a
version whose signature changed, unless --force.`,
    arguments: [SCULPTS_ARG],
    options: [
      {
        name: 'force',
        type: 'boolean',
        description: 'Re-lock versions whose signature changed (only for versions no agent uses yet).',
        default: false,
      },
    ],
    effects: {
      filesystem: { read: true, write: true, delete: false },
      network: false,
      idempotent: true,
      reversible: true,
      destructive: false,
      modifies: ['lock_file'],
      interactive: { stdin: 'none', prompts: false, tty: false },
      duration: { typical: '<2s' },
    },
    examples: ['sculptor lock sculpts'],
    exit: '0 when written; 1 when the sculpts do not load or a locked signature changed.',
  },
  {
    name: 'invoke',
    summary: 'Invoke one tool once, directly (no server), optionally with a debug view.',
    details: `Compiles dir and invokes the tool through the engine, printing the A2T
answer (output_parameters) on stdout. With --debug, prints on stderr, per
step: the request (method, redacted URL, header names only), the answer's
status and body (at most 2 KiB), the cache outcome and timings.
Backends are called for real: the tool's effects apply.`,
    arguments: [{ name: 'name', type: 'string', description: 'The tool.', required: true }, SCULPTS_ARG],
    options: [
      {
        name: 'input',
        short: 'i',
        type: 'string',
        value: 'NAME=VALUE',
        multiple: true,
        description: 'An input; VALUE is read as JSON when it parses (10, true, "10"), else as text.',
      },
      {
        name: 'version',
        type: 'integer',
        value: 'N',
        description: 'Invoke that version (default: the latest).',
      },
      {
        name: 'debug',
        type: 'boolean',
        description: 'Print the per-step debug view on stderr.',
        default: false,
      },
    ],
    effects: {
      filesystem: { read: true, write: false, delete: false },
      network: true,
      // It runs whatever the tool does: assume the worst.
      idempotent: false,
      reversible: false,
      destructive: true,
      interactive: { stdin: 'none', prompts: false, tty: false },
      duration: { typical: '<10s', timeout: '29s' },
    },
    examples: ['sculptor invoke describe_pet sculpts --input pet_number=10 --debug'],
    exit: '0 when the tool answered; 1 when it failed (the problem is printed as JSON).',
  },
  {
    name: 'studio',
    summary: 'Open the Studio: see, run, trace and test the sculpts in dir in a browser.',
    details: `Serves Sculptor Studio at http://127.0.0.1:7070/studio/ (--port N for another
port): every tool
with its versions and the folder's errors and warnings (updated on save), each
tool as A2T and the LLM providers receive it with its size, a form that runs it
against its recordings (dir/<folder>/recordings) or the live backends, a
waterfall of its steps (request, status, bytes, cache, timing, result), a
JSONata playground over the last run, the diff between versions, and "save as
test", which writes a case into <tool>.test.yaml and the run's exchanges into
recordings/studio/. Only its own page may drive it (JSON requests from its own
origin, on a loopback name). With --host on another address it needs
SCULPTOR_CALLERS and asks for one of its bearer tokens.`,
    arguments: [SCULPTS_ARG],
    options: [
      {
        name: 'port',
        type: 'integer',
        value: 'N',
        description: 'Listening port (default 7070; 0: any free one).',
      },
      {
        name: 'host',
        type: 'string',
        value: 'H',
        description: 'Listening address (default 127.0.0.1; another needs SCULPTOR_CALLERS).',
      },
      {
        name: 'recordings',
        type: 'string',
        value: 'DIR',
        description: "Recordings to run against (default: each tool's folder's recordings).",
      },
    ],
    effects: {
      ...READS_ONLY,
      filesystem: { read: true, write: true, delete: false },
      network: true,
      idempotent: false,
      duration: { typical: 'until SIGINT or SIGTERM' },
    },
    examples: ['sculptor studio sculpts', 'sculptor studio sculpts/weather --port 0'],
  },
  {
    name: 'replay',
    summary: 'Serve recorded HTTP exchanges (vcrpy cassettes, HAR) on loopback.',
    details: `Serves recorded exchanges (vcrpy cassettes, HAR files) on 127.0.0.1, matching
method, path and query. Unmatched requests get a 404 naming the request.`,
    arguments: [
      {
        name: 'paths',
        type: 'file',
        description: 'Recording files or folders.',
        required: true,
        variadic: true,
      },
    ],
    options: [
      { name: 'port', type: 'integer', value: 'N', description: 'Listening port (default: any free one).' },
      {
        name: 'host',
        type: 'string',
        value: 'H',
        description: 'Listening address (default 127.0.0.1; another needs SCULPTOR_CALLERS).',
      },
    ],
    effects: { ...READS_ONLY, network: true, duration: { typical: 'until SIGINT or SIGTERM' } },
    examples: ['sculptor replay sculpts/weather/recordings --port 9091'],
  },
];

export function commandNamed(name: string): CommandSpec | undefined {
  return COMMANDS.find((c) => c.name === name);
}

export const USAGE = `Usage: sculptor <command> [options]

Commands:
${COMMANDS.map((c) => `  ${synopsis(c).padEnd(36)} ${c.summary}`).join('\n')}

Options:
  --agent                              Describe this CLI in ATIP JSON (for agents).
  -h, --help                           This help; 'sculptor <command> --help' for a command's.`;

function synopsis(c: CommandSpec): string {
  const args = c.arguments.map((a) => {
    const text = `${a.name}${a.variadic ? '…' : ''}`;
    return a.required ? `<${text}>` : `[${text}]`;
  });
  const required = c.options.filter((o) => o.required).map((o) => `--${o.name} ${o.value ?? ''}`.trim());
  return [c.name, ...args, ...required].join(' ');
}

/** A command's `--help`. */
export function helpText(c: CommandSpec): string {
  const lines = [
    `Usage: sculptor ${synopsis(c)}${c.options.some((o) => !o.required) ? ' [options]' : ''}`,
    '',
  ];
  lines.push(c.details, '');
  if (c.arguments.length > 0) {
    lines.push('Arguments:');
    for (const a of c.arguments)
      lines.push(`  ${`${a.name}${a.variadic ? '…' : ''}`.padEnd(26)} ${a.description}`);
    lines.push('');
  }
  lines.push('Options:');
  for (const o of c.options) {
    const flags = `${o.short ? `-${o.short}, ` : ''}--${o.name}${o.value ? ` ${o.value}` : ''}`;
    const extra = [
      o.required ? 'required' : undefined,
      o.multiple ? 'repeatable' : undefined,
      o.default !== undefined && o.type !== 'boolean' ? `default: ${o.default}` : undefined,
    ].filter(Boolean);
    lines.push(`  ${flags.padEnd(26)} ${o.description}${extra.length > 0 ? ` (${extra.join(', ')})` : ''}`);
  }
  lines.push(`  ${'-h, --help'.padEnd(26)} This help.`);
  if (c.exit) lines.push('', `Exit status: ${c.exit}`);
  if (c.examples.length > 0) lines.push('', 'Examples:', ...c.examples.map((e) => `  ${e}`));
  return lines.join('\n');
}

export class UsageError extends Error {
  override readonly name = 'UsageError';
  readonly command: string;
  constructor(command: string, message: string) {
    super(message);
    this.command = command;
  }
}

export interface ParsedArgs {
  values: Record<string, string | boolean | number | string[] | undefined>;
  positionals: string[];
}

/** Parses a command's arguments by its spec: unknown options, missing required ones and bad values are UsageErrors. */
export function parseCommandArgs(c: CommandSpec, args: string[]): ParsedArgs {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> = {};
  for (const o of c.options) {
    options[o.name] = {
      type: o.type === 'boolean' ? 'boolean' : 'string',
      ...(o.short ? { short: o.short } : {}),
      ...(o.multiple ? { multiple: true } : {}),
    };
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(c.name, (err as Error).message);
  }
  const values: ParsedArgs['values'] = {};
  for (const o of c.options) {
    const raw = parsed.values[o.name];
    if (raw === undefined) {
      if (o.required) throw new UsageError(c.name, `Option --${o.name} is required.`);
      if (o.type === 'boolean') values[o.name] = false;
      continue;
    }
    if (o.type === 'integer') {
      const n = Number(raw);
      if (!Number.isSafeInteger(n) || n < 0)
        throw new UsageError(c.name, `--${o.name} must be a whole number.`);
      values[o.name] = n;
    } else if (o.type === 'enum' && !o.enum!.includes(String(raw))) {
      throw new UsageError(
        c.name,
        `--${o.name} must be one of ${o.enum!.join(', ')} (got '${String(raw)}').`,
      );
    } else {
      values[o.name] = raw as string | boolean | string[];
    }
  }
  const most = c.arguments.some((a) => a.variadic) ? Infinity : c.arguments.length;
  if (parsed.positionals.length > most) {
    throw new UsageError(c.name, `Unexpected argument '${parsed.positionals[most]}'.`);
  }
  const needed = c.arguments.filter((a) => a.required).length;
  if (parsed.positionals.length < needed) {
    throw new UsageError(c.name, `Missing argument <${c.arguments[parsed.positionals.length]!.name}>.`);
  }
  return { values, positionals: parsed.positionals };
}
