/**
 * A kept memory announced where it was asked for: a channel memory with chat.postMessage in the thread (everyone
 * there sees what the channel's requests will carry, and its Forget button); a personal one with chat.postEphemeral
 * to its author only, in the same thread.
 */
import type { WebClient } from '@slack/web-api';
import type { Memory } from '../store/memory-store';
import { renderMemoryAnnouncement } from './memory-blocks';

interface AnnouncementTarget {
  channelId: string;
  threadTs: string;
  /** Who asked: a personal memory's note is for them only. */
  userId: string;
}

export type AnnounceMemory = (target: AnnouncementTarget, memory: Memory) => Promise<void>;

export function createMemoryAnnouncer(client: Pick<WebClient, 'chat'>): AnnounceMemory {
  return async (target, memory) => {
    const note = renderMemoryAnnouncement(memory);
    const message = { channel: target.channelId, thread_ts: target.threadTs, text: note.text, blocks: note.blocks as never };
    if (memory.scope === 'personal') await client.chat.postEphemeral({ ...message, user: memory.authorId || target.userId });
    else await client.chat.postMessage(message);
  };
}
