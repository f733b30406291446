/**
 * A counting semaphore with abortable waits. The extractor takes a slot before handing a file to the pool, so the
 * pool never queues and each file's timeout measures its own work.
 */

export interface Slots {
  /** Resolves with a release function once a slot is free; rejects with the signal's reason if aborted first. */
  acquire(signal?: AbortSignal): Promise<() => void>;
  /** Rejects every waiter with `reason`; later acquires reject too. */
  close(reason: Error): void;
  /** Acquires waiting for a free slot now. */
  waiting(): number;
}

interface Waiter {
  grant: (release: () => void) => void;
  reject: (reason: unknown) => void;
}

export function createSlots(capacity: number): Slots {
  let free = capacity;
  let closed: Error | undefined;
  const waiters: Waiter[] = [];

  function makeRelease(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = waiters.shift();
      if (next) next.grant(makeRelease());
      else free++;
    };
  }

  return {
    acquire(signal) {
      if (closed) return Promise.reject(closed);
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (free > 0) {
        free--;
        return Promise.resolve(makeRelease());
      }
      return new Promise((resolve, reject) => {
        const onAbort = () => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(signal?.reason);
        };
        const waiter: Waiter = {
          grant: (release) => {
            signal?.removeEventListener('abort', onAbort);
            resolve(release);
          },
          reject,
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        waiters.push(waiter);
      });
    },
    waiting: () => waiters.length,
    close(reason) {
      closed = reason;
      for (const waiter of waiters.splice(0)) waiter.reject(reason);
    },
  };
}
