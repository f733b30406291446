/**
 * What the terminal needs of a threadwise built without Slack: conversations that answer through the real run
 * (composed in app/local.ts), the skills on offer, and a way to close it all. Declared here, implemented by the
 * composition root, so this edge never learns how the parts are built.
 */
import type { BotIdentity } from '../conversation';
import type { SkillSummary } from '../skills';
import type { Conversation } from './local-edge';

export interface LocalAgent {
  readonly bot: BotIdentity;
  readonly modelName: string;
  /** MAX_FILE_MB in bytes: a larger file is refused when it is added. */
  readonly maxFileBytes: number;
  skills(): SkillSummary[];
  /** A new thread in `channelId` ("local:terminal", "local:eval"). */
  startConversation(channelId: string): Promise<Conversation>;
  /** Lets nothing new start, then closes the database, the extraction workers and the skill watcher. */
  close(): Promise<void>;
}
