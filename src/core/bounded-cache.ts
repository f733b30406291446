/**
 * A cache that cannot grow for the life of the process: at most `maxEntries` (the least recently used goes first)
 * and each entry kept for `ttlMs` at most, so what it remembers (a person's name, a channel's purpose) is also
 * refreshed now and then.
 */
export interface BoundedCache<Key, Value> {
  get(key: Key): Value | undefined;
  set(key: Key, value: Value): void;
  delete(key: Key): void;
  clear(): void;
  readonly size: number;
}

export function createBoundedCache<Key, Value>(options: { maxEntries: number; ttlMs: number; now?: () => number }): BoundedCache<Key, Value> {
  const now = options.now ?? Date.now;
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  const entries = new Map<Key, { value: Value; expires: number }>();
  return {
    get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      entries.delete(key);
      if (entry.expires <= now()) return undefined;
      entries.set(key, entry);
      return entry.value;
    },
    set(key, value) {
      entries.delete(key);
      entries.set(key, { value, expires: now() + options.ttlMs });
      while (entries.size > options.maxEntries) entries.delete(entries.keys().next().value as Key);
    },
    delete(key) {
      entries.delete(key);
    },
    clear() {
      entries.clear();
    },
    get size() {
      return entries.size;
    },
  };
}
