/**
 * What a process opened, closed in reverse: each part is added as soon as it is open, so a start-up that fails half
 * way closes exactly what it had opened (newest first), and stop() walks the same stack. A closer that fails is
 * reported and the others still run; the start-up's own error is the one that surfaces.
 */
import { ThreadwiseError } from './errors';

export interface Closers {
  /** `close` runs once, after everything added later has closed. */
  add(name: string, close: () => unknown): void;
  /** Closes everything, newest first; every closer runs even when one fails. Calling it again waits for the first. */
  closeAll(): Promise<void>;
  /** Runs a start-up; when it throws, closes what was added so far and rethrows its error (never a closer's). */
  closeOnFailure<T>(start: () => Promise<T>): Promise<T>;
}

/** `onFailure`: told of each closer that threw (the log); never throws itself. */
export function createClosers(onFailure: (name: string, error: unknown) => void): Closers {
  const stack: Array<{ name: string; close: () => unknown }> = [];
  let closing: Promise<void> | undefined;

  const closeAll = () =>
    (closing ??= (async () => {
      for (let entry = stack.pop(); entry; entry = stack.pop()) {
        try {
          await entry.close();
        } catch (error) {
          try {
            onFailure(entry.name, error);
          } catch {
            // A report that fails must not stop the rest from closing.
          }
        }
      }
    })());

  return {
    add(name, close) {
      if (closing) throw new ThreadwiseError('closers_closing', `cannot add "${name}": these closers are already closing`);
      stack.push({ name, close });
    },
    closeAll,
    async closeOnFailure(start) {
      try {
        return await start();
      } catch (error) {
        await closeAll();
        throw error;
      }
    },
  };
}
