import type { Settings } from '../config/settings.ts';
import { reviewTools } from '../designer/check-sculpts.ts';
import { displayPath, type Finding, formatFinding } from '../designer/findings.ts';
import { missingCredentialsHint, unsetCredentialVariables } from '../engine/attach-credentials.ts';
import { SculptLoadError } from '../errors/sculptor-error.ts';
import { type Gateway, type GatewayOptions, startGateway } from '../server/start-gateway.ts';
import { stopSignal } from '../server/stop-signal.ts';
import { watchSculpts } from '../server/watch-sculpts.ts';

/** The lock's errors, which the gateway refuses a catalog for unless SCULPTOR_ALLOW_LOCK_DRIFT is set. */
const LOCK_CODES = new Set(['lint.signature_drift', 'lint.version_removed', 'lint.lock_file']);

function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

function summarize(findings: Finding[]): string {
  const errors = findings.filter((f) => f.severity === 'error').length;
  return `${errors} error(s), ${findings.length - errors} warning(s)`;
}

/**
 * `sculptor serve DIR --watch`, the designer's dev server: the gateway as
 * `serve` starts it, plus a watcher that recompiles on every change and swaps
 * the catalog with `gateway.reload()`. A change that breaks a sculpt is
 * printed (file:line:col code message) and the last good catalog keeps being
 * served; so is a change to a version published in `sculptor.lock.json`
 * (lint.signature_drift), unless SCULPTOR_ALLOW_LOCK_DRIFT is set. The
 * callers file is watched too. Human-readable lines instead of JSON logs;
 * stops on SIGINT/SIGTERM.
 */
export async function serveWatching(
  settings: Settings,
  env: Readonly<Record<string, string | undefined>> = process.env,
  mounts: GatewayOptions['mounts'] = [],
): Promise<number> {
  const dir = settings.sculpts;
  let gateway: Gateway;
  try {
    gateway = await startGateway({ settings, env, mounts });
  } catch (err) {
    if (!(err instanceof SculptLoadError)) throw err;
    for (const e of err.errors) process.stderr.write(`${formatFinding({ severity: 'error', error: e })}\n`);
    process.stderr.write(`\n${err.errors.length} error(s); nothing was served. Fix them and start again.\n`);
    return 1;
  }
  // Listened for before the first line (stop-signal.ts).
  const stopped = stopSignal();
  const report = async (verb: string) => {
    const tools = gateway
      .catalog()
      .list()
      .flatMap((t) => t.versions);
    const review = await reviewTools(tools, dir);
    for (const f of review.findings) print(formatFinding(f));
    for (const { backend, variable } of unsetCredentialVariables(tools)) {
      const hint = missingCredentialsHint({ name: backend.name, credentialsMissing: [variable] });
      print(
        `sculptor: warning: backend '${backend.name}' has no credentials: ${hint} (declared in ${displayPath(backend.file)})`,
      );
    }
    if (settings.allowLockDrift && review.findings.some((f) => LOCK_CODES.has(f.error.code))) {
      print(
        'sculptor: warning: SCULPTOR_ALLOW_LOCK_DRIFT is set: published versions that changed are served anyway',
      );
    }
    print(`sculptor: ${verb} ${gateway.catalog().size} tool(s) from ${dir} (${summarize(review.findings)})`);
  };
  let generation = 0;
  const watcher = watchSculpts(
    dir,
    async (changedSince) => {
      const n = ++generation;
      try {
        await gateway.reload({ superseded: changedSince });
        await report(`reloaded (#${n})`);
      } catch (err) {
        // Saved again while it was read: the next reload, already coming, reports.
        if (changedSince()) return;
        if (!(err instanceof SculptLoadError)) {
          print(`sculptor: reload #${n} failed: ${(err as Error).message}`);
          return;
        }
        for (const e of err.errors) print(formatFinding({ severity: 'error', error: e }));
        print(
          `sculptor: reload #${n} failed with ${err.errors.length} error(s); still serving the last good catalog (${gateway.catalog().size} tool(s))`,
        );
      }
    },
    { files: settings.callers ? [settings.callers] : [] },
  );

  await watcher.ready;
  print(`sculptor: serving at ${gateway.url}${settings.prefix}/tools, watching ${dir} for changes`);
  await report('loaded');
  await stopped;
  watcher.close();
  print('sculptor: stopping');
  await gateway.close();
  return 0;
}
