/**
 * Where a thread's file bytes come from. Slack's files are downloaded with the bot token (slack-file-source.ts); a
 * terminal's files are read from the local disk (local-file-source.ts). Everything after the bytes — ids, the cache
 * by content hash, extraction, search, preloads, images for the model — is the same whichever source read them.
 *
 * A source is opened per run with the file objects of the thread's messages in hand (`FileObjects`, by the file's
 * source key: Slack's file id, or `local:…`); the composition root decides which source a process may use, so the
 * Slack bot never reads a local path and the terminal never sends a token anywhere.
 */
import type { ThreadFile } from '../core/thread-file';
import type { SlackFileObject } from '../core/slack-file';

/** The file objects of the thread's messages, by source key. */
export type FileObjects = ReadonlyMap<string, SlackFileObject>;

/** An image for the model, as a data: URL (the model cannot fetch Slack URLs, which need the bot token). */
export interface ShownImage {
  dataUrl: string;
  width?: number;
  height?: number;
}

interface FileBytes {
  bytes: Buffer;
  /** sha256 of the bytes, hex: the key of the extraction cache. */
  contentHash: string;
}

export interface FileSource {
  /**
   * The whole file, refused with a FileReadError sentence when it is over `maxBytes`, gone, or not readable.
   * `key` is the file's source key (ThreadFile.slackFileId).
   */
  readBytes(file: ThreadFile, key: string, options: { maxBytes: number; signal?: AbortSignal }): Promise<FileBytes>;
  /** The best version of an image that fits `maxImageBytes`, as a data: URL for the model. */
  readImage(file: ThreadFile, key: string, options: { maxImageBytes: number; signal?: AbortSignal }): Promise<ShownImage>;
}

/** Opens the source for one run, given the file objects its messages carry. */
export type OpenFileSource = (objects: FileObjects) => FileSource;

/** The file objects of these messages, by source key; a later sighting of a file replaces an earlier one. */
export function fileObjectsOf(messages: ReadonlyArray<{ files?: SlackFileObject[] }>): Map<string, SlackFileObject> {
  const objects = new Map<string, SlackFileObject>();
  for (const message of messages) for (const file of message.files ?? []) objects.set(file.id, file);
  return objects;
}
