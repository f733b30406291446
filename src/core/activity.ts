/**
 * Work in flight on the data path, counted, so that "nothing is happening" can be waited for instead of guessed
 * at with a sleep. Every piece of asynchronous work (an event being admitted, a run, a post) registers while it
 * runs; `idle()` resolves once none is left.
 */
export interface Activity {
  /** Registers one piece of work; call the function returned when it is over (more than once is harmless). */
  begin(): () => void;
  /** Registers `work` until it settles; returns it unchanged. */
  track<T>(work: Promise<T>): Promise<T>;
  /** Pieces of work in flight now. */
  busy(): number;
  /**
   * Resolves when no work is in flight, and none began during one more turn of the event loop (work that a
   * finishing piece hands on, in a callback or a timer already due, has begun by then).
   */
  idle(): Promise<void>;
}

export function createActivity(): Activity {
  let busy = 0;
  const waiters: Array<() => void> = [];

  const begin = () => {
    busy += 1;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      busy -= 1;
      if (busy === 0) for (const wake of waiters.splice(0)) wake();
    };
  };

  return {
    begin,
    track(work) {
      const end = begin();
      work.then(end, end);
      return work;
    },
    busy: () => busy,
    async idle() {
      for (;;) {
        if (busy > 0) await new Promise<void>((resolve) => waiters.push(resolve));
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (busy === 0) return;
      }
    },
  };
}

/** For code that is given no Activity: tracks nothing. */
export const untracked: Activity = {
  begin: () => () => {},
  track: (work) => work,
  busy: () => 0,
  idle: () => Promise.resolve(),
};
