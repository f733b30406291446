import type { WebClient } from '@slack/web-api';
import type { Logger } from '../logging/logger';
import type { ThreadNote } from '../runs/seams';

/**
 * What an interrupted attempt left of its answer: messages half-streamed or half-posted when the process died.
 * With a `note`, the first becomes that note, so the thread reads question → "picking this up again" → answer,
 * with no fragment beside the answer; without one (the run gives up), it goes too. Further parts are deleted.
 * Messages someone already deleted are skipped. Returns whether the note is in the thread.
 */
export async function retireDraftAnswer(
  slack: WebClient,
  channel: string,
  drafts: readonly string[],
  note: ThreadNote | undefined,
  logger: Logger,
): Promise<boolean> {
  let noted = false;
  for (const ts of drafts) {
    // A stream its process never stopped is closed first; one that Slack closed already refuses, which is fine.
    await slack.chat.stopStream({ channel, ts }).catch(() => {});
    if (note && !noted) {
      try {
        await slack.chat.update({ channel, ts, text: note.text, blocks: [], metadata: note.metadata });
        noted = true;
        continue;
      } catch (error) {
        logger.warn('could not turn the interrupted answer into the resuming note; deleting it', { ts, error });
      }
    }
    await slack.chat.delete({ channel, ts }).catch((error) => logger.warn('could not delete a part of the interrupted answer', { ts, error }));
  }
  return noted;
}
