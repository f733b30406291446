/**
 * What a run needs from files/, assembled: the registry, per-thread access with search, preloads, and the images
 * shown on the current turn (with their stored descriptions for everything else).
 */
import type { WebClient } from '@slack/web-api';
import type { ChatModel } from '../core/chat';
import type { RunStepRecord } from '../core/run-step';
import { createFileSubAgent } from './file-sub-agent';
import type { Config } from '../config';
import type { CurrentImage } from '../context';
import type { SlackMessage } from '../conversation';
import type { Logger } from '../logging/logger';
import type { ThreadFilesService } from '../runs/answer-run';
import type { Database } from '../store/db';
import type { SubAgentRunner, ThreadFileAccess } from '../tools/tool';
import { isImageFile } from '../core/file-kinds';
import { describeImage, findImageDescriptions } from './image-descriptions';
import { computePreloads } from './preload';
import { prefetchThreadFiles } from './prefetch';
import { registerThreadFiles } from './registry';
import { createSearcher, createOpenAIEmbedder, indexDocument } from './search';
import { createThreadFileAccess, type FileAccess } from './thread-file-access';
import { FileReadError, type ThreadFile } from '../core/thread-file';
import type { DocumentExtractorLike } from './read-document';
import { readThreadMessages } from '../slack/thread-reader';

export interface ThreadFilesServiceOptions {
  db: Database;
  config: Config;
  extractor: DocumentExtractorLike;
  logger: Logger;
  model: ChatModel & { supportsImages(): boolean };
}

export function createThreadFilesService(options: ThreadFilesServiceOptions): ThreadFilesService & {
  prefetch(threadId: number, channelId: string, threadTs: string, client: WebClient): void;
  subAgent(access: ThreadFileAccess, recordStep: (step: RunStepRecord) => void): SubAgentRunner;
} {
  const { db, config, logger, model } = options;
  const embedder = config.model.embeddingModel
    ? createOpenAIEmbedder({ apiKey: config.model.apiKey, baseURL: config.model.baseUrl, model: config.model.embeddingModel })
    : undefined;
  const onExtracted = (contentHash: string, document: Parameters<typeof indexDocument>[2]) =>
    indexDocument(db, contentHash, document, { embedder }).then(() => undefined);
  const searcher = createSearcher({ db, embedder });
  const slack = { botToken: config.slack.botToken, apiUrl: config.slack.apiUrl };
  const limits = { maxFileBytes: config.files.maxFileBytes, maxImageBytes: config.files.maxImageBytes };
  const slackObjects = new Map<number, Map<string, NonNullable<SlackMessage['files']>[number]>>();

  const accessFor = (threadId: number, files: ThreadFile[]): FileAccess =>
    createThreadFileAccess({
      db,
      threadId,
      files,
      slack,
      extractor: options.extractor,
      limits,
      slackFiles: slackObjects.get(threadId) as never,
      searcher,
      onExtracted,
      logger,
    });

  return {
    async register(threadId, messages, names) {
      const objects = new Map<string, NonNullable<SlackMessage['files']>[number]>();
      for (const message of messages) for (const file of message.files ?? []) objects.set(file.id, file);
      slackObjects.set(threadId, objects);
      return registerThreadFiles(
        db,
        threadId,
        messages.map((message) => ({
          ts: message.ts,
          authorName: message.user ? names.get(message.user) : (message.bot_profile?.name ?? message.username),
          files: message.files as never,
        })),
      );
    },
    access: accessFor,
    preloads: (access, files) => computePreloads(access as FileAccess, files, config.files.preloadKb),
    async currentImages(access, fileIds) {
      const files = access.list();
      const images = files.filter((file) => isImageFile(file));
      const descriptions = await findImageDescriptions(db, images.flatMap((f) => (f.slackFileId ? [f.slackFileId] : [])));
      const current = new Set(fileIds);
      const shown: CurrentImage[] = [];
      const notes: string[] = [];
      for (const file of images) {
        const description = file.slackFileId ? descriptions.get(file.slackFileId) : undefined;
        const wantShown = current.has(file.id) && shown.length < config.files.maxImagesPerTurn && model.supportsImages();
        // A described image is shown only on the turn it arrived; afterwards its words stand in for it.
        if (wantShown && !description) {
          try {
            const image = await access.readImage(file.id);
            shown.push({ fileId: file.id, name: file.name, dataUrl: image.dataUrl, width: image.width, height: image.height, detail: 'auto' });
            continue;
          } catch (error) {
            notes.push(error instanceof FileReadError ? error.message : `${file.name} could not be shown.`);
            continue;
          }
        }
        if (description) notes.push(`${file.id} (${file.name}) shows: ${description}`);
        else if (current.has(file.id) && !model.supportsImages()) {
          notes.push(`${file.id} (${file.name}) is an image, and this model cannot see images; no description of it exists yet.`);
        } else if (current.has(file.id)) {
          notes.push(`${file.id} (${file.name}) was not shown: at most ${config.files.maxImagesPerTurn} images are shown per message. load_file(${file.id}) shows it.`);
        }
      }
      return { images: shown, notes };
    },
    async describeImages(access, images) {
      for (const image of images) {
        const file = access.get(image.fileId);
        if (!file.slackFileId) continue;
        await describeImage(db, model, { slackFileId: file.slackFileId, dataUrl: image.dataUrl }).catch((error) =>
          logger.warn('could not describe an image', { file: file.id, error }),
        );
      }
    },
    prefetch(threadId, channelId, threadTs, client) {
      void (async () => {
        const messages = await readThreadMessages(client, channelId, threadTs);
        const files = await this.register(threadId, messages, new Map());
        await prefetchThreadFiles(accessFor(threadId, files), files);
      })().catch((error) => logger.warn('could not extract files ahead of time', { threadId, error }));
    },
    subAgent: (access, recordStep) => createFileSubAgent({ model, files: access, recordStep }),
  };
}
