export declare const DATABASE_NICENESS: 5;
export declare const BACKGROUND_NICENESS: 10;
/** Runs the calling thread (a worker) at `niceness`: background work unless said otherwise. */
export declare function lowerThreadPriority(niceness?: number): void;
/** Runs every other thread the process has now at background priority; call from the main thread first thing. */
export declare function lowerHelperThreadsPriority(): void;
