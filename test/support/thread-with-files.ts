/**
 * A thread holding some files, wired the way the app wires it: files served by the fake Slack, read by the real
 * extractor, indexed when first extracted, searched by the real searcher. For tests of the tools and the reader
 * that work on a thread's files.
 */
import { readFile } from 'node:fs/promises';
import { createDocumentExtractor } from '../../src/documents';
import { registerThreadFiles } from '../../src/files/registry';
import { createSearcher, indexDocument, type Embedder } from '../../src/search';
import { createThreadFileAccess, type FileAccess } from '../../src/files/thread-file-access';
import { createSlackFileSource } from '../../src/slack/files/slack-file-source';
import { openDatabase } from '../../src/app/database/open-database';
import type { DatabaseHandle } from '../../src/store/database';
import { threads } from '../../src/store/schema';
import { startFakeSlack } from '../fakes/fake-slack';
import { corpusPath } from './corpus';

export type UploadedFile = (
  | { name: string; mimetype: string; text: string }
  /** Bytes built by the test (a zip, an email). */
  | { name: string; mimetype: string; bytes: Buffer }
  /** A document of the shared corpus, by file name. */
  | { name: string; mimetype: string; corpus: true }
) & {
  /** Renamed in Slack after the upload: the thread lists this name (it only has to reach us, not an HTTP header). */
  renamedTo?: string;
};

export interface ThreadWithFiles {
  files: FileAccess;
  handle: DatabaseHandle;
  close(): Promise<void>;
}

export async function openThreadWithFiles(uploads: UploadedFile[], options: { embedder?: Embedder } = {}): Promise<ThreadWithFiles> {
  const [handle, slack] = await Promise.all([openDatabase({ driver: 'pglite' }), startFakeSlack()]);
  const extractor = createDocumentExtractor();
  const objects = await Promise.all(
    uploads.map(async (upload) => {
      const added = slack.addFile({
        name: upload.name,
        mimetype: upload.mimetype,
        content:
          'corpus' in upload ? await readFile(corpusPath(upload.name)) : 'bytes' in upload ? upload.bytes : Buffer.from(upload.text),
      });
      return upload.renamedTo === undefined ? added : { ...added, name: upload.renamedTo };
    }),
  );
  const [thread] = await handle.db.insert(threads).values({ channelId: 'C1', threadTs: '1.1' }).returning({ id: threads.id });
  const registered = await registerThreadFiles(handle.db, thread!.id, [{ ts: '1.2', authorName: 'Ann', files: objects }]);
  const files = createThreadFileAccess({
    db: handle.db,
    threadId: thread!.id,
    files: registered,
    source: createSlackFileSource({ db: handle.db, slack: { botToken: slack.botToken, apiUrl: slack.apiUrl }, objects: new Map(objects.map((f) => [f.id, f])) }),
    extractor,
    limits: { maxFileBytes: 50 * 1024 * 1024, maxImageBytes: 1536 * 1024 },
    searcher: createSearcher({ db: handle.db, embedder: options.embedder }),
    onExtracted: async (contentHash, document) => {
      await indexDocument(handle.db, contentHash, document, { embedder: options.embedder });
    },
  });
  return {
    files,
    handle,
    close: async () => {
      await extractor.close();
      await slack.close();
      await handle.close();
    },
  };
}
