/**
 * What query_table, make_chart and attach_file need beyond ToolContext, kept out of tool.ts so the tools can be
 * wired in without changing it: the lead builds these per thread and passes them to createTableTools.
 */
import type { ResultStore } from '../tables/result-store';
import type { ToolContext } from './tool';
import type { TableAccess } from '../tables/table-access';

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
