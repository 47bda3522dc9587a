/**
 * What the garbage collector did per call, read from a server's `--trace-gc-nvp` lines (one line
 * per collection on its stdout): how often the young generation was collected, how much of it
 * survived into the old generation, how often the whole heap was marked and compacted, and how
 * long the collector paused the server. Objects a call leaves reachable past its end are promoted
 * and then marked, which no count of bytes allocated shows (`single-op-ab.ts --gc`).
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';

export const GC_TRACE_FLAGS = ['--trace-gc-nvp'];

export interface GcPerCall {
  calls: number;
  youngPer1000: number;
  promotedKiB: number;
  fullPer10000: number;
  pauseUs: number;
}

/** The size of `file` now: where the lines of the measured rounds begin. */
export function traceMark(file: string): number {
  return statSync(file).size;
}

/** The collections traced in `file` after `mark`, per call of `calls`. */
export function gcPerCall(file: string, mark: number, calls: number): GcPerCall {
  const size = statSync(file).size - mark;
  const buffer = Buffer.alloc(Math.max(0, size));
  const fd = openSync(file, 'r');
  try {
    readSync(fd, buffer, 0, buffer.length, mark);
  } finally {
    closeSync(fd);
  }
  let young = 0;
  let full = 0;
  let promoted = 0;
  let pauseMs = 0;
  for (const line of buffer.toString('utf8').split('\n')) {
    const kind = / gc=(\w+)/.exec(line)?.[1];
    if (kind === undefined) continue;
    pauseMs += Number(/ pause=([\d.]+)/.exec(line)?.[1] ?? 0);
    if (kind === 's' || kind === 'mms') {
      young++;
      promoted += Number(/ promoted=(\d+)/.exec(line)?.[1] ?? 0);
    } else full++;
  }
  return {
    calls,
    youngPer1000: (1000 * young) / calls,
    promotedKiB: promoted / 1024 / calls,
    fullPer10000: (10_000 * full) / calls,
    pauseUs: (1000 * pauseMs) / calls,
  };
}
