/**
 * A real database behind a switch that makes it unreachable: every query fails the way a refused connection does
 * while it is down, or for the next N queries. Passed in where the app takes its database; nothing is mocked.
 */
import type { Database } from '../../src/store/database';

const QUERY_METHODS = new Set(['transaction', 'select', 'insert', 'update', 'delete', 'execute']);

export interface FlakyDatabase {
  db: Database;
  /** The next `count` queries (or transactions) fail. */
  failNext(count: number): void;
  /** The next transaction loses the connection after `statements` statements went through (then rolls back). */
  failMidTransaction(statements: number): void;
  down(): void;
  up(): void;
  /** Queries refused so far. */
  refused: number;
}

const connectionRefused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

export function flakyDatabase(real: Database): FlakyDatabase {
  let failuresLeft = 0;
  let isDown = false;
  let midTransaction: number | undefined;

  /** A transaction whose statements fail once `budget` of them went through. */
  const countingTransaction = (tx: object, budget: number) => {
    let left = budget;
    return new Proxy(tx, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (typeof value !== 'function' || !QUERY_METHODS.has(String(property))) return value;
        return (...args: unknown[]) => {
          if (left-- <= 0) throw connectionRefused();
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  };

  const flaky: FlakyDatabase = {
    db: new Proxy(real, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (typeof value !== 'function' || !QUERY_METHODS.has(String(property))) return value;
        return (...args: unknown[]) => {
          if (isDown || failuresLeft > 0) {
            failuresLeft = Math.max(0, failuresLeft - 1);
            flaky.refused += 1;
            throw connectionRefused();
          }
          if (property === 'transaction' && midTransaction !== undefined) {
            const budget = midTransaction;
            midTransaction = undefined;
            const [work, ...rest] = args as [(tx: object) => Promise<unknown>, ...unknown[]];
            return (value as (...a: unknown[]) => unknown).apply(target, [(tx: object) => work(countingTransaction(tx, budget)), ...rest]);
          }
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    }),
    failNext(count) {
      failuresLeft = count;
    },
    failMidTransaction(statements) {
      midTransaction = statements;
    },
    down() {
      isDown = true;
    },
    up() {
      isDown = false;
    },
    refused: 0,
  };
  return flaky;
}
