/** SQL over a thread's tabular files: the engine, the thread's view of it, results, and the describer. */
export { createTableEngine, type QueryOptions, type TableEngine, type TableEngineOptions } from './table-engine';
export { createTableAccess, type TableFileReader } from './table-access';
export { createMemoryResultStore, resultId, resultName, type NewResult, type ResultStore, type StoredResult } from './result-store';
export { describeTableFile } from './describe-table-file';
export { formatTableList } from './format-table-list';
export { resultToCsv } from './result-csv';
export { tableKindOf } from './table-kind';
export * from './table-errors';
export * from './types';
