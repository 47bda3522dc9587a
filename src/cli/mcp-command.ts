import { authenticate } from '../callers/authenticate.ts';
import { ANONYMOUS, type CallerDirectory } from '../callers/load-callers.ts';
import { createQuotaCheck } from '../callers/quotas.ts';
import { type CallParty, createCallService } from '../invoke/call-service.ts';
import type { Catalog } from '../catalog/catalog.ts';
import { pageCursors } from '../catalog/page-cursor.ts';
import { readSettings, type Settings } from '../config/settings.ts';
import { formatFinding } from '../designer/findings.ts';
import { SculptLoadError, SculptorError, toSculptorError } from '../errors/sculptor-error.ts';
import { serveMcpStdio } from '../faces/mcp/mcp-stdio.ts';
import { createCore } from '../server/create-core.ts';
import { createLogger, describeError } from '../telemetry/logger.ts';
import { traceMcpCall } from '../telemetry/mcp-span.ts';
import { loadCatalog } from '../server/load-catalog.ts';
import type { ParsedArgs } from './command-table.ts';
import { sculptsDir } from './designer-commands.ts';
import { stopSignal } from '../server/stop-signal.ts';
import { startReloads } from '../server/reload-gateway.ts';
import { createAdmission } from '../server/invocation-gate.ts';

/**
 * `sculptor mcp [DIR]`: the sculpts as MCP tools over stdio, for desktop clients that launch
 * their servers (Claude Desktop, Cursor, VS Code). stdout carries JSON-RPC only: logs are JSON
 * lines on stderr. The caller is the process's: the anonymous caller without SCULPTOR_CALLERS;
 * with it, the caller whose token SCULPTOR_MCP_TOKEN holds (its tenant's tools, credentials
 * and `$caller` context), since whoever launches the process holds its environment anyway.
 * Reloads on SIGHUP, and on every change with --watch (the sculpts and the callers file), as the
 * gateway does; the client is told (list_changed).
 */
export async function mcpCommand({ values, positionals }: ParsedArgs): Promise<number> {
  const settings = readSettings(process.env, { sculpts: sculptsDir(positionals[0]) });
  const log = createLogger({ level: settings.logLevel, destination: process.stderr });
  const { logger, redactor } = log;
  // The same load as the gateway's: lock, tenancy, credentials warnings, the redactor.
  const compile = async () => {
    const { catalog, callers } = await loadCatalog(settings, process.env, { logger, redactor });
    return { catalog, directory: callers };
  };

  let catalog: Catalog;
  let party: CallParty;
  try {
    const first = await compile();
    catalog = first.catalog;
    party = await stdioParty(first.directory, settings);
  } catch (err) {
    if (!(err instanceof SculptLoadError)) {
      // The code first, as `sculptor invoke` prints it: what a launcher's log shows is greppable.
      const error = toSculptorError(err);
      process.stderr.write(`${error.code}: ${error.message}\n`);
      return 1;
    }
    for (const e of err.errors) process.stderr.write(`${formatFinding({ severity: 'error', error: e })}\n`);
    return 1;
  }

  const core = createCore({
    secret: settings.secret,
    resilience: true,
    allowPrivateEgress: settings.allowPrivateEgress,
    maxBackendCalls: settings.maxBackendCalls,
    instrument: { logger },
  });
  // The gateway's reloads (reload-gateway.ts): one at a time, SIGHUP and --watch alike, each
  // outcome logged the same way; a failed load keeps the last good catalog. The watcher is
  // ready before the client is served, so no edit made after the handshake goes unseen.
  let stdio: ReturnType<typeof serveMcpStdio> | undefined;
  let generation = 1;
  const reloads = startReloads(
    {
      async reload() {
        // The caller stays the one the process started as; its tenant's tools are read anew.
        ({ catalog } = await compile());
        generation++;
        stdio?.catalogChanged();
        return catalog;
      },
      get generation() {
        return generation;
      },
      catalog: () => catalog,
    },
    { sculpts: settings.sculpts, callers: settings.callers, reloadOnChange: values.watch === true },
    logger,
  );
  await reloads.ready;
  // The gateway's gate, as the settings ask: the process serves one caller, but a limit its
  // operator sets (the in-flight cap, a rate) holds here as it does over HTTP, and shedding keeps
  // the process answering while a flood of calls lags its event loop.
  const admission = createAdmission(settings, core.store, logger);
  stdio = serveMcpStdio({
    catalog: () => catalog,
    calls: createCallService({
      catalog: () => catalog,
      engine: core.engine,
      admit: admission.admit,
      quotas: createQuotaCheck(core.store, settings.secret),
    }),
    cursors: pageCursors(settings.secret),
    caller: party,
    traceCall: traceMcpCall,
    onError: (err) => logger.debug({ event: 'mcp_error', err: describeError(err) }, 'mcp message refused'),
    // Never the line itself: it may hold anything, a credential included.
    onRefusedLine: ({ reason, bytes, code }) =>
      logger.warn(
        { event: 'mcp_line_refused', reason, bytes, code },
        'stdin line refused with a JSON-RPC error; serving on',
      ),
  });
  // Listened for before saying "serving" (stop-signal.ts); the client closing stdin ends it too.
  const ended = Promise.race([
    stopSignal(),
    new Promise<void>((resolve) => {
      process.stdin.once('end', resolve);
      process.stdin.once('close', resolve);
    }),
  ]);
  logger.info(
    { event: 'serving', transport: 'stdio', tools: catalog.size, sculpts: settings.sculpts },
    'serving',
  );

  // The client closing stdin ends the connection (the SDK closes its transport), and the process.
  await ended;
  reloads.close();
  admission.shedder.close();
  await Promise.allSettled([stdio.close(), core.close()]);
  return 0;
}

/**
 * The party stdio serves: anonymous, or SCULPTOR_MCP_TOKEN's caller when a callers file is in
 * force — keyed for admission as an HTTP caller is, by its token with a callers file, else by
 * where it calls from.
 */
async function stdioParty(directory: CallerDirectory | undefined, settings: Settings): Promise<CallParty> {
  const address = () => 'stdio';
  if (!directory) return { caller: ANONYMOUS, address };
  const token = process.env.SCULPTOR_MCP_TOKEN;
  if (!token) {
    throw new SculptorError(
      'auth.unauthenticated',
      `SCULPTOR_CALLERS is set (${settings.callers}): set SCULPTOR_MCP_TOKEN to the token of the caller this process serves.`,
    );
  }
  const authorization = `Bearer ${token}`;
  return { caller: await authenticate(directory, authorization), authorization, address };
}
