/**
 * Preloaded into a bench server (`--import`, see single-op-ab.ts `--alloc`): how many bytes the
 * server allocates per HTTP request, and where. On a shared machine the same server's CPU per
 * request drifts by up to 2× within minutes; the bytes it allocates per request do not, and every
 * byte allocated is also work for the garbage collector. V8's sampling heap profiler, told to keep
 * the samples of objects already collected, sees every allocation, garbage included.
 *
 * Sampling starts at the BENCH_ALLOC_FROM-th request (default 2,000: after the warm-up's first
 * compilations) and ends when the process exits, which writes BENCH_ALLOC_FILE:
 * `{ requests, bytesPerRequest, sites: [{ site, bytesPerRequest }] }`, the sites being the
 * nearest frame of the project's own code (src/ or bench/), else the frame that allocated.
 * Over IPC the parent may end that first window early (its report to a file it names) and open
 * another later — memory.ts samples a warm server that way, after the rate stopped rising.
 */
import { subscribe } from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

const file = process.env.BENCH_ALLOC_FILE;
const from = Number(process.env.BENCH_ALLOC_FROM ?? 2_000);
/** Bytes between samples: small enough for ±1 % over a few thousand requests. */
const SAMPLING_INTERVAL = 1024;
/** BENCH_ALLOC_DETAIL=1: a site is also split by the frame that allocated below the project's own. */
const detail = process.env.BENCH_ALLOC_DETAIL === '1';
/**
 * BENCH_ALLOC_SURVIVORS=1: only the objects that outlived a scavenge (promoted, or still alive at
 * the end), which the collector copies and then marks: what makes a young-generation collection slow.
 */
const survivorsOnly = process.env.BENCH_ALLOC_SURVIVORS === '1';

if (file) {
  const session = new Session();
  session.connect();
  session.post('HeapProfiler.enable');
  let requests = 0;
  /** The request count when the current window opened; undefined while none is open. */
  let openedAt: number | undefined;
  const open = () => {
    openedAt = requests;
    session.post('HeapProfiler.startSampling', {
      samplingInterval: SAMPLING_INTERVAL,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: !survivorsOnly,
    });
  };
  /** Closes the open window and writes its report to `to` (none below one sampled request). */
  const close = (to: string) => {
    if (openedAt === undefined) return;
    const sampled = requests - openedAt;
    openedAt = undefined;
    // An in-process session answers synchronously: the file is written before this returns.
    session.post('HeapProfiler.stopSampling', (error, result) => {
      if (error || sampled <= 0) return;
      writeFileSync(
        to,
        JSON.stringify(report((result as { profile: { head: ProfileNode } }).profile.head, sampled)),
      );
    });
  };
  subscribe('http.server.request.start', () => {
    if (++requests === from) open();
  });
  // The parent may close the first window (`alloc-close`, to a file of its naming) and open
  // another once the server is warm (`alloc-open`); each is answered `alloc-done` when done.
  process.on('message', (message: { type?: string; file?: string }) => {
    if (message.type === 'alloc-close' && message.file) close(message.file);
    else if (message.type === 'alloc-open') open();
    else return;
    process.send?.({ type: 'alloc-done' });
  });
  process.on('exit', () => close(file));
}

/** Bytes per request in all, and the sites that allocated the most. */
function report(head: ProfileNode, sampled: number) {
  const sites = new Map<string, number>();
  let total = 0;
  const walk = (node: ProfileNode, own: string | undefined): void => {
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url.replace(/^.*?\/(node_modules|src|bench)\//, '$1/');
    const frame = `${functionName || '(anonymous)'} ${where}:${lineNumber + 1}`;
    const ownFrame = /^(src|bench)\//.test(where) ? frame : own;
    if (node.selfSize > 0) {
      total += node.selfSize;
      const site =
        ownFrame === undefined ? frame : detail && ownFrame !== frame ? `${ownFrame} > ${frame}` : ownFrame;
      sites.set(site, (sites.get(site) ?? 0) + node.selfSize);
    }
    for (const child of node.children) walk(child, ownFrame);
  };
  walk(head, undefined);
  const top = [...sites]
    .sort((a, b) => b[1] - a[1])
    .slice(0, Number(process.env.BENCH_ALLOC_SITES ?? 25))
    .map(([site, bytes]) => ({ site, bytesPerRequest: Math.round(bytes / sampled) }));
  return { requests: sampled, bytesPerRequest: Math.round(total / sampled), sites: top };
}
