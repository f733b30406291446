/**
 * Query results kept so later calls can name them: make_chart and attach_file take a result id, and the lead
 * backs this with the thread's virtual files (ids like the extracted-text ids, retention like any thread file) so
 * load_file/peek_file/search_file work on a result too. The in-memory store here serves tests and the terminal.
 */
import type { CellValue, TableColumn } from './types';

export interface StoredResult {
  /** The id the model uses: "F1.q1" for the first result over F1. */
  id: string;
  /** The thread file the query ran over. */
  sourceFileId: string;
  sql: string;
  columns: TableColumn[];
  rows: CellValue[][];
  /** Rows the query produced; `rows` holds all of them unless `truncated`. */
  totalRows: number;
  totalRowsExact: boolean;
  truncated: boolean;
  /** A file name for the result when it is attached or listed: "sales.q1.csv". */
  name: string;
  createdAt: Date;
}

type NewResult = Omit<StoredResult, 'id' | 'name' | 'createdAt'> & { sourceFileName: string };

export interface ResultStore {
  /** Keeps a result and gives it its id and name. */
  save(result: NewResult): Promise<StoredResult>;
  /** A kept result, or undefined for an id that is not a result of this thread. */
  get(id: string): Promise<StoredResult | undefined>;
}

/** Result ids: the source file's id, ".q", and a number counted per source file. */
export function resultId(sourceFileId: string, sequence: number): string {
  return `${sourceFileId}.q${sequence}`;
}

/** "sales.csv" → "sales.q1.csv": the result's name says where it came from. */
export function resultName(sourceFileName: string, sequence: number): string {
  const stem = sourceFileName.replace(/\.[^.]+$/, '') || 'result';
  return `${stem}.q${sequence}.csv`;
}

/** The media type of a result attached as CSV or as a workbook. */
export const RESULT_MIME_TYPES = { csv: 'text/csv', xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' } as const;

/** The file a result is attached as: its CSV name, or the same name ending in ".xlsx" for a workbook. */
export function resultFileName(name: string, format: 'csv' | 'xlsx'): string {
  return format === 'csv' ? name : `${name.replace(/\.csv$/, '')}.xlsx`;
}

/** A thread's results in memory (tests, the terminal chat); bounded, the oldest dropped first. */
export function createMemoryResultStore(options: { maxResults?: number; now?: () => Date } = {}): ResultStore {
  const maxResults = options.maxResults ?? 100;
  const now = options.now ?? (() => new Date());
  const results = new Map<string, StoredResult>();
  const sequences = new Map<string, number>();
  return {
    async save({ sourceFileName, ...result }) {
      const sequence = (sequences.get(result.sourceFileId) ?? 0) + 1;
      sequences.set(result.sourceFileId, sequence);
      const stored: StoredResult = { ...result, id: resultId(result.sourceFileId, sequence), name: resultName(sourceFileName, sequence), createdAt: now() };
      results.set(stored.id, stored);
      while (results.size > maxResults) results.delete(results.keys().next().value as string);
      return stored;
    },
    async get(id) {
      return results.get(id);
    },
  };
}
