import type { Clock } from '../../src/core/clock';

/** A clock that only moves when a test moves it: timers fire inside `advance`, in the order they fall due. */
export interface FakeClock extends Clock {
  /** Moves time forward by `ms`, firing every timer that falls due on the way (timers they set included). */
  advance(ms: number): void;
  /**
   * Moves time to `target` a due instant at a time: fires every timer due then (two replicas woken together race
   * for real), and lets the work they started settle (`settle`) before looking for the next — timers that work sets
   * included — so a week of a scheduler's life takes as many steps as it set timers, not as it has milliseconds.
   */
  runUntil(target: number, settle: () => Promise<unknown>): Promise<void>;
  /** Timers set and not yet fired or cancelled. */
  pending(): number;
}

export function createFakeClock(start = Date.UTC(2026, 10, 24, 9, 0, 0)): FakeClock {
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
    advance(ms) {
      const until = now + ms;
      for (;;) {
        // The earliest due timer; among equals, the one set first (ids grow).
        let first: [number, { due: number; callback: () => void }] | undefined;
        for (const entry of timers) if (entry[1].due <= until && (!first || entry[1].due < first[1].due)) first = entry;
        if (!first) break;
        timers.delete(first[0]);
        now = first[1].due;
        first[1].callback();
      }
      now = until;
    },
    async runUntil(target, settle) {
      await settle();
      for (;;) {
        let due: number | undefined;
        for (const timer of timers.values()) if (timer.due <= target && (due === undefined || timer.due < due)) due = timer.due;
        if (due === undefined) break;
        now = Math.max(now, due);
        for (const [id, timer] of [...timers]) {
          if (timer.due > due) continue;
          timers.delete(id);
          timer.callback();
        }
        await settle();
      }
      now = Math.max(now, target);
      await settle();
    },
    pending: () => timers.size,
  };
}
