/**
 * Time as a parameter. Code that stamps or waits takes a Clock, so tests move time by hand instead of sleeping;
 * everything else gets `systemClock`.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch, as Date.now(). */
  now(): number;
  /** Calls `callback` once, `ms` from now; the function returned cancels the call (harmless once it has run). */
  setTimeout(callback: () => void, ms: number): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(callback, ms) {
    const timer = setTimeout(callback, ms);
    return () => clearTimeout(timer);
  },
};
