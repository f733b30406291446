/** A Slack thread seen as a conversation. Built by buildThreadConversation; read by the context builder. */

export interface TurnFileRef {
  /** ThreadFile.id */
  id: string;
  name: string;
}

export interface ConversationTurn {
  role: 'user' | 'assistant';
  /** Display name of the speaker; for the bot itself, its own name. Other bots speak as users, named. */
  speaker: string;
  /** Slack user or bot id of the speaker. */
  speakerId: string;
  /** Message text with <@U…> mentions replaced by names and Slack markup made readable. */
  text: string;
  /** Slack message ts: identifies the message within the thread. */
  ts: string;
  edited: boolean;
  files: TurnFileRef[];
  /** For assistant turns, a compact record of what that run read ("read F1 p. 3–5; loaded skill jira"). */
  activity?: string;
}

export interface ThreadConversation {
  channelId: string;
  threadTs: string;
  turns: ConversationTurn[];
}
