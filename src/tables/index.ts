/** SQL over a thread's tabular files: the engine, the thread's view of it, results, and the describer. */
export { createTableEngine } from './table-engine';
export * from './table-errors';
export * from './types';
