/**
 * The Slack object behind a registered file, ready to download: from the messages in hand, or from files.info.
 * A file Slack reports deleted or external is remembered as such and refused with its sentence.
 */
import type { Database } from '../../store/database';
import { fileReadError } from '../../files/describe-file-error';
import { markSlackFileUnavailable } from '../../files/file-store';
import { externalServiceName, unreadableReason, type SlackFileObject } from '../../core/slack-file';
import { fetchSlackFileInfo, type SlackApi } from './slack-file-info';
import type { ThreadFile } from '../../core/thread-file';

export interface SlackFileSources {
  db: Database;
  slack: SlackApi;
  slackFiles?: ReadonlyMap<string, SlackFileObject>;
  fetch?: typeof fetch;
}

export async function resolveSlackFile(
  sources: SlackFileSources,
  file: ThreadFile,
  slackFileId: string,
  signal?: AbortSignal,
): Promise<SlackFileObject> {
  let object = sources.slackFiles?.get(slackFileId);
  // Slack Connect files arrive partial ("check_file_info"): only files.info has their URLs.
  if (!object || object.file_access === 'check_file_info') {
    const info = await fetchSlackFileInfo(sources.slack, slackFileId, { fetch: sources.fetch, signal, fileName: file.name });
    if (!info.ok) {
      await markSlackFileUnavailable(sources.db, slackFileId, 'deleted');
      throw fileReadError(file, 'deleted');
    }
    object = info.file;
  }
  const reason = unreadableReason(object);
  if (reason) {
    if (reason === 'deleted' || reason === 'external') await markSlackFileUnavailable(sources.db, slackFileId, reason);
    throw fileReadError(file, reason, { service: externalServiceName(object) });
  }
  return object;
}
