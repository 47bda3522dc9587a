export interface BreakerOptions {
  /** Consecutive failures that open the breaker. Default 5. */
  threshold?: number;
  /** How long an open breaker skips the dependency. Default 10 s. */
  cooldownMs?: number;
  /** Clock, for tests. Default `performance.now`. */
  now?: () => number;
}

export interface Breaker {
  /**
   * Whether a call may go to the dependency now. After the cool-down exactly
   * one probe is let through; the others keep skipping until it reports, so a
   * still-stalled Redis costs one budget per cool-down, not one per request.
   */
  allow(): boolean;
  success(): void;
  failure(): void;
  readonly state: 'closed' | 'open' | 'half-open';
  /** Whether the last call failed (no success since): a lease is then not worth waiting for. */
  readonly failing: boolean;
  /** How many times it went from closed or half-open to open. */
  readonly opens: number;
}

/**
 * A consecutive-failure breaker: `threshold` failures in a row open it for
 * `cooldownMs`; then one probe decides between closing and another cool-down.
 * Any success resets the count, so sparse errors never open it.
 */
export function createBreaker(options: BreakerOptions = {}): Breaker {
  const threshold = options.threshold ?? 5;
  const cooldownMs = options.cooldownMs ?? 10_000;
  const now = options.now ?? (() => performance.now());
  let state: Breaker['state'] = 'closed';
  let failures = 0;
  let openUntil = 0;
  let opens = 0;

  function open(): void {
    state = 'open';
    openUntil = now() + cooldownMs;
    opens++;
  }

  return {
    allow(): boolean {
      if (state === 'closed') return true;
      if (state === 'open' && now() >= openUntil) {
        state = 'half-open';
        return true;
      }
      return false;
    },
    success(): void {
      failures = 0;
      state = 'closed';
    },
    get failing() {
      return failures > 0;
    },
    failure(): void {
      failures++;
      if (state === 'half-open' || (state === 'closed' && failures >= threshold)) open();
    },
    get state() {
      return state;
    },
    get opens() {
      return opens;
    },
  };
}
