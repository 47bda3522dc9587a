import { monitorEventLoopDelay } from 'node:perf_hooks';

/**
 * Event-loop protection (RELIABILITY C10): while the event loop lags behind
 * by more than a threshold, the gateway sheds new invocations (503
 * gateway.overloaded, Retry-After) and reports itself not ready, so that the
 * work already accepted can finish and the load balancer sends new work
 * elsewhere.
 *
 * Two signals, whichever is worse:
 * - the p99 of `monitorEventLoopDelay` over each sampling window;
 * - how late the sampler's own timer is *now*: right after a long block the
 *   requests that queued during it may run before any timer does, and a
 *   sampler that has not yet run is the proof that the loop is behind.
 * Once over the threshold, shedding holds for `holdMs` so it does not flap.
 */
export interface LoadShedder {
  /** Whether to shed now; computed on the spot, cheap enough for every request. */
  overloaded(): boolean;
  /** The worst lag seen in the last window or right now, in ms. */
  lagMs(): number;
  close(): void;
}

export interface LoadShedderOptions {
  /** Lag above which to shed, in ms; 0 turns shedding off. */
  thresholdMs: number;
  /** How often the lag is sampled (default 100 ms). */
  sampleMs?: number;
  /** How long shedding lasts after the last lag over the threshold (default 1000 ms). */
  holdMs?: number;
  /** Called when shedding starts, with the lag that started it. */
  onShedding?: (lagMs: number) => void;
}

export function createLoadShedder({
  thresholdMs,
  sampleMs = 100,
  holdMs = 1_000,
  onShedding,
}: LoadShedderOptions): LoadShedder {
  if (thresholdMs <= 0) return { overloaded: () => false, lagMs: () => 0, close: () => {} };
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  let lastTick = performance.now();
  let windowLag = 0;
  let shedUntil = 0;

  const note = (lag: number, now: number): void => {
    if (lag <= thresholdMs) return;
    if (now >= shedUntil) onShedding?.(Math.round(lag));
    shedUntil = now + holdMs;
  };
  const timer = setInterval(() => {
    const now = performance.now();
    const drift = now - lastTick - sampleMs;
    lastTick = now;
    const p99 = histogram.count > 0 ? histogram.percentile(99) / 1e6 : 0;
    histogram.reset();
    windowLag = Math.max(drift, p99);
    note(windowLag, now);
  }, sampleMs);
  timer.unref();

  const lagNow = (now: number): number => Math.max(windowLag, now - lastTick - sampleMs);
  return {
    overloaded() {
      const now = performance.now();
      note(lagNow(now), now);
      return now < shedUntil;
    },
    lagMs: () => Math.max(0, lagNow(performance.now())),
    close() {
      clearInterval(timer);
      histogram.disable();
    },
  };
}
