/**
 * Time as a parameter. Code that stamps or waits takes a Clock, so tests move time by hand instead of sleeping;
 * everything else gets `systemClock`.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch, as Date.now(). */
  now(): number;
  /**
   * Calls `callback` once, `ms` from now; the function returned cancels the call (harmless once it has run).
   * `background`: the wait alone does not keep the process alive (a timer's unref()).
   */
  setTimeout(callback: () => void, ms: number, options?: { background?: boolean }): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(callback, ms, options) {
    const timer = setTimeout(callback, ms);
    if (options?.background) timer.unref();
    return () => clearTimeout(timer);
  },
};

/** Calls `callback` every `ms` (the next call counted from when this one began), until the function returned is called. */
export function every(clock: Clock, ms: number, callback: () => void, options?: { background?: boolean }): () => void {
  let cancel: (() => void) | undefined;
  let stopped = false;
  const arm = () => {
    cancel = clock.setTimeout(
      () => {
        if (stopped) return;
        arm();
        callback();
      },
      ms,
      options,
    );
  };
  arm();
  return () => {
    stopped = true;
    cancel?.();
  };
}

/** Resolves `ms` from now on `clock`; with `background`, the wait alone does not keep the process alive. */
export function sleep(clock: Clock, ms: number, options?: { background?: boolean }): Promise<void> {
  return new Promise<void>((resolve) => clock.setTimeout(resolve, ms, options));
}
