/**
 * What the knowledge tools (search_messages, read_channel, remember, forget) need beyond ToolContext: who asks, in
 * which workspace and channel, whether they are an admin, and the knowledge tier's parts. The composition root
 * builds one set per run with createKnowledgeTools(deps) and adds them to the run's registry.
 */
import type { KnowledgeDirectory } from '../knowledge/directory';
import type { Database } from '../store/database';
import type { Memory } from '../store/memory-store';

interface KnowledgeRequest {
  /** The asker's workspace. */
  teamId: string;
  /** The channel the question was asked in (a DM's id for a DM). */
  channelId: string;
  /** The person who asked: access and personal memories are theirs. */
  userId: string;
  /** ADMIN_USERS: may forget any channel memory. */
  isAdmin: boolean;
}

export interface KnowledgeToolDeps {
  db: Database;
  directory: KnowledgeDirectory;
  request: KnowledgeRequest;
  /** Milliseconds since the epoch (relative dates: "7d"). */
  now: () => number;
  /**
   * Called once a memory is saved: post the announcement (slack/memory-blocks.ts, with its Forget button) in the
   * thread — ephemerally to the author for a personal memory. A failure here does not undo the memory.
   */
  onRemembered?: (memory: Memory) => Promise<void>;
  /** Hits per search_messages call; default 8. */
  maxHits?: number;
  /** Messages per read_channel call; default 200. */
  maxChannelMessages?: number;
}
