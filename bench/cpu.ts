/**
 * CPU accounting from /proc (Linux): the CPU time a process has used, and
 * the machine's, so a round can report the server's CPU per request (a
 * figure that other load on the machine disturbs much less than req/s) and
 * how much CPU other processes took meanwhile. Elsewhere every figure is
 * undefined and the table shows a dash.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();
const MS_PER_TICK = 1000 / TICKS_PER_SECOND;

/** A process's user and system CPU milliseconds so far, all its threads (throws when it is gone). */
function cpuTimes(pid: number): { userMs: number; systemMs: number; minorFaults: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start at `state`: minflt is the 8th, utime
  // the 12th, stime the 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return {
    userMs: Number(fields[11]) * MS_PER_TICK,
    systemMs: Number(fields[12]) * MS_PER_TICK,
    minorFaults: Number(fields[7]),
  };
}

/** User + system CPU milliseconds of a process, all its threads, so far. */
export function processCpuMs(pid: number): number | undefined {
  try {
    const { userMs, systemMs } = cpuTimes(pid);
    return userMs + systemMs;
  } catch {
    return undefined;
  }
}

/**
 * Read and write system calls a process has made so far (`/proc/<pid>/io`), and its system-mode CPU
 * milliseconds and minor page faults: on a virtual machine every socket write is a costly exit to the
 * kernel, and so is a page the allocator gave back and touches again, so how many a server makes per
 * request is part of its cost that no JavaScript profile shows.
 */
export function processSyscalls(
  pid: number,
): { reads: number; writes: number; systemMs: number; minorFaults: number } | undefined {
  try {
    const io = readFileSync(`/proc/${pid}/io`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(io)?.[1]);
    const { systemMs, minorFaults } = cpuTimes(pid);
    return { reads: field('syscr'), writes: field('syscw'), systemMs, minorFaults };
  } catch {
    return undefined;
  }
}

/** CPU milliseconds the whole machine spent in user and system mode so far (interrupts excluded). */
export function machineCpuMs(): number | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
    const [user, nice, system] = line.split(/\s+/).slice(1, 4).map(Number) as [number, number, number];
    return (user + nice + system) * MS_PER_TICK;
  } catch {
    return undefined;
  }
}

/** Processes by command name (e.g. the Redis server the cached chain uses), to count as part of the bench. */
export function pidsNamed(name: string): number[] {
  try {
    return readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .filter((pid) => {
        try {
          return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === name;
        } catch {
          return false;
        }
      })
      .map(Number);
  } catch {
    return [];
  }
}

/** `pid` and every process below it (children, their children…), from /proc's parent links. */
export function processTree(pid: number): number[] {
  const parents = new Map<number, number>();
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        // The parent pid is the second field after the command's closing parenthesis.
        parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      } catch {
        // gone meanwhile
      }
    }
  } catch {
    return [pid];
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) {
    for (const [child, parent] of parents) if (parent === tree[i]) tree.push(child);
  }
  return tree;
}

export interface CpuSnapshot {
  at: number;
  machine: number | undefined;
  byPid: Map<number, number | undefined>;
}

export function snapshot(pids: number[]): CpuSnapshot {
  return {
    at: performance.now(),
    machine: machineCpuMs(),
    byPid: new Map(pids.map((pid) => [pid, processCpuMs(pid)])),
  };
}

/** CPU ms a process used between two snapshots. */
export function usedMs(before: CpuSnapshot, after: CpuSnapshot, pid: number): number | undefined {
  const a = before.byPid.get(pid);
  const b = after.byPid.get(pid);
  return a === undefined || b === undefined ? undefined : b - a;
}

/**
 * Cores' worth of CPU that processes outside `ours` used between two
 * snapshots: other people's builds and tests on a shared machine.
 */
export function foreignCores(before: CpuSnapshot, after: CpuSnapshot, ours: number[]): number | undefined {
  if (before.machine === undefined || after.machine === undefined) return undefined;
  let mine = 0;
  for (const pid of ours) {
    const end = after.byPid.get(pid);
    // A process that started between the snapshots used all its CPU in between.
    if (end !== undefined) mine += end - (before.byPid.get(pid) ?? 0);
  }
  const wall = after.at - before.at;
  return Math.max(0, after.machine - before.machine - mine) / wall;
}

/**
 * Waits until the machine's other load is below `cores` over a one-second
 * window, for at most `timeoutMs`; resolves to the load last seen (undefined
 * without /proc).
 */
export async function waitForQuiet(
  cores: number,
  timeoutMs: number,
  ours: number[] = [process.pid],
): Promise<number | undefined> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const before = snapshot(ours);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const load = foreignCores(before, snapshot(ours), ours);
    if (load === undefined || load < cores || performance.now() >= deadline) return load;
  }
}
