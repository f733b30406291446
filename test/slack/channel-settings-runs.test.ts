/**
 * What a channel's settings change in its runs, through the fakes: the model, the mention rule, which skills are
 * offered, and "also send to channel" for short answers. Each channel's settings stay its own.
 */
import { describe, expect, it } from 'vitest';
import { ANA, useHarness } from '../support/harness';
import { saveChannelSettings } from '../../src/store/channel-settings-store';
import { findThread } from '../../src/store/thread-store';
import { listThreadRuns } from '../../src/store/run-store';

const h = useHarness({ env: { ALLOWED_MODELS: 'gpt-4o' } });

/** Saved as another replica would: this one notices within its version check. */
async function settings(channelId: string, values: Record<string, unknown>) {
  h.slack.addChannel({ id: channelId, name: channelId.toLowerCase() });
  await saveChannelSettings(h.database.db, { teamId: h.slack.teamId, channelId }, values, ANA);
  await expect.poll(async () => (await h.app.settingsFor(h.slack.teamId, channelId)).overridden.sort(), { timeout: 1_000 }).toEqual(Object.keys(values).sort());
}

const mention = (channel: string, text: string, threadTs?: string) => h.mention({ channel, text: `<@${h.slack.botUserId}> ${text}`, threadTs });

async function runsOf(channel: string, threadTs: string) {
  const thread = await findThread(h.database.db, channel, threadTs);
  return thread ? listThreadRuns(h.database.db, thread.id) : [];
}

describe('a channel’s settings in its runs', () => {
  it('the model the channel chose answers there, and is recorded; elsewhere the workspace’s', async () => {
    await settings('C0MODEL', { model: 'gpt-4o' });
    h.model.enqueue({ text: 'From the bigger model.' }, { text: 'From the default.' });
    const chosen = await mention('C0MODEL', 'which model are you?');
    await h.answers('C0MODEL', chosen.ts);
    const plain = await mention('C0PLAIN', 'and you?');
    await h.answers('C0PLAIN', plain.ts);
    expect(h.model.requests.map((r) => r.model)).toEqual(['gpt-4o', 'gpt-4o-mini']);
    await expect.poll(async () => (await runsOf('C0MODEL', chosen.ts))[0]?.model).toBe('gpt-4o');
  });

  it('reply without mention off: a follow-up without a mention is not answered, a mention still is', async () => {
    await settings('C0QUIET', { replyWithoutMention: false });
    h.model.enqueue({ text: 'First answer.' }, { text: 'Second answer.' });
    const first = await mention('C0QUIET', 'what is the plan?');
    await h.answers('C0QUIET', first.ts);
    await h.say({ channel: 'C0QUIET', text: 'and the budget?', threadTs: first.ts });
    const second = await mention('C0QUIET', 'and the timeline?', first.ts);
    await h.answers('C0QUIET', first.ts, 2);
    const runs = await runsOf('C0QUIET', first.ts);
    expect(runs.map((r) => [r.triggerTs, r.foldedTs])).toEqual([
      [first.ts, []],
      [second.ts, []],
    ]);
  });

  it('offers only the skills the channel chose', async () => {
    await settings('C0SKILL', { skills: ['jira'] });
    h.model.enqueue({ text: 'ok' });
    const { ts } = await mention('C0SKILL', 'file a ticket');
    await h.answers('C0SKILL', ts);
    const context = JSON.stringify(h.model.requests.at(-1)!.messages.at(-1));
    expect(context).toContain('jira:');
    expect(context).not.toContain('notion:');
    expect(context).toContain('skills offered: jira');
  });

  it('"thread and channel": a short answer is also sent to the channel, a long one stays in the thread', async () => {
    await settings('C0LOUD', { answerVisibility: 'thread_and_channel' });
    h.model.enqueue({ text: 'Short and sweet.' }, { text: `Long. ${'word '.repeat(300)}` });
    const short = await mention('C0LOUD', 'quick one?');
    await h.answers('C0LOUD', short.ts);
    const long = await mention('C0LOUD', 'long one?');
    await h.answers('C0LOUD', long.ts);
    const answerPosts = h.slack.callsTo('chat.postMessage').filter((c) => c.body.channel === 'C0LOUD' && JSON.stringify(c.body.blocks ?? []).includes('feedback_buttons'));
    expect(answerPosts.map((c) => [c.body.thread_ts, String(c.body.reply_broadcast)])).toEqual([
      [short.ts, 'true'],
      [long.ts, 'false'],
    ]);
    expect(h.slack.callsTo('chat.startStream').filter((c) => c.body.channel === 'C0LOUD')).toHaveLength(0);
  });
});
