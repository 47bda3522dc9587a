import { describe, expect, it } from 'vitest';
import { createBreaker } from '../../src/cache/breaker.ts';

function clock() {
  let t = 0;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('createBreaker', () => {
  it('opens after threshold consecutive failures and stays open for the cool-down', () => {
    const time = clock();
    const breaker = createBreaker({ threshold: 5, cooldownMs: 10_000, now: time.now });
    for (let i = 0; i < 4; i++) {
      expect(breaker.allow()).toBe(true);
      breaker.failure();
    }
    expect(breaker.state).toBe('closed');
    breaker.failure();
    expect(breaker.state).toBe('open');
    expect(breaker.opens).toBe(1);
    time.advance(9_999);
    expect(breaker.allow()).toBe(false);
  });

  it('a success resets the count: sparse failures never open it', () => {
    const breaker = createBreaker({ threshold: 3, now: clock().now });
    for (let i = 0; i < 20; i++) {
      breaker.failure();
      breaker.failure();
      breaker.success();
    }
    expect(breaker.state).toBe('closed');
  });

  it('lets exactly one probe through after the cool-down; its result decides', () => {
    const time = clock();
    const breaker = createBreaker({ threshold: 1, cooldownMs: 100, now: time.now });
    breaker.failure();
    time.advance(100);
    expect(breaker.allow()).toBe(true);
    expect(breaker.state).toBe('half-open');
    expect(breaker.allow()).toBe(false);
    breaker.failure();
    expect(breaker.state).toBe('open');
    expect(breaker.opens).toBe(2);
    time.advance(100);
    expect(breaker.allow()).toBe(true);
    breaker.success();
    expect(breaker.state).toBe('closed');
    expect(breaker.allow()).toBe(true);
  });
});
