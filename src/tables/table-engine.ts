/**
 * The SQL engine over a thread's tabular files: DuckDB in a process of its own (engine-host.ts), one in-memory
 * database per file, cached by content hash (least recently used dropped past `maxLoadedFiles`). The app's event
 * loop only sends messages and receives rows, so a heavy GROUP BY never stalls it; a crashed or hung DuckDB process
 * is replaced on the next call.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EngineProcessSettings, EngineReply, EngineRequest, EngineRequestBody, ProcessUsage } from './engine-protocol';
import {
  deserializeTableError,
  QueryCancelledError,
  QueryTimeoutError,
  TableEngineError,
  TableLoadError,
  TableNotLoadedError,
} from './table-errors';
import { DEFAULT_QUERY_LIMITS, type CellValue, type LoadedFile, type QueryLimits, type TableColumn, type TableResult, type TableSource } from './types';

export interface TableEngineOptions {
  /** Files kept loaded at once (each is its own DuckDB database); the least recently used is dropped. Default 8. */
  maxLoadedFiles?: number;
  /** DuckDB's memory limit per loaded file, MB. Default 512. */
  memoryLimitMb?: number;
  /** DuckDB threads per loaded file. Default 2. */
  threads?: number;
  /** Default limits for every query; a call may lower or raise them. */
  limits?: Partial<QueryLimits>;
  /**
   * How long past a query's time limit the engine waits for DuckDB's interrupt to land before it treats the
   * process as hung, kills it and starts a fresh one. Default 5 s.
   */
  hangGraceMs?: number;
  /** Where the engine's private temporary folder goes. Default the OS's temp directory. */
  scratchParent?: string;
}

interface QueryOptions {
  signal?: AbortSignal;
  limits?: Partial<QueryLimits>;
}

export interface TableEngine {
  /** Loads a file (once per content hash; a second call returns the cached description). */
  load(source: TableSource): Promise<LoadedFile>;
  /** Whether this content is loaded now (it may be dropped later: then `query` throws TableNotLoadedError). */
  isLoaded(key: string): boolean;
  /** The loaded file's tables, columns, types and row counts. Throws TableNotLoadedError when not loaded. */
  describe(key: string): LoadedFile;
  /** Runs one read-only SELECT over a loaded file under the limits. */
  query(key: string, sql: string, options?: QueryOptions): Promise<TableResult>;
  /**
   * A result as an XLSX workbook of one sheet (result-xlsx.ts), written in the engine's process: exceljs and the
   * work of zipping stay off the app's event loop.
   */
  writeXlsx(result: { columns: TableColumn[]; rows: CellValue[][] }, sheetName: string): Promise<Uint8Array>;
  /** The DuckDB process's memory now and at its peak (starting it when it is not running). */
  usage(): Promise<ProcessUsage>;
  /** Ends the DuckDB process and removes the engine's temporary files. */
  close(): Promise<void>;
}

const ENTRY = fileURLToPath(new URL('./engine-process.mjs', import.meta.url));

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  onStarted?(): void;
}

export function createTableEngine(options: TableEngineOptions = {}): TableEngine {
  const maxLoadedFiles = options.maxLoadedFiles ?? 8;
  const defaultLimits: QueryLimits = { ...DEFAULT_QUERY_LIMITS, ...options.limits };
  const hangGraceMs = options.hangGraceMs ?? 5_000;
  const scratchDir = mkdtempSync(path.join(options.scratchParent ?? tmpdir(), 'threadwise-tables-'));
  const settings: EngineProcessSettings = { memoryLimitMb: options.memoryLimitMb ?? 512, threads: options.threads ?? 2, scratchDir };

  /** Loaded files by content hash, least recently used first (Map order). Mirrors what the process holds. */
  const loaded = new Map<string, LoadedFile>();
  const loading = new Map<string, Promise<LoadedFile>>();
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let child: ChildProcess | undefined;
  let ready: Promise<ChildProcess> | undefined;
  let closed = false;

  const touch = (key: string, file: LoadedFile) => {
    loaded.delete(key);
    loaded.set(key, file);
  };

  const start = (): Promise<ChildProcess> => {
    if (ready) return ready;
    const process = fork(ENTRY, [JSON.stringify(settings)], {
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      // The app's own flags (heap sizes, tsx, vitest's) are not the DuckDB process's business.
      execArgv: [],
    });
    child = process;
    ready = new Promise<ChildProcess>((resolve, reject) => {
      pending.set(0, { resolve: () => resolve(process), reject });
    });
    process.on('message', (reply: EngineReply) => settle(reply));
    process.on('exit', (code, signal) => {
      if (child !== process) return;
      child = undefined;
      ready = undefined;
      // Everything the process held is gone with it: the next query loads its file again.
      loaded.clear();
      const error = new TableEngineError(
        `The table engine's process stopped (${signal ?? `exit code ${code}`}); the file will be loaded again on the next query.`,
        { context: { code, signal } },
      );
      for (const [id, waiter] of pending) {
        pending.delete(id);
        waiter.reject(error);
      }
    });
    process.on('error', () => {
      // 'exit' follows and settles everything pending.
    });
    setIdle(process, false);
    return ready;
  };

  /** A DuckDB process with nothing to do must not keep the app (or `npm run chat`) from exiting. */
  const setIdle = (process: ChildProcess, idle: boolean) => {
    const channel = process.channel as { ref?(): void; unref?(): void } | null | undefined;
    if (idle) {
      process.unref();
      channel?.unref?.();
    } else {
      process.ref();
      channel?.ref?.();
    }
  };

  const settle = (reply: EngineReply) => {
    const waiter = pending.get(reply.id);
    if (!waiter) return;
    if (reply.type === 'started') {
      waiter.onStarted?.();
      return;
    }
    pending.delete(reply.id);
    if (reply.type === 'done') waiter.resolve(reply.value);
    else waiter.reject(deserializeTableError(reply.error));
    if (pending.size === 0 && child) setIdle(child, true);
  };

  const request = async <T>(message: EngineRequestBody, hooks: { onStarted?(): void; id?: number } = {}): Promise<T> => {
    if (closed) throw new TableEngineError('The table engine is closed.');
    const process = await start();
    const id = hooks.id ?? nextId++;
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject, onStarted: hooks.onStarted });
      setIdle(process, false);
      process.send({ ...message, id } as EngineRequest);
    });
  };

  const evictBeyondLimit = async () => {
    while (loaded.size > maxLoadedFiles) {
      const oldest = loaded.keys().next().value as string;
      loaded.delete(oldest);
      await request({ type: 'drop', key: oldest });
    }
  };

  const loadOnce = async (source: TableSource): Promise<LoadedFile> => {
    let filePath = source.path;
    let written: string | undefined;
    if (!filePath) {
      if (!source.bytes) throw new TableLoadError(`${source.name}: no bytes and no stored path were given to load.`, { context: { key: source.key } });
      // The engine's own private folder, a name it chose: the DuckDB process reads only paths the app wrote.
      written = path.join(scratchDir, `${nextId++}.${source.kind}`);
      await writeFile(written, source.bytes);
      filePath = written;
    }
    try {
      const file = await request<LoadedFile>({ type: 'load', key: source.key, name: source.name, kind: source.kind, path: filePath });
      touch(source.key, file);
      await evictBeyondLimit();
      return file;
    } finally {
      if (written) await rm(written, { force: true });
    }
  };

  return {
    load(source) {
      const cached = loaded.get(source.key);
      if (cached) {
        touch(source.key, cached);
        return Promise.resolve(cached);
      }
      const inFlight = loading.get(source.key);
      if (inFlight) return inFlight;
      const promise = loadOnce(source).finally(() => loading.delete(source.key));
      loading.set(source.key, promise);
      return promise;
    },

    isLoaded: (key) => loaded.has(key),

    describe(key) {
      const file = loaded.get(key);
      if (!file) throw new TableNotLoadedError(key);
      return file;
    },

    async query(key, sql, queryOptions = {}) {
      const file = loaded.get(key);
      if (!file) throw new TableNotLoadedError(key);
      touch(key, file);
      const limits: QueryLimits = { ...defaultLimits, ...queryOptions.limits };
      const signal = queryOptions.signal;
      if (signal?.aborted) throw new QueryCancelledError({ key });

      const id = nextId++;
      let watchdog: NodeJS.Timeout | undefined;
      let hung = false;
      const onAbort = () => {
        child?.send({ id: nextId++, type: 'cancel', target: id } satisfies EngineRequest);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        return await request<TableResult>(
          { type: 'query', key, sql, limits },
          {
            id,
            // The deadline runs in the DuckDB process from the moment the query starts (not while it queues behind
            // another query on the same file); this watchdog only catches a process that no longer answers.
            onStarted: () => {
              const process = child;
              watchdog = setTimeout(() => {
                hung = true;
                process?.kill('SIGKILL');
              }, limits.timeoutMs + hangGraceMs);
            },
          },
        );
      } catch (error) {
        if (hung) {
          throw new QueryTimeoutError(
            `The query was stopped after ${limits.timeoutMs / 1000} s, the time limit per query (the engine was restarted). Make it cheaper: filter early and aggregate.`,
            { key },
          );
        }
        throw error;
      } finally {
        clearTimeout(watchdog);
        signal?.removeEventListener('abort', onAbort);
      }
    },

    async writeXlsx(result, sheetName) {
      // Structured clone hands a Uint8Array back as a Uint8Array (the "advanced" serialization).
      return request<Uint8Array>({ type: 'xlsx', sheetName, columns: result.columns, rows: result.rows });
    },

    usage: () => request<ProcessUsage>({ type: 'usage' }),

    async close() {
      if (closed) return;
      closed = true;
      const process = child;
      if (process) {
        const exited = new Promise<void>((resolve) => process.once('exit', () => resolve()));
        process.disconnect();
        // A DuckDB query that ignores the disconnect still ends: the process is killed after a moment.
        const kill = setTimeout(() => process.kill('SIGKILL'), 2_000);
        await exited;
        clearTimeout(kill);
      }
      rmSync(scratchDir, { recursive: true, force: true });
    },
  };
}
