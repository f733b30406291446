import type { Clock } from '../../src/core/clock';

/**
 * A clock that moves only when a test moves it. `runUntil` fires each timer at its due time, in order, and lets
 * the work it started settle (`settle`) before looking for the next one — timers that work sets included — so a
 * week of a scheduler's life takes as many steps as it set timers, not as many as it has milliseconds.
 */
export interface ManualClock extends Clock {
  runUntil(target: number, settle: () => Promise<void>): Promise<void>;
  /** Timers set and not yet fired or cancelled. */
  pending(): number;
}

export function createManualClock(start: number): ManualClock {
  let now = start;
  let nextId = 0;
  const timers = new Map<number, { due: number; callback: () => void }>();
  return {
    now: () => now,
    setTimeout(callback, ms) {
      const id = nextId++;
      timers.set(id, { due: now + Math.max(0, ms), callback });
      return () => timers.delete(id);
    },
    async runUntil(target, settle) {
      await settle();
      for (;;) {
        let first: [number, { due: number; callback: () => void }] | undefined;
        for (const entry of timers) if (entry[1].due <= target && (!first || entry[1].due < first[1].due)) first = entry;
        if (!first) break;
        // Every timer due at this instant fires before the work settles: two replicas woken together race for real.
        const due = first[1].due;
        now = Math.max(now, due);
        for (const [id, timer] of [...timers]) {
          if (timer.due <= due) {
            timers.delete(id);
            timer.callback();
          }
        }
        await settle();
      }
      now = Math.max(now, target);
      await settle();
    },
    pending: () => timers.size,
  };
}
