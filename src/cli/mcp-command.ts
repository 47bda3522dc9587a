import { authenticate } from '../callers/authenticate.ts';
import { ANONYMOUS, type Caller, type CallerDirectory } from '../callers/load-callers.ts';
import { createQuotaCheck } from '../callers/quotas.ts';
import type { Catalog } from '../catalog/catalog.ts';
import { pageCursors } from '../catalog/page-cursor.ts';
import { readSettings, type Settings } from '../config/settings.ts';
import { formatFinding } from '../designer/findings.ts';
import { SculptLoadError, toSculptorError } from '../errors/sculptor-error.ts';
import { serveMcpStdio } from '../faces/mcp/mcp-stdio.ts';
import { engineCaller } from '../faces/shared/request-caller.ts';
import { createCore } from '../server/create-core.ts';
import { createLogger, describeError } from '../telemetry/logger.ts';
import { traceMcpCall } from '../telemetry/mcp-span.ts';
import { loadCatalog } from '../server/load-catalog.ts';
import type { ParsedArgs } from './command-table.ts';
import { sculptsDir } from './designer-commands.ts';
import { stopSignal } from '../server/stop-signal.ts';
import { watchSculpts } from '../server/watch-sculpts.ts';

/**
 * `sculptor mcp [DIR]`: the sculpts as MCP tools over stdio, for desktop clients that launch
 * their servers (Claude Desktop, Cursor, VS Code). stdout carries JSON-RPC only: logs are JSON
 * lines on stderr. The caller is the process's: the anonymous caller without SCULPTOR_CALLERS;
 * with it, the caller whose token SCULPTOR_MCP_TOKEN holds (its tenant's tools, credentials
 * and `$caller` context), since whoever launches the process holds its environment anyway.
 * Reloads on SIGHUP, and on every change with --watch; the client is told (list_changed).
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
  let caller: Caller;
  try {
    const first = await compile();
    catalog = first.catalog;
    caller = await stdioCaller(first.directory, settings);
  } catch (err) {
    if (!(err instanceof SculptLoadError)) {
      process.stderr.write(`${toSculptorError(err).message}\n`);
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
  const stdio = serveMcpStdio({
    catalog: () => catalog,
    engine: core.engine,
    cursors: pageCursors(settings.secret),
    quotas: createQuotaCheck(core.store, settings.secret),
    caller: { caller, engine: engineCaller(caller) },
    traceCall: traceMcpCall,
    onError: (err) => logger.debug({ event: 'mcp_error', err: describeError(err) }, 'mcp message refused'),
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

  const reload = async (changedSince?: () => boolean) => {
    try {
      // The caller stays the one the process started as; its tenant's tools are read anew.
      ({ catalog } = await compile());
      stdio.catalogChanged();
      logger.info({ event: 'reloaded', tools: catalog.size }, 'reloaded');
    } catch (err) {
      // Changed again while it was read (--watch): the reload already coming decides.
      if (changedSince?.()) return;
      const errors = err instanceof SculptLoadError ? err.errors.map((e) => e.format()) : [String(err)];
      logger.warn({ event: 'reload_failed', errors }, 'reload failed: the last good catalog is kept');
    }
  };
  process.on('SIGHUP', () => void reload());
  const watcher = values.watch === true ? watchSculpts(settings.sculpts, reload) : undefined;

  // The client closing stdin ends the connection (the SDK closes its transport), and the process.
  await ended;
  watcher?.close();
  await Promise.allSettled([stdio.close(), core.close()]);
  return 0;
}

/** The caller stdio serves: anonymous, or SCULPTOR_MCP_TOKEN's caller when a callers file is in force. */
async function stdioCaller(directory: CallerDirectory | undefined, settings: Settings): Promise<Caller> {
  if (!directory) return ANONYMOUS;
  const token = process.env.SCULPTOR_MCP_TOKEN;
  if (!token) {
    throw new Error(
      `SCULPTOR_CALLERS is set (${settings.callers}): set SCULPTOR_MCP_TOKEN to the token of the caller this process serves.`,
    );
  }
  return authenticate(directory, `Bearer ${token}`);
}
