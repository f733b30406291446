import { describe, expect, it } from 'vitest';
import { MEMORY_FORGET_ACTION_ID, parseForgetValue, renderMemoriesHomeSection, renderMemoryAnnouncement } from '../../src/slack/memory-blocks';
import type { Memory } from '../../src/store/memory-store';

const memory = (id: number, extra: Partial<Memory> = {}): Memory => ({
  id,
  teamId: 'T0',
  scope: 'channel',
  channelId: 'C0PAY',
  authorId: 'U0ANA',
  text: 'Payments on-call is +1 555 0100 <!channel>',
  createdAt: new Date('2026-11-24T09:00:00Z'),
  ...extra,
});

describe('memory blocks', () => {
  it('announces a kept memory with a Forget button carrying its id, escaped', () => {
    const { text, blocks } = renderMemoryAnnouncement(memory(12));
    expect(text).toContain('Remembered for this channel (M12)');
    expect(text).toContain('&lt;!channel&gt;');
    expect(JSON.stringify(blocks)).toContain(`"action_id":"${MEMORY_FORGET_ACTION_ID}","value":"12"`);
    expect(renderMemoryAnnouncement(memory(13, { scope: 'personal' })).text).toContain('for you only');
    expect(parseForgetValue('12')).toBe(12);
    expect(parseForgetValue('12; drop')).toBeUndefined();
  });

  it('lists memories in App Home with Forget only where the person may forget', () => {
    const blocks = renderMemoriesHomeSection({
      personal: [memory(1, { scope: 'personal', authorId: 'U0BOB' })],
      channels: [memory(2), memory(3, { authorId: 'U0BOB' })],
      userId: 'U0BOB',
      isAdmin: false,
    }) as Array<{ accessory?: { value: string } }>;
    expect(blocks.filter((b) => b.accessory).map((b) => b.accessory!.value)).toEqual(['1', '3']);
    const admin = renderMemoriesHomeSection({ personal: [], channels: [memory(2)], userId: 'U0ADMIN', isAdmin: true }) as Array<{ accessory?: unknown }>;
    expect(admin.filter((b) => b.accessory)).toHaveLength(1);
    expect(JSON.stringify(renderMemoriesHomeSection({ personal: [], channels: [], userId: 'U0', isAdmin: false }))).toContain('Nothing yet');
  });
});
