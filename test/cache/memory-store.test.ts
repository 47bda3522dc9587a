import { afterEach, describe, expect, it } from 'vitest';
import type { CacheStore } from '../../src/cache/cache-store.ts';
import { createMemoryStore } from '../../src/cache/memory-store.ts';
import { sleep } from './timing.ts';

describe('createMemoryStore', () => {
  let store: CacheStore | undefined;
  afterEach(async () => {
    await store?.close();
    store = undefined;
  });

  it('returns what was set, and misses on unknown keys', async () => {
    store = createMemoryStore();
    store.set('a', 'alpha', 10_000);
    expect(store.kind).toBe('memory');
    expect(await store.get('a')).toBe('alpha');
    expect(await store.get('b')).toBeUndefined();
    expect(store.stats()).toMatchObject({ hits: 1, misses: 1, sets: 1 });
  });

  it('deletes a key on request, and leaves the others', async () => {
    store = createMemoryStore();
    store.set('a', 'alpha', 10_000);
    store.set('b', 'beta', 10_000);
    store.delete('a');
    expect(await store.get('a')).toBeUndefined();
    expect(await store.get('b')).toBe('beta');
  });

  it('expires each entry after its own TTL', async () => {
    store = createMemoryStore();
    store.set('short', 's', 30);
    store.set('long', 'l', 5_000);
    expect(await store.get('short')).toBe('s');
    await sleep(60);
    expect(await store.get('short')).toBeUndefined();
    expect(await store.get('long')).toBe('l');
  });

  it('refuses TTLs that are not positive finite numbers', async () => {
    store = createMemoryStore();
    for (const ttl of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, 0.5]) store.set(`k${ttl}`, 'v', ttl);
    expect(store.stats().setsRejected).toBe(5);
    expect(await store.get('k0')).toBeUndefined();
  });

  it('evicts the least recently used entry past maxEntries', async () => {
    store = createMemoryStore({ maxEntries: 3 });
    store.set('a', '1', 10_000);
    store.set('b', '2', 10_000);
    store.set('c', '3', 10_000);
    expect(await store.get('a')).toBe('1'); // a is now the most recently used
    store.set('d', '4', 10_000); // evicts b
    expect(await store.get('b')).toBeUndefined();
    expect(await store.get('a')).toBe('1');
    expect(await store.get('c')).toBe('3');
    expect(await store.get('d')).toBe('4');
  });

  it('stays within maxBytes, evicting old entries and refusing ones that cannot fit', async () => {
    // Each entry: (1 key char + 100 value chars) × 2 + 1 = 203 bytes; 1 000 bytes hold 4.
    store = createMemoryStore({ maxBytes: 1_000 });
    const value = 'x'.repeat(100);
    for (const key of ['a', 'b', 'c', 'd', 'e', 'f']) store.set(key, value, 10_000);
    const present = [];
    for (const key of ['a', 'b', 'c', 'd', 'e', 'f'])
      if ((await store.get(key)) !== undefined) present.push(key);
    expect(present).toEqual(['c', 'd', 'e', 'f']);

    store.set('huge', 'y'.repeat(600), 10_000);
    expect(await store.get('huge')).toBeUndefined();
    expect(store.stats().setsRejected).toBe(1);
    expect(await store.get('f')).toBe(value);
  });

  it('is empty and inert after close', async () => {
    store = createMemoryStore();
    store.set('a', '1', 10_000);
    await store.close();
    store.set('b', '2', 10_000);
    expect(await store.get('a')).toBeUndefined();
    expect(await store.get('b')).toBeUndefined();
  });
});
