import type { SlackFileObject } from '../core/slack-file';

/** The parts of a Slack message object (conversations.replies) that threadwise reads. */
export interface SlackMessage {
  ts: string;
  thread_ts?: string;
  user?: string;
  bot_id?: string;
  app_id?: string;
  username?: string;
  bot_profile?: { name?: string };
  text?: string;
  subtype?: string;
  edited?: { user?: string; ts: string };
  files?: SlackFileObject[];
  metadata?: { event_type: string; event_payload?: Record<string, unknown> };
}


/**
 * Metadata event types the bot puts on its own messages, so a rebuilt thread knows what they were:
 * a question posted on someone's behalf (/ask) is that person's turn; a status message is not a turn at all.
 */
export const QUESTION_EVENT = 'threadwise_question';
export const STATUS_EVENT = 'threadwise_status';
