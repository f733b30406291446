import type { Database } from '../store/database';
import { forgetSlackFile, forgetSlackMessage } from '../store/retention';
import type { SlackDeletions } from '../slack/listeners';

/** When Slack deletes a message or a file, what threadwise derived from it goes too (store/retention.ts). */
export function slackDeletions(db: Database): SlackDeletions {
  return {
    messageDeleted: async (channelId, ts, slackFileIds) => ({ files: (await forgetSlackMessage(db, channelId, ts, slackFileIds)).length }),
    fileDeleted: (slackFileId) => forgetSlackFile(db, slackFileId),
  };
}
