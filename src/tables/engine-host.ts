/**
 * The DuckDB process: holds one in-memory database per loaded file and answers the engine's requests. It runs
 * apart from the app's process so a heavy query, a runaway allocation or a native crash never stalls or takes
 * down the bot; the engine restarts it when it dies. Requests for one file run one at a time (one connection
 * each); different files run side by side.
 */
import { resourceUsage } from 'node:process';
import { loadTableFile, type LoadedDatabase } from './load-table-file';
import { resultToXlsx } from './result-xlsx';
import { runQuery, type RunningQuery } from './run-query';
import { QueryCancelledError, serializeTableError, TableNotLoadedError } from './table-errors';
import type { EngineProcessSettings, EngineReply, EngineRequest, ProcessUsage } from './engine-protocol';

export function serveTableEngine(settings: EngineProcessSettings, send: (reply: EngineReply) => void): (request: EngineRequest) => void {
  const databases = new Map<string, LoadedDatabase>();
  /** Per file, the tail of its queue: the next request for that file starts after it. */
  const queues = new Map<string, Promise<unknown>>();
  const running = new Map<number, RunningQuery>();
  const cancelledBeforeStart = new Set<number>();

  const enqueue = (key: string, job: () => Promise<unknown>): Promise<unknown> => {
    const next = (queues.get(key) ?? Promise.resolve()).then(job, job);
    const tail = next.catch(() => {});
    queues.set(key, tail);
    void tail.then(() => {
      if (queues.get(key) === tail) queues.delete(key);
    });
    return next;
  };

  const reply = (id: number, work: Promise<unknown>) => {
    work.then(
      (value) => send({ id, type: 'done', value: (value ?? null) as Extract<EngineReply, { type: 'done' }>['value'] }),
      (error: unknown) => send({ id, type: 'failed', error: serializeTableError(error) }),
    );
  };

  return (request) => {
    switch (request.type) {
      case 'load':
        reply(request.id, enqueue(request.key, async () => {
          const loaded = databases.get(request.key);
          if (loaded) return loaded.file;
          const database = await loadTableFile({ ...request, scratchDir: settings.scratchDir }, settings);
          databases.set(request.key, database);
          return database.file;
        }));
        return;
      case 'query':
        reply(request.id, enqueue(request.key, async () => {
          if (cancelledBeforeStart.delete(request.id)) throw new QueryCancelledError({ key: request.key });
          const database = databases.get(request.key);
          if (!database) throw new TableNotLoadedError(request.key);
          send({ id: request.id, type: 'started' });
          const query = runQuery(database.connection, database.file, request.sql, request.limits);
          running.set(request.id, query);
          try {
            return await query.result;
          } finally {
            running.delete(request.id);
          }
        }));
        return;
      case 'cancel': {
        const query = running.get(request.target);
        if (query) query.cancel();
        else cancelledBeforeStart.add(request.target);
        send({ id: request.id, type: 'done', value: null });
        return;
      }
      case 'drop':
        reply(request.id, enqueue(request.key, async () => {
          const database = databases.get(request.key);
          databases.delete(request.key);
          database?.connection.closeSync();
          database?.instance.closeSync();
          return null;
        }));
        return;
      case 'xlsx':
        // Not queued behind any file: it reads no database, only the rows it was sent.
        reply(request.id, resultToXlsx({ columns: request.columns, rows: request.rows }, request.sheetName));
        return;
      case 'usage': {
        const usage: ProcessUsage = {
          rssBytes: process.memoryUsage.rss(),
          peakRssBytes: resourceUsage().maxRSS * 1024,
          loadedKeys: [...databases.keys()],
        };
        send({ id: request.id, type: 'done', value: usage });
        return;
      }
    }
  };
}
