import { describe, expect, it } from 'vitest';
import { createBoundedCache } from '../../src/core/bounded-cache';

describe('createBoundedCache', () => {
  it('keeps at most maxEntries, dropping the least recently used first', () => {
    const cache = createBoundedCache<string, number>({ maxEntries: 2, ttlMs: 60_000 });
    cache.set('ana', 1);
    cache.set('bob', 2);
    expect(cache.get('ana')).toBe(1); // ana is now the most recently used
    cache.set('cleo', 3);
    expect(cache.get('bob')).toBeUndefined();
    expect(cache.get('ana')).toBe(1);
    expect(cache.get('cleo')).toBe(3);
    expect(cache.size).toBe(2);
  });

  it('forgets an entry once it is older than ttlMs, so it is asked for again', () => {
    let now = 1_000;
    const cache = createBoundedCache<string, string>({ maxEntries: 10, ttlMs: 500, now: () => now });
    cache.set('U0ANA', 'Ana');
    now += 499;
    expect(cache.get('U0ANA')).toBe('Ana');
    now += 1;
    expect(cache.get('U0ANA')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('holds a million keys passed through it to its bound', () => {
    const cache = createBoundedCache<number, number>({ maxEntries: 100, ttlMs: 60_000 });
    for (let i = 0; i < 1_000_000; i++) cache.set(i, i);
    expect(cache.size).toBe(100);
    expect(cache.get(999_999)).toBe(999_999);
    expect(cache.get(0)).toBeUndefined();
  });
});
