/** The console's Memories page: names instead of ids, where each memory goes, its text escaped. */
import { describe, expect, it } from 'vitest';
import { memoriesBody } from '../../src/console/pages/memories-page';
import type { Memory } from '../../src/store/memory-store';

const NAMES = new Map([
  ['C0PLATFORM', 'platform'],
  ['U0ANA', 'Ana'],
]);
const memory = (fields: Partial<Memory>): Memory => ({
  id: 1,
  teamId: 'T0',
  scope: 'channel',
  channelId: 'C0PLATFORM',
  authorId: 'U0ANA',
  text: 'Payments on-call: +1 555 0100',
  createdAt: new Date('2026-11-24T16:21:00Z'),
  ...fields,
});

describe('the Memories page', () => {
  it('lists each memory with its id, where it goes, who asked, when and its text', async () => {
    const html = String(await memoriesBody([memory({}), memory({ id: 2, scope: 'personal', authorId: 'U0BEN', text: 'My badge is <4711>' })], NAMES));
    expect(html).toContain('<caption>2 memories</caption>');
    expect(html).toContain('<td>M1</td><td><span title="C0PLATFORM">#platform</span></td><td><span title="U0ANA">Ana</span></td><td>2026-11-24 16:21</td><td>Payments on-call: +1 555 0100</td>');
    expect(html).toContain('its author only (asked in <span title="C0PLATFORM">#platform</span>)');
    expect(html).toContain('<td>U0BEN</td>');
    expect(html).toContain('My badge is &lt;4711&gt;');
  });

  it('says how memories are made when there are none', async () => {
    expect(String(await memoriesBody([], NAMES))).toContain('No memories yet');
  });
});
