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

/** `--offline`, for the commands that call backends: serve, mcp, invoke. */
const OFFLINE_OPTION: OptionSpec = {
  name: 'offline',
  type: 'boolean',
  description:
    'Answer every backend from the recordings/ folders below dir (a replay server on 127.0.0.1; unset credentials sent as placeholders): nothing leaves the machine.',
  default: false,
};

/** `--openapi FILE`: the description `init` scaffolds from and `operations` lists. */
const OPENAPI_OPTION: OptionSpec = {
  name: 'openapi',
  type: 'file',
  value: 'FILE',
  required: true,
  description: 'The OpenAPI 3.x or Swagger 2.0 document (JSON or YAML).',
};

/** init and operations: an OpenAPI document, or instead a WSDL description (and its port). */
const DESCRIPTION_OPTIONS: OptionSpec[] = [
  {
    ...OPENAPI_OPTION,
    required: false,
    description: 'The OpenAPI 3.x or Swagger 2.0 document (JSON or YAML); or, for a SOAP service, --wsdl.',
  },
  {
    name: 'wsdl',
    type: 'file',
    value: 'FILE',
    description: "A SOAP service's WSDL 1.1 description, instead of --openapi.",
  },
  {
    name: 'port',
    type: 'string',
    value: 'NAME',
    description: 'With --wsdl: the port to use (default: the first SOAP 1.1 or 1.2 port).',
  },
  {
    name: 'arazzo',
    type: 'file',
    value: 'FILE',
    description:
      'An Arazzo 1.0 description (JSON or YAML), instead of --openapi: its workflows, each wrapped by a sculpt.',
  },
];

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
      OFFLINE_OPTION,
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
      'sculptor serve sculpts --offline',
      'sculptor serve sculpts --reload-on-change',
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
      OFFLINE_OPTION,
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
      'sculptor mcp sculpts --offline',
      'SCULPTOR_CALLERS=deploy/overlays/production/callers.yaml ACME_AGENT_TOKEN=an-example-token-of-24-chars SCULPTOR_MCP_TOKEN=an-example-token-of-24-chars sculptor mcp sculpts',
    ],
    exit: '0 when the client closes stdin; 1 when the sculpts do not load or the caller is unknown.',
  },
  {
    name: 'check',
    summary: 'Load, compile and lint every sculpt; print every error and warning.',
    details: `Loads and compiles every sculpt below dir without serving, then lints what
compiled (lint.* warnings: programmatic inputs, whole backend objects in
outputs, unused inputs, unbounded $sort, optional inputs on a first version,
descriptions that do not say when to use the tool, inputs that look like
secrets (lint.secret_input: an error under --strict), the REPLACE_ME
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
      'ACME_AGENT_TOKEN=an-example-token-of-24-chars sculptor check sculpts --callers deploy/overlays/production/callers.yaml',
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
    examples: [
      'sculptor test sculpts',
      'sculptor test sculpts/weather/lookup_weather_by_city.test.yaml',
      'sculptor test test/arazzo/fixtures/shop',
    ],
    exit: '0 when every case passes; 1 when one fails, a file cannot run, or no test file is found.',
  },
  {
    name: 'init',
    summary: 'Scaffold a sculpt for one OpenAPI or SOAP (WSDL) operation, or one Arazzo workflow.',
    details: `Writes <tool>.v1.sculpt.yaml and <tool>.test.yaml into --out, and a
backends.yaml entry for the document when the folder has none for it.
Required parameters that mean something to a user become inputs typed as
narrowly as A2T allows (enums with capitalized values, bounded integers,
strings with a maximum length); identifiers, paging, formats and headers are
hidden as constants ("REPLACE_ME" where a value must be set); the output is
a few fields of the success answer, each its own output. Every decision a
designer should check is marked "# REVIEW:". The result passes sculptor check
as written (no error); check --strict fails until every REPLACE_ME is set and
every REVIEW mark read and deleted.

With --all instead of --operation, every operation of the document gets its
scaffold: the API converted one tool per operation, the baseline a sculpted
folder is compared with (sculptor eval --against).

With --arazzo FILE --workflow ID, the sculpt wraps one workflow of an Arazzo
description (workflow: <name>#<workflowId>): named after it, its inputs
narrowed to A2T's (an object's fields flattened into inputs, an optional
input with a default fixed to it, a credential left to the backend's auth),
its outputs projected with the types of the answers they come from, its GET
steps listed as commented cache placeholders. backends.yaml gets a backend
per OpenAPI source (read relative to the description) and the arazzo entry.
sculptor operations --arazzo FILE lists the workflows.`,
    arguments: [],
    options: [
      ...DESCRIPTION_OPTIONS,
      {
        name: 'operation',
        type: 'string',
        value: 'ID',
        description:
          "The operation: its operationId, or 'METHOD /path' as written in the document (or --all).",
      },
      {
        name: 'workflow',
        type: 'string',
        value: 'ID',
        description: 'With --arazzo: the workflowId of the workflow to wrap.',
      },
      {
        name: 'all',
        type: 'boolean',
        description: 'Scaffold every operation of the document, one tool each (a 1:1 baseline).',
        default: false,
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
      "sculptor init --openapi sculpts/petstore/openapi/petstore.swagger.io-v2.swagger.yaml --operation 'GET /pet/{petId}' --out my-sculpts/pets",
      'sculptor init --openapi sculpts/weather/openapi/api.weather.gov.openapi.json --operation gridpoint_forecast --out my-sculpts/weather',
      'sculptor init --openapi sculpts/weather/openapi/open-meteo-geocoding.yaml --all --out my-sculpts/geocoder-1to1',
      'sculptor init --wsdl sculpts/ndfd/wsdl/ndfdXML.wsdl --operation NDFDgenByDay --out my-sculpts/ndfd',
      'sculptor init --arazzo test/arazzo/fixtures/shop/shop.arazzo.yaml --workflow order-available-pet --out my-sculpts/shop',
    ],
    exit: '0 when the files were written; 1 when the document or operation cannot be used.',
  },
  {
    name: 'operations',
    summary:
      "List a description's operations (method, path, operationId, summary), or an Arazzo file's workflows.",
    details: `Lists the operations of an OpenAPI 3.x or Swagger 2.0 document, in its order:
method, path, operationId ("—" when it has none), summary and tags. --filter
keeps those whose text holds every word given; --tag those with that tag.
Pass any of them to init --operation: its operationId, or 'METHOD /path'.
With --wsdl, a WSDL 1.1 description's ports (the one used marked *), the
operations of that port (each a POST; pass its name), and those that cannot
be called, each with the reason. With --arazzo, an Arazzo description's
workflows: id, summary, inputs (* required), what each step calls, outputs;
pass an id to init --arazzo FILE --workflow.`,
    arguments: [],
    options: [
      ...DESCRIPTION_OPTIONS,
      {
        name: 'filter',
        type: 'string',
        value: 'TEXT',
        description: 'Only operations whose method, path, operationId, summary or tags hold every word.',
      },
      { name: 'tag', type: 'string', value: 'TAG', description: 'Only operations with this tag.' },
      { name: 'json', type: 'boolean', description: 'Print the operations as JSON.', default: false },
    ],
    effects: READS_ONLY,
    examples: [
      'sculptor operations --openapi sculpts/petstore/openapi/petstore.swagger.io-v2.swagger.yaml',
      'sculptor operations --openapi sculpts/weather/openapi/api.weather.gov.openapi.json --filter forecast',
      'sculptor operations --openapi sculpts/petstore3/openapi/petstore3.swagger.io-openapi.yaml --tag store',
      'sculptor operations --wsdl sculpts/ndfd/wsdl/ndfdXML.wsdl --filter latlon',
      'sculptor operations --arazzo test/arazzo/fixtures/shop/shop.arazzo.yaml',
    ],
    exit: '0 when at least one operation is listed; 1 when none matches or the document cannot be read.',
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
  arazzo      the native chains as one Arazzo 1.0.1 description (each tool a
              workflow); with --out DIR, written there as sculptor.arazzo.yaml
              with a copy of each OpenAPI source beside it
Effects (read-only, idempotent, destructive, reversible, billable) are folded
into provider descriptions as ATIP §8.2 asks, e.g. "[⚠️ DESTRUCTIVE]". An input
that looks like a secret (an API key, a token, a password, a licence key) is
reported on stderr; with --strict nothing is exported.`,
    arguments: [SCULPTS_ARG],
    options: [
      {
        name: 'format',
        short: 'f',
        type: 'enum',
        value: 'FORMAT',
        required: true,
        enum: ['openai', 'anthropic', 'gemini', 'agent-tool', 'arazzo'],
        description: 'openai, anthropic, gemini, agent-tool or arazzo.',
      },
      { name: 'tool', type: 'string', value: 'NAME', description: 'Only this tool.' },
      {
        name: 'out',
        type: 'directory',
        value: 'DIR',
        description: 'arazzo only: write the description and its OpenAPI sources into DIR.',
      },
      { name: 'version', type: 'integer', value: 'N', description: 'That version instead of the latest.' },
      {
        name: 'strict',
        type: 'boolean',
        description: 'Refuse (exit 1) when an input looks like a secret (lint.secret_input).',
        default: false,
      },
    ],
    effects: READS_ONLY,
    examples: [
      'sculptor export --format openai sculpts',
      'sculptor export --format gemini --tool describe_pet',
      'sculptor export --format arazzo test/arazzo/fixtures/chains --out exported',
    ],
    exit: '0 when exported; 1 when the sculpts do not load, a tool cannot be exported, or (--strict) an input looks like a secret.',
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
    exit: '0 when A2T §5.4 holds (or the tool has one version, nothing to compare); 1 when it breaks or the versions do not exist.',
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
      OFFLINE_OPTION,
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
    examples: [
      'sculptor invoke describe_pet sculpts --input pet_number=10 --offline --debug',
      'sculptor invoke find_pets_by_status --input status=SOLD --offline',
    ],
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
    name: 'eval',
    summary: 'Ask a model to use the tools: score its tool choice and arguments, or compare two catalogs.',
    details: `Sends each scenario's request (scenario files: *.eval.yaml, or folders of them)
to a model behind any OpenAI-compatible chat-completions endpoint, offering the
tools of --tools as a face lists them (--face mcp: MCP tools/list; openai: the
OpenAI export, strict mode), runs what the model calls through the engine
(--run recordings: each tool folder's recordings, or --recordings DIR; live: the
real backends; none: only the first answer is scored) and hands it the
results, until it answers in words. Each scenario runs --repeat times.

Reports tool choice, argument validity (against the schema offered) and
correctness, calls per task, prompt and completion tokens and the model's
latency, per scenario and overall, with every failure's raw call. With
--against DIR, both catalogs run the same scenarios and the differences that
matter are flagged (e.g. a sculpted folder against the API scaffolded 1:1 by
sculptor init --all).

The endpoint comes from the environment: SCULPTOR_EVAL_URL (e.g.
http://127.0.0.1:11434/v1 for Ollama), SCULPTOR_EVAL_MODEL, and
SCULPTOR_EVAL_API_KEY when it needs a key (never an option: it would show in
the process list). No expected answer comes from the model; an endpoint that
is down or refuses stops the run with an error, never a score; known secrets
are masked in every prompt and report.`,
    arguments: [
      {
        name: 'scenarios',
        type: 'file',
        description: 'Scenario files (*.eval.yaml) or folders holding them.',
        required: true,
        variadic: true,
      },
    ],
    options: [
      {
        name: 'tools',
        type: 'directory',
        value: 'DIR',
        description:
          'The sculpt folder whose tools are offered (default: $SCULPTOR_SCULPTS, else ./sculpts).',
      },
      {
        name: 'against',
        type: 'directory',
        value: 'DIR',
        description: 'A second sculpt folder run on the same scenarios and compared with the first.',
      },
      {
        name: 'face',
        type: 'enum',
        value: 'FACE',
        enum: ['mcp', 'openai'],
        default: 'mcp',
        description: 'How the tools are offered: mcp (tools/list) or openai (the strict-mode export).',
      },
      {
        name: 'repeat',
        short: 'n',
        type: 'integer',
        value: 'N',
        default: 5,
        description: 'Runs of each scenario.',
      },
      {
        name: 'temperature',
        type: 'string',
        value: 'T',
        default: '0.7',
        description: 'Sampling temperature sent with every request (0–2).',
      },
      {
        name: 'seed',
        type: 'integer',
        value: 'N',
        description: 'Sent as seed (plus the run number), for endpoints that honour it.',
      },
      {
        name: 'max-calls',
        type: 'integer',
        value: 'N',
        default: 8,
        description: 'Tool calls one turn may make before it is cut short.',
      },
      {
        name: 'run',
        type: 'enum',
        value: 'MODE',
        enum: ['recordings', 'live', 'none'],
        default: 'recordings',
        description: "Where the model's calls go: recordings, live backends, or none.",
      },
      {
        name: 'recordings',
        type: 'string',
        value: 'DIR',
        description: "Recordings for every tool (default: each tool folder's recordings/).",
      },
      {
        name: 'url',
        type: 'string',
        value: 'URL',
        description: 'The endpoint, instead of $SCULPTOR_EVAL_URL.',
      },
      {
        name: 'model',
        type: 'string',
        value: 'NAME',
        description: 'The model, instead of $SCULPTOR_EVAL_MODEL.',
      },
      {
        name: 'timeout',
        type: 'integer',
        value: 'S',
        default: 120,
        description: 'Seconds one model request may take.',
      },
      {
        name: 'retries',
        type: 'integer',
        value: 'N',
        default: 2,
        description: 'Retries of a 429, a 5xx or a dropped connection, with backoff.',
      },
      {
        name: 'json',
        type: 'string',
        value: 'FILE',
        description: "Write the report as JSON to FILE ('-': on stdout, instead of the table).",
      },
      {
        name: 'fail-under',
        type: 'string',
        value: 'SHARE',
        description:
          'Exit 1 when a catalog gets fewer turns right (tool and arguments) than this share, e.g. 0.9.',
      },
    ],
    effects: {
      filesystem: { read: true, write: true, delete: false },
      network: true,
      // --run live calls the real backends with whatever the model asks.
      idempotent: false,
      reversible: false,
      destructive: true,
      interactive: { stdin: 'none', prompts: false, tty: false },
      duration: { typical: 'seconds to hours (scenarios × runs × the model)' },
    },
    // Against the test model (`npm run eval:test-model -- --port 11435`), so that they run offline
    // as written; a real model is SCULPTOR_EVAL_URL and SCULPTOR_EVAL_MODEL (README, docs/EVAL.md).
    examples: [
      'sculptor eval sculpts/weather --tools sculpts/weather --url http://127.0.0.1:11435/v1 --model word-match -n 2',
      'sculptor eval sculpts/weather --tools sculpts/weather --face openai --run none --url http://127.0.0.1:11435/v1 --model word-match',
    ],
    exit: '0 when every scenario ran (and, with --fail-under, scored enough); 1 when the setup is wrong, the endpoint fails, or a score is under --fail-under.',
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
  -v, --version                        The version of Sculptor and of the Node running it.
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
