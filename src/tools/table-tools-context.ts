/**
 * What query_table, make_chart and attach_file need beyond ToolContext, kept out of tool.ts so the tools can be
 * wired in without changing it: the lead builds these per thread and passes them to createTableTools.
 */
import { ThreadwiseError } from '../core/errors';
import type { ChartRenderer } from '../charts/chart-renderer';
import type { ResultStore } from '../tables/result-store';
import type { ToolContext } from './tool';
import type { TableAccess } from '../tables/table-access';
import type { ThreadOutput } from './thread-output';

export type { ThreadOutput } from './thread-output';

/** A thread file that is not a query result, as bytes to attach (extracted text, a generated file). */
interface AttachableFileReader {
  /** Throws for an id not in the thread (the registry's UnknownFileError, listing what exists). */
  read(fileId: string, signal?: AbortSignal): Promise<{ name: string; bytes: Uint8Array; mimeType: string }>;
}

export interface TableToolDeps {
  tables: TableAccess;
  results: ResultStore;
  output: ThreadOutput;
  /** Draws make_chart's PNGs off the event loop (one worker for the process, started by the first chart). */
  charts: ChartRenderer;
  /** For attach_file on ids that are not query results; without it only results can be attached. */
  files?: AttachableFileReader;
}

/** The deps for one call, from the run's context (one registration of the tools serves every thread). */
export type ResolveTableToolDeps = (context: ToolContext) => TableToolDeps;

/**
 * The deps from the run's ToolContext (tables, results and output filled in by the run from its files and its
 * answer channel); where the run has none (a surface without tables), a sentence the model can act on.
 */
export function tableToolDepsFromContext(context: ToolContext): Omit<TableToolDeps, 'charts'> {
  if (!context.tables) throw new ThreadwiseError('tables_unavailable', 'Tables cannot be queried here: this deployment has no table engine. Read the file with peek_file or search_file instead.');
  if (!context.output) throw new ThreadwiseError('output_unavailable', 'Nothing can be posted into the thread from here; give the numbers in your answer instead.');
  const files = context.files;
  return {
    tables: context.tables.access,
    results: context.tables.results,
    output: context.output,
    files: {
      async read(fileId, signal) {
        const { file, bytes } = await files.readBytes(fileId, signal);
        return { name: file.name, bytes, mimeType: file.mimeType || 'application/octet-stream' };
      },
    },
  };
}
