/**
 * What query_table, make_chart and attach_file need beyond ToolContext, kept out of tool.ts so the tools can be
 * wired in without changing it: the lead builds these per thread and passes them to createTableTools.
 */
import type { LoadedFile, TableResult } from '../tables/types';
import type { ResultStore } from '../tables/result-store';
import type { ToolContext } from './tool';

/** SQL over the thread's tabular files (src/tables/table-access.ts implements it over the engine). */
export interface TableAccess {
  /** Runs one read-only SELECT over a thread file; throws a TableError with a sentence for the model. */
  query(fileId: string, sql: string, signal?: AbortSignal): Promise<{ file: LoadedFile; result: TableResult }>;
  /** The file's tables, columns, types and row counts (loading it on first use). */
  describe(fileId: string, signal?: AbortSignal): Promise<LoadedFile>;
}

/** Posting into the thread the run answers (src/slack/upload-file.ts for Slack; a folder for the terminal chat). */
export interface ThreadOutput {
  /** Posts an image (a chart) into the thread; returns the posted file's id where the surface has one. */
  postImage(image: { name: string; png: Uint8Array; altText: string; title?: string }): Promise<{ fileId?: string; location?: string }>;
  /** Uploads a file into the thread. */
  attachFile(file: { name: string; bytes: Uint8Array; mimeType: string; title?: string }): Promise<{ fileId?: string; location?: string }>;
  /**
   * Posts Block Kit blocks into the thread (Slack's chart block). Optional: without it every chart is a PNG, which
   * is also what the terminal chat and surfaces without the block get.
   */
  postBlocks?(message: { blocks: unknown[]; text: string }): Promise<void>;
}

/** A thread file that is not a query result, as bytes to attach (extracted text, a generated file). */
export interface AttachableFileReader {
  /** Throws for an id not in the thread (the registry's UnknownFileError, listing what exists). */
  read(fileId: string, signal?: AbortSignal): Promise<{ name: string; bytes: Uint8Array; mimeType: string }>;
}

export interface TableToolDeps {
  tables: TableAccess;
  results: ResultStore;
  output: ThreadOutput;
  /** For attach_file on ids that are not query results; without it only results can be attached. */
  files?: AttachableFileReader;
}

/** The deps for one call, from the run's context (one registration of the tools serves every thread). */
export type ResolveTableToolDeps = (context: ToolContext) => TableToolDeps;
