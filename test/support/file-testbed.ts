/**
 * For tests of files/ on one database driver: a fake Slack serving the files, and threads that hold them, each
 * file on a message of its own, with the ThreadFileAccess a run would get. Registers its own lifecycle.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { DocumentExtractorLike, FileLimits } from '../../src/files/read-document';
import { registerThreadFiles } from '../../src/files/registry';
import type { SlackFileObject } from '../../src/core/slack-file';
import { createThreadFileAccess, type FileAccess } from '../../src/files/thread-file-access';
import { createSlackFileSource } from '../../src/slack/files/slack-file-source';
import type { ThreadFile } from '../../src/core/thread-file';
import type { DatabaseHandle } from '../../src/store/database';
import { threads } from '../../src/store/schema';
import { startFakeSlack, type FakeSlack } from '../fakes/fake-slack';
import type { TestDatabase } from './databases';

interface ThreadUnderTest {
  threadId: number;
  /** The files as registered (F1, F2… in the order given). */
  files: ThreadFile[];
  access: FileAccess;
  /** Access again, as a later run would open it (optionally with another file list). */
  open(list?: ThreadFile[]): FileAccess;
}

export interface FileTestbed {
  readonly handle: DatabaseHandle;
  readonly slack: FakeSlack;
  threadWith(
    files: SlackFileObject[],
    options: { extractor: DocumentExtractorLike; limits?: FileLimits; withObjects?: boolean },
  ): Promise<ThreadUnderTest>;
}

let threadCount = 0;

export function useFileTestbed(database: TestDatabase): FileTestbed {
  let handle: DatabaseHandle;
  let slack: FakeSlack;
  beforeAll(async () => {
    handle = await database.open();
    slack = await startFakeSlack();
  });
  afterAll(async () => {
    await slack?.close();
    await handle?.close();
  });
  beforeEach(() => slack.reset());

  return {
    get handle() {
      return handle;
    },
    get slack() {
      return slack;
    },
    async threadWith(files, { extractor, limits = { maxFileBytes: 1024 * 1024, maxImageBytes: 64 * 1024 }, withObjects = true }) {
      threadCount += 1;
      const [row] = await handle.db
        .insert(threads)
        .values({ channelId: 'C1', threadTs: `1700000001.${String(threadCount).padStart(6, '0')}` })
        .returning({ id: threads.id });
      const threadId = row!.id;
      const registered = await registerThreadFiles(
        handle.db,
        threadId,
        files.map((file, i) => ({ ts: `1700000002.${String(i).padStart(6, '0')}`, authorName: 'Ann', files: [file] })),
      );
      const open = (list = registered) =>
        createThreadFileAccess({
          db: handle.db,
          threadId,
          files: list,
          source: createSlackFileSource({
            db: handle.db,
            slack: { botToken: slack.botToken, apiUrl: slack.apiUrl },
            objects: withObjects ? new Map(files.map((f) => [f.id, f])) : undefined,
          }),
          extractor,
          limits,
        });
      return { threadId, files: registered, access: open(), open };
    },
  };
}
