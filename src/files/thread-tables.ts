/**
 * A thread's tables for one run: the process's table engine seen through the thread's file ids, each file's bytes
 * read through the thread's file access (an id of this thread, never a path the model names) under its content
 * hash, so the same bytes load once whichever thread or run asks; and the query results as the thread's files.
 */
import { describeFileError } from './describe-file-error';
import { FileReadError, type ExtractedDocument } from '../core/thread-file';
import type { Logger } from '../logging/logger';
import type { Database } from '../store/database';
import { createTableAccess, type TableAccess } from '../tables/table-access';
import type { TableEngine } from '../tables/table-engine';
import { tableKindOf } from '../tables/table-kind';
import type { ResultStore } from '../tables/result-store';
import { findContentHashes } from './file-store';
import { isResultFile } from './result-file-key';
import { createResultFiles } from './result-files';
import type { FileAccess } from './thread-file-access';

export interface ThreadTablesOptions {
  db: Database;
  threadId: number;
  engine: TableEngine;
  access: FileAccess;
  onExtracted?: (contentHash: string, document: ExtractedDocument) => Promise<void>;
  logger?: Pick<Logger, 'warn'>;
}

export function createThreadTables(options: ThreadTablesOptions): { access: TableAccess; results: ResultStore } {
  const { db, engine, access: files } = options;
  const tables = createTableAccess({
    engine,
    async readTableFile(fileId, signal) {
      const file = files.get(fileId);
      const kind = tableKindOf(file);
      if (!kind) {
        throw new FileReadError(
          'unsupported',
          `${file.id} (${file.name}) is not a table query_table reads: it takes CSV, TSV, XLSX, Parquet and JSON files (or a query result like "${file.id.replace(/\..*$/, '')}.q1").`,
        );
      }
      if (file.error) throw new FileReadError(file.error.code, file.error.message || describeFileError(file, file.error.code));
      // Loaded already (another run, another thread with the same bytes): no download.
      if (file.slackFileId && !isResultFile(file)) {
        const known = (await findContentHashes(db, [file.slackFileId])).get(file.slackFileId);
        if (known && engine.isLoaded(known)) return { key: known, kind, name: file.name };
      }
      const { bytes, contentHash } = await files.readBytes(file.id, signal);
      return { key: contentHash, kind, name: file.name, bytes };
    },
  });
  const results = createResultFiles({ db, threadId: options.threadId, access: files, onExtracted: options.onExtracted, logger: options.logger });
  return { access: tables, results };
}
