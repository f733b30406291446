/** A message that may get an answer, as the Slack edge decided it: what intake admits into a run. */
export interface Trigger {
  channelId: string;
  threadTs: string;
  messageTs: string;
  userId: string;
  teamId?: string;
  /** A DM, or a thread whose first message mentions the bot: follow-ups there need no mention. */
  engages: boolean;
  /** Only answer when the thread is already engaged (a follow-up without a mention). */
  needsEngagedThread: boolean;
  hasFiles: boolean;
}
