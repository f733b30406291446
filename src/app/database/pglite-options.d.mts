/** Types for pglite-options.mjs (plain JavaScript, shared by the database's thread and the process that creates it). */
export declare const pgliteStartParams: string[];
export declare function describeError(error: unknown): { name: string; message: string; stack?: string } & Record<string, unknown>;
