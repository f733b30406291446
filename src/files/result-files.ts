/**
 * query_table's results as virtual files of the thread (ResultStore over thread_files): "F1.q1" is registered
 * beside F1, its CSV text stored as a document by content hash like extracted text, so load_file, peek_file and
 * search_file work on it, it shows in the files list, later runs find it by id, and retention sweeps it like any
 * derived content (and Slack deleting F1 removes it with F1). The columns, types and totals travel in the
 * document's notes, so make_chart and attach_file get the exact result back in a later run.
 */
import { createHash } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { ExtractedDocument, ThreadFile } from '../core/thread-file';
import type { Logger } from '../logging/logger';
import { parseCsv } from '../documents/parse-csv';
import { saveDocument } from '../documents/document-store';
import type { Database } from '../store/database';
import { threadFiles } from '../store/schema';
import { toCellValue } from '../tables/cell-values';
import { resultToCsv } from '../tables/result-csv';
import { resultId, resultName, type ResultStore, type StoredResult } from '../tables/result-store';
import type { CellValue } from '../tables/types';
import { findCachedRead, linkSlackFile } from './file-store';
import { isResultFile, resultContentHash, resultFileKey } from './result-file-key';
import type { FileAccess } from './thread-file-access';
import { toThreadFile } from './thread-file-row';

/** A note of a result's document: what the query was and what came back, for the model and for reading it back. */
const RESULT_NOTE_PREFIX = 'query result: ';

type ResultMeta = Pick<StoredResult, 'sourceFileId' | 'sql' | 'columns' | 'totalRows' | 'totalRowsExact' | 'truncated'>;

// Two runs of one thread saving at once settle in a round or two.
const MAX_ROUNDS = 8;

export interface ResultFilesOptions {
  db: Database;
  threadId: number;
  access: Pick<FileAccess, 'get' | 'list' | 'addFile'>;
  /** Indexes the result's text for search_file, as for an extracted file. */
  onExtracted?: (contentHash: string, document: ExtractedDocument) => Promise<void>;
  logger?: Pick<Logger, 'warn'>;
}

export function createResultFiles(options: ResultFilesOptions): ResultStore {
  const { db, threadId, access } = options;
  /** This run's results as they came back (the database holds them for later runs). */
  const kept = new Map<string, StoredResult>();

  return {
    async save({ sourceFileName, ...result }) {
      const source = access.get(result.sourceFileId);
      const meta: ResultMeta = {
        sourceFileId: source.id,
        sql: result.sql,
        columns: result.columns,
        totalRows: result.totalRows,
        totalRowsExact: result.totalRowsExact,
        truncated: result.truncated,
      };
      const csv = resultToCsv(result);
      const bytes = Buffer.byteLength(csv);
      const contentHash = resultContentHash(createHash('sha256').update(csv).digest('hex'));
      const document: ExtractedDocument = { text: csv, outline: [], segments: [], notes: [`${RESULT_NOTE_PREFIX}${JSON.stringify(meta)}`] };
      await saveDocument(db, contentHash, { document });

      const file = await register(source, sourceFileName, bytes);
      await linkSlackFile(db, file.slackFileId!, contentHash, bytes);
      access.addFile(file);
      if (options.onExtracted) {
        await options.onExtracted(contentHash, document).catch((error: unknown) => options.logger?.warn('indexing a query result failed', { fileId: file.id, error }));
      }
      const stored: StoredResult = { ...meta, id: file.id, name: file.name, rows: result.rows, createdAt: new Date() };
      kept.set(stored.id, stored);
      return stored;
    },

    async get(id) {
      const wanted = id.trim();
      const found = kept.get(wanted);
      if (found) return found;
      const file = access.list().find((f) => f.id.toLowerCase() === wanted.toLowerCase());
      if (!file || !isResultFile(file)) return undefined;
      const cached = await findCachedRead(db, file.slackFileId!);
      if (!cached?.ok) return undefined;
      const stored = readBack(file, cached.document);
      if (stored) kept.set(stored.id, stored);
      return stored;
    },
  };

  /** Registers the next free "F1.qN" of the source (racing runs of the thread each get their own number). */
  async function register(source: ThreadFile, sourceFileName: string, bytes: number): Promise<ThreadFile> {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const taken = new Set((await db.select({ id: threadFiles.fileId }).from(threadFiles).where(eq(threadFiles.threadId, threadId))).map((row) => row.id));
      let sequence = 1;
      while (taken.has(resultId(source.id, sequence))) sequence++;
      const fileId = resultId(source.id, sequence);
      const inserted = await db
        .insert(threadFiles)
        .values({
          threadId,
          fileId,
          slackFileId: resultFileKey(threadId, fileId),
          sourceFileId: source.id,
          name: resultName(sourceFileName, sequence),
          mimeType: 'text/csv',
          fileType: 'csv',
          sizeBytes: bytes,
          messageTs: source.messageTs,
          authorName: null,
        })
        .onConflictDoNothing()
        .returning();
      if (inserted[0]) return toThreadFile(inserted[0]);
    }
    throw new Error(`Could not register a result of ${source.id} in thread ${threadId} after ${MAX_ROUNDS} tries: ids kept colliding.`);
  }
}

/**
 * A result of a thread as stored, read outside any run (the console shows what a run posted): undefined for an id
 * that is not a result of that thread, or one whose text retention has swept.
 */
export async function readStoredResult(db: Database, threadId: number, fileId: string): Promise<StoredResult | undefined> {
  const [row] = await db.select().from(threadFiles).where(and(eq(threadFiles.threadId, threadId), eq(threadFiles.fileId, fileId)));
  if (!row) return undefined;
  const file = toThreadFile(row);
  if (!isResultFile(file)) return undefined;
  const cached = await findCachedRead(db, file.slackFileId!);
  return cached?.ok ? readBack(file, cached.document) : undefined;
}

/** A stored result from its document: the rows parsed from its CSV, typed again by its columns' types. */
function readBack(file: ThreadFile, document: ExtractedDocument): StoredResult | undefined {
  const note = document.notes.find((n) => n.startsWith(RESULT_NOTE_PREFIX));
  if (!note) return undefined;
  let meta: ResultMeta;
  try {
    meta = JSON.parse(note.slice(RESULT_NOTE_PREFIX.length)) as ResultMeta;
  } catch {
    return undefined;
  }
  const types = meta.columns.map((column) => column.type);
  const { rows } = parseCsv(document.text, ',', () => true);
  return { ...meta, id: file.id, name: file.name, rows: rows.slice(1).map((row) => types.map((type, i) => fromCsvCell(row[i] ?? '', type))), createdAt: new Date() };
}

function fromCsvCell(text: string, type: string): CellValue {
  if (text === '') return null;
  if (type === 'BOOLEAN') return text === 'true' ? true : text === 'false' ? false : text;
  if (/^(STRUCT|MAP|JSON)|\[\]$/.test(type)) {
    try {
      return JSON.parse(text) as CellValue;
    } catch {
      return text;
    }
  }
  return toCellValue(text, type);
}

