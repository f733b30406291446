/**
 * What the terminal needs of a threadwise built without Slack: conversations that answer through the real run
 * (composed in app/local.ts), the skills on offer, and a way to close it all. Declared here, implemented by the
 * composition root, so this edge never learns how the parts are built.
 */
import type { BotIdentity } from '../conversation';
import type { ApproveNow } from '../core/approval';
import type { SkillSummary } from '../skills';
import type { Conversation } from './local-edge';

export interface LocalAgent {
  readonly bot: BotIdentity;
  readonly modelName: string;
  /** MAX_FILE_MB in bytes: a larger file is refused when it is added. */
  readonly maxFileBytes: number;
  skills(): SkillSummary[];
  /** The tools the model is offered: threadwise's own and the MCP servers' (those that ask first marked). */
  tools(): Array<{ name: string; description: string; needsApproval: boolean }>;
  /**
   * A new thread in `channelId` ("local:terminal", "local:eval"). `approveNow` asks the person at hand before a tool
   * call that needs approval; without it such a call is refused with a sentence (nobody here can be asked).
   */
  startConversation(channelId: string, options?: { approveNow?: ApproveNow }): Promise<Conversation>;
  /** Lets nothing new start, then closes the database, the extraction workers and the skill watcher. */
  close(): Promise<void>;
}
