import { isFromBot, type BotIdentity, type SlackMessage } from '../conversation';

/**
 * The ts of an answer this run already posted, found in the thread itself: every finished answer carries the
 * run's feedback buttons (block id `feedback_<run id>`). A process killed between posting and recording the post
 * leaves only this trace, and it is enough to not answer twice.
 */
export function findPostedAnswer(messages: SlackMessage[], runId: number, bot: BotIdentity): string[] {
  const blockId = `feedback_${runId}`;
  return messages
    .filter((message) => isFromBot(message, bot))
    .filter((message) => ((message as { blocks?: Array<{ block_id?: string }> }).blocks ?? []).some((block) => block.block_id === blockId))
    .map((message) => message.ts);
}
