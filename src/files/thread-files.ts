/**
 * The thread's files, opened for one run (runs/seams.ts, ThreadFiles): registered with stable ids, readable by the
 * tools, preloaded where small, screenshots attached to the turn they came with. Everything made here belongs to
 * the run that opened it — the file objects of the thread live in the run's file source and go with it. Where the
 * bytes come from (Slack, or the local disk for a terminal) is the composition root's choice (`openSource`).
 */
import type { ChatModel } from '../core/chat';
import { isImageFile } from '../core/file-kinds';
import { FileReadError, type ExtractedDocument, type ThreadFile } from '../core/thread-file';
import type { CurrentImage } from '../core/current-image';
import type { Logger } from '../logging/logger';
import type { Database } from '../store/database';
import { describeImage, findImageDescriptions } from './image-descriptions';
import { awaitFreshExtractions, computePreloads } from './preload';
import { prefetchThreadFiles } from './prefetch';
import type { DocumentExtractorLike } from './read-document';
import { registerThreadFiles } from './registry';
import type { Searcher } from '../search/create-searcher';
import type { SlackFileObject } from '../core/slack-file';
import { fileObjectsOf, type OpenFileSource } from './file-source';
import { createThreadFileAccess, type FileAccess } from './thread-file-access';
import type { TableEngine } from '../tables/table-engine';
import { createThreadTables } from './thread-tables';

/** A message of the thread as far as its files go. */
export interface MessageWithFiles {
  ts: string;
  user?: string;
  username?: string;
  bot_profile?: { name?: string };
  files?: SlackFileObject[];
}

export interface ThreadFilesOptions {
  db: Database;
  extractor: DocumentExtractorLike;
  searcher: Searcher;
  /** Told each document extracted for the first time (it is indexed for search there). */
  onExtracted: (contentHash: string, document: ExtractedDocument) => Promise<void>;
  /** Opens the run's file source over the file objects of the thread's messages: Slack's, or the local disk. */
  openSource: OpenFileSource;
  limits: { maxFileBytes: number; maxImageBytes: number };
  preloadKb: number;
  /** How long the first request waits for documents posted with the question. Default 3 s. */
  firstRequestWaitMs?: number;
  maxImagesPerTurn: number;
  /** Describes the images shown. */
  model: ChatModel & { supportsImages(): boolean };
  logger: Logger;
  /** The process's SQL engine for query_table; without it a run has no tables. */
  tableEngine?: TableEngine;
}

export function createThreadFiles(options: ThreadFilesOptions) {
  const { db, logger, model } = options;

  const openAccess = async (threadId: number, messages: MessageWithFiles[], names: ReadonlyMap<string, string>) => {
    const files = await registerThreadFiles(
      db,
      threadId,
      messages.map((message) => ({
        ts: message.ts,
        authorName: message.user ? names.get(message.user) : (message.bot_profile?.name ?? message.username),
        files: message.files,
      })),
    );
    const access = createThreadFileAccess({
      db,
      threadId,
      files,
      source: options.openSource(fileObjectsOf(messages)),
      extractor: options.extractor,
      limits: options.limits,
      searcher: options.searcher,
      onExtracted: options.onExtracted,
      logger,
    });
    return { access, files };
  };

  return {
    /** `limits`: the channel's settings for this run; the workspace's when absent. */
    async open(threadId: number, messages: MessageWithFiles[], names: ReadonlyMap<string, string>, limits?: { preloadKb: number; maxImagesPerTurn: number }) {
      const { access, files } = await openAccess(threadId, messages, names);
      const preloadKb = limits?.preloadKb ?? options.preloadKb;
      const maxImages = limits?.maxImagesPerTurn ?? options.maxImagesPerTurn;
      const tableEngine = options.tableEngine;
      return {
        access,
        tables: tableEngine
          ? createThreadTables({ db, threadId, engine: tableEngine, access, onExtracted: options.onExtracted, logger })
          : undefined,
        // Documents posted with the question are read first (a bounded wait), so the first request already has
        // their pages and preload; the list the request is built from is access.list(), which learned them.
        preloads: async () => {
          await awaitFreshExtractions(access, files, { waitMs: options.firstRequestWaitMs });
          return computePreloads(access, access.list(), preloadKb);
        },
        images: (currentFileIds: string[]) => currentImages(access, currentFileIds, maxImages),
        describeShown: (images: CurrentImage[]) => describeShown(access, images),
      };
    },
    /** Extraction ahead of time, when files land in a thread the bot is in: the first question finds them read. */
    async prefetch(threadId: number, messages: MessageWithFiles[], names: ReadonlyMap<string, string> = new Map()) {
      const { access, files } = await openAccess(threadId, messages, names);
      await prefetchThreadFiles(access, files);
    },
  };

  async function currentImages(access: FileAccess, fileIds: string[], maxImagesPerTurn: number) {
    const images = access.list().filter((file) => isImageFile(file));
    const descriptions = await findImageDescriptions(db, images.flatMap((f) => (f.slackFileId ? [f.slackFileId] : [])));
    const current = new Set(fileIds);
    const shown: CurrentImage[] = [];
    const notes: string[] = [];
    for (const file of images) {
      const description = file.slackFileId ? descriptions.get(file.slackFileId) : undefined;
      const wantShown = current.has(file.id) && shown.length < maxImagesPerTurn && model.supportsImages();
      // A described image is shown only on the turn it arrived; afterwards its words stand in for it.
      if (wantShown && !description) {
        try {
          const image = await access.readImage(file.id);
          shown.push({ fileId: file.id, name: file.name, dataUrl: image.dataUrl, width: image.width, height: image.height, detail: 'auto' });
        } catch (error) {
          notes.push(error instanceof FileReadError ? error.message : `${file.name} could not be shown.`);
        }
        continue;
      }
      const note = imageNote(file, description, current.has(file.id), maxImagesPerTurn);
      if (note) notes.push(note);
    }
    return { images: shown, notes };
  }

  function imageNote(file: ThreadFile, description: string | undefined, onThisTurn: boolean, maxImagesPerTurn: number): string | undefined {
    if (description) return `${file.id} (${file.name}) shows: ${description}`;
    if (!onThisTurn) return undefined;
    if (!model.supportsImages()) return `${file.id} (${file.name}) is an image, and this model cannot see images; no description of it exists yet.`;
    return `${file.id} (${file.name}) was not shown: at most ${maxImagesPerTurn} images are shown per message. load_file(${file.id}) shows it.`;
  }

  async function describeShown(access: FileAccess, images: CurrentImage[]) {
    for (const image of images) {
      const file = access.get(image.fileId);
      if (!file.slackFileId) continue;
      await describeImage(db, model, { slackFileId: file.slackFileId, dataUrl: image.dataUrl }).catch((error) =>
        logger.warn('could not describe an image', { file: file.id, error }),
      );
    }
  }
}
