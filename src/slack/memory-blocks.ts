/**
 * What Slack shows of memories: the note posted when one is kept (with a Forget button), the note after it is
 * forgotten, and the App Home section listing a person's memories and those of the channels they can read, each
 * with Forget where they may forget it. Pure: memories in, Block Kit out.
 */
import type { Memory } from '../store/memory-store';
import { escapeMrkdwn } from './format/escape-mrkdwn';

/** The action id Bolt routes Forget clicks by; the value is the memory id. */
export const MEMORY_FORGET_ACTION_ID = 'memory_forget';

/** Memories listed in App Home at most (a home view holds 100 blocks). */
const MAX_HOME_MEMORIES = 30;

export function parseForgetValue(value: string | undefined): number | undefined {
  return value && /^\d{1,15}$/.test(value) ? Number(value) : undefined;
}

function forgetButton(memory: Pick<Memory, 'id'>) {
  return {
    type: 'button',
    action_id: MEMORY_FORGET_ACTION_ID,
    value: String(memory.id),
    text: { type: 'plain_text', text: 'Forget' },
    confirm: {
      title: { type: 'plain_text', text: 'Forget this?' },
      text: { type: 'plain_text', text: 'Later requests will no longer carry it.' },
      confirm: { type: 'plain_text', text: 'Forget' },
      deny: { type: 'plain_text', text: 'Keep' },
    },
  };
}

/** Shortened for a section's 3,000 characters and a readable line. */
function quoted(text: string, max = 600): string {
  const short = text.length > max ? `${text.slice(0, max - 1)}…` : text;
  return `“${escapeMrkdwn(short).replace(/\n+/g, ' ')}”`;
}

/**
 * The note in the thread when a memory is kept. A personal memory's note is for its author only: post it with
 * chat.postEphemeral.
 */
export function renderMemoryAnnouncement(memory: Memory): { text: string; blocks: unknown[] } {
  const where = memory.scope === 'personal' ? 'for you only' : 'for this channel';
  const text = `Remembered ${where} (M${memory.id}): ${quoted(memory.text)}`;
  return {
    text,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: `:brain: ${text}` }, accessory: forgetButton(memory) },
      {
        type: 'context',
        elements: [{ type: 'mrkdwn', text: memory.scope === 'personal' ? 'Your later requests carry it, wherever you ask.' : 'Every later request in this channel carries it. Its author or an admin can forget it.' }],
      },
    ],
  };
}

/** The announcement once forgotten (chat.update of the note): the text goes, who forgot it stays. */
export function renderMemoryForgotten(memoryId: number, by: string): { text: string; blocks: unknown[] } {
  const text = `Forgotten (M${memoryId}) by <@${by}>.`;
  return { text, blocks: [{ type: 'context', elements: [{ type: 'mrkdwn', text: `:wastebasket: ${text}` }] }] };
}

export interface HomeMemories {
  personal: Memory[];
  /** Channel memories of the channels the person can read. */
  channels: Memory[];
  /** The person viewing; Forget appears only on memories they may forget. */
  userId: string;
  isAdmin: boolean;
}

/** App Home's "Memories" section. */
export function renderMemoriesHomeSection(content: HomeMemories): unknown[] {
  const blocks: unknown[] = [{ type: 'divider' }, { type: 'header', text: { type: 'plain_text', text: 'Memories' } }];
  const line = (memory: Memory, where: string) => {
    const block: Record<string, unknown> = {
      type: 'section',
      text: { type: 'mrkdwn', text: `${quoted(memory.text, 400)}\n_${where} · M${memory.id} · <@${memory.authorId}> · ${memory.createdAt.toISOString().slice(0, 10)}_` },
    };
    const mayForget = memory.authorId === content.userId || (memory.scope === 'channel' && content.isAdmin);
    if (mayForget) block.accessory = forgetButton(memory);
    return block;
  };
  if (content.personal.length === 0 && content.channels.length === 0) {
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: 'Nothing yet. Say “@threadwise remember that …” in a channel, or “remember for me only …”.' } });
    return blocks;
  }
  let shown = 0;
  for (const memory of content.personal) {
    if (shown++ >= MAX_HOME_MEMORIES) break;
    blocks.push(line(memory, 'for you only'));
  }
  for (const memory of content.channels) {
    if (shown++ >= MAX_HOME_MEMORIES) break;
    blocks.push(line(memory, `<#${memory.channelId}>`));
  }
  return blocks;
}
