/**
 * Files posted in a Slack thread are read (downloaded, extracted) as soon as the message is taken in, before its run
 * starts, with their authors' names as a run registers them: files read ahead are not "from someone".
 */
import { untracked, type Activity } from '../core/activity';
import type { Logger } from '../logging/logger';
import type { Trigger } from '../runs/trigger';
import type { ThreadSource } from '../runs/seams';
import type { MessageWithFiles } from '../files/thread-files';

export interface FilePrefetchParts {
  threads: Pick<ThreadSource, 'messages' | 'names'>;
  files: { prefetch(threadId: number, messages: MessageWithFiles[], names: ReadonlyMap<string, string>): Promise<void> };
  logger: Logger;
  /** Data-path work in flight, for idle(). */
  activity?: Activity;
}

export function createFilePrefetch({ threads, files, logger, activity = untracked }: FilePrefetchParts): (trigger: Trigger, threadId: number) => void {
  async function prefetch(trigger: Trigger, threadId: number): Promise<void> {
    const messages = await threads.messages(trigger.channelId, trigger.threadTs);
    const authors = messages.flatMap((message) => (message.files?.length && message.user ? [message.user] : []));
    await files.prefetch(threadId, messages, await threads.names([...new Set(authors)]));
  }
  return function prefetchThreadFiles(trigger, threadId) {
    activity.track(prefetch(trigger, threadId)).catch((error) => logger.warn('could not extract files ahead of time', { threadId, error }));
  };
}
