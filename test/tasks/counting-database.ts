import type { Database } from '../../src/store/database';

/** The database with every statement started through it counted (a transaction counts once). */
export function countingDatabase(db: Database): { db: Database; count(): number } {
  let count = 0;
  const counted = new Set(['select', 'selectDistinct', 'insert', 'update', 'delete', 'execute', 'transaction']);
  const proxy = new Proxy(db, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      if (typeof property === 'string' && counted.has(property)) {
        return (...args: unknown[]) => {
          count += 1;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  });
  return { db: proxy, count: () => count };
}
