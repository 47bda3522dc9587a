/**
 * Production reloads of a running gateway: on SIGHUP and, with
 * SCULPTOR_RELOAD_ON_CHANGE, when the sculpts folder or the callers file
 * changes (a Kubernetes ConfigMap update included). Each reload is
 * `Gateway.reload()`: the new catalog replaces the old at once, requests
 * already running finish with the tools they started with, and a catalog
 * with errors is refused — every error one log line with its file:line:col —
 * while the old one keeps being served. /metrics counts both outcomes.
 */
import type { Logger } from 'pino';
import type { Settings } from '../config/settings.ts';
import { SculptLoadError } from '../errors/sculptor-error.ts';
import { describeError } from '../telemetry/logger.ts';
import type { Gateway } from './start-gateway.ts';
import { watchSculpts } from './watch-sculpts.ts';

export type ReloadTrigger = 'SIGHUP' | 'change';

export interface GatewayReloads {
  /** Resolves once the watcher (if any) watches every folder. */
  ready: Promise<void>;
  /**
   * Reloads after the reload running now, if any; asked again while one is
   * waiting, it is the same one. Never rejects: the outcome is logged.
   */
  reload(trigger: ReloadTrigger): Promise<void>;
  /** Stops watching; later signals and changes are ignored (the gateway is draining). */
  close(): void;
}

/**
 * What reloads: the gateway, or `sculptor mcp`'s stdio server (the same load, swapped the same
 * way, its client told). A failed reload throws and leaves the served catalog as it was.
 */
export type Reloadable = Pick<Gateway, 'reload' | 'generation' | 'catalog'>;

export function startReloads(
  gateway: Reloadable,
  settings: Pick<Settings, 'sculpts' | 'callers' | 'reloadOnChange'>,
  logger: Logger,
): GatewayReloads {
  let closed = false;
  let tail: Promise<void> = Promise.resolve();
  let waiting = false;
  const once = async (trigger: ReloadTrigger, superseded?: () => boolean): Promise<void> => {
    const started = performance.now();
    try {
      const catalog = await gateway.reload(superseded ? { superseded } : {});
      logger.info(
        {
          event: 'reloaded',
          trigger,
          generation: gateway.generation,
          tools: catalog.size,
          reload_ms: Math.round(performance.now() - started),
        },
        `reloaded: serving generation ${gateway.generation} (${catalog.size} tool(s))`,
      );
    } catch (err) {
      // The folder changed while it was read (a ConfigMap swap between listing a file and reading
      // it): what failed was a mix of two versions, and the reload that change triggers decides.
      if (superseded?.()) {
        logger.info(
          { event: 'reload_superseded', trigger },
          'the sculpts changed while they were read; reading them again',
        );
        return;
      }
      const errors = err instanceof SculptLoadError ? err.errors : [];
      for (const e of errors) {
        const at = e.at ? `${e.at.file}:${e.at.line}:${e.at.column}` : undefined;
        logger.error({ event: 'reload_error', trigger, code: e.code, ...e.at, at }, e.format());
      }
      if (!(err instanceof SculptLoadError)) {
        logger.error({ event: 'reload_error', trigger, err: describeError(err) }, 'reload failed');
      }
      const count = Math.max(1, errors.length);
      logger.error(
        {
          event: 'reload_refused',
          trigger,
          errors: count,
          generation: gateway.generation,
          tools: gateway.catalog().size,
        },
        `reload refused with ${count} error(s); still serving generation ${gateway.generation} (${gateway.catalog().size} tool(s))`,
      );
    }
  };
  const reload = (trigger: ReloadTrigger, superseded?: () => boolean): Promise<void> => {
    if (closed || waiting) return tail;
    waiting = true;
    tail = tail.then(async () => {
      waiting = false;
      if (!closed) await once(trigger, superseded);
    });
    return tail;
  };
  // Node's default for SIGHUP is to end the process: a handler for the process's whole life.
  const onHangup = () => void reload('SIGHUP');
  process.on('SIGHUP', onHangup);
  const watcher = settings.reloadOnChange
    ? watchSculpts(settings.sculpts, (changedSince) => reload('change', changedSince), {
        files: settings.callers ? [settings.callers] : [],
      })
    : undefined;
  return {
    ready: watcher?.ready ?? Promise.resolve(),
    reload,
    close() {
      closed = true;
      watcher?.close();
    },
  };
}
