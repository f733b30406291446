/**
 * The Slack surfaces besides messages, through the fakes: reaction triggers, the "Ask threadwise" shortcuts, the
 * agent view's events and the App Home.
 */
import { describe, expect, it } from 'vitest';
import { ANA, BEN, CHANNEL, SIGNING_SECRET, useHarness } from '../support/harness';
import {
  appHomeOpenedEvent,
  assistantThreadStartedEvent,
  dmEvent,
  globalShortcut,
  messageShortcut,
  newEventId,
  postSlackEvent,
  reactionAddedEvent,
  viewSubmission,
} from '../fakes/slack-signing';
import { saveChannelSettings } from '../../src/store/channel-settings-store';
import { findThread } from '../../src/store/thread-store';
import { listThreadRuns } from '../../src/store/run-store';
import { reactionTriggerClaims } from '../../src/store/schema';

const h = useHarness({ env: { ADMIN_USERS: ANA } });

const event = (payload: object, eventId = newEventId()) => postSlackEvent(h.eventsUrl, SIGNING_SECRET, payload, { teamId: h.slack.teamId, eventId });
/** Saved as another replica would: this one notices within its version check (half a second). */
async function settings(channelId: string, values: Record<string, unknown>) {
  await saveChannelSettings(h.database.db, { teamId: h.slack.teamId, channelId }, values, ANA);
  await expect.poll(async () => (await h.app.settingsFor(h.slack.teamId, channelId)).overridden.sort(), { timeout: 1_000 }).toEqual(Object.keys(values).sort());
}
const questionsIn = (channel: string, threadTs: string) => h.slack.botMessages(channel, threadTs).filter((m) => / asked/.test(m.text ?? ''));

async function runsOf(channel: string, threadTs: string) {
  const thread = await findThread(h.database.db, channel, threadTs);
  return thread ? listThreadRuns(h.database.db, thread.id) : [];
}

describe('reaction triggers', () => {
  it('a mapped emoji added twice and delivered twice asks once, as the person who reacted; an unmapped one does nothing', async () => {
    await settings(CHANNEL, { reactionTriggers: { memo: 'Summarise this thread in one line.' } });
    const parent = h.slack.addMessage(CHANNEL, { user: ANA, text: 'The build is red since Tuesday.' });
    const reply = h.slack.addMessage(CHANNEL, { user: ANA, text: 'It is the flaky login test.', thread_ts: parent.ts });
    h.model.enqueue({ text: 'A flaky login test has kept the build red since Tuesday.' });

    await event(reactionAddedEvent({ user: BEN, reaction: 'tada', channel: CHANNEL, ts: reply.ts }));
    const delivery = newEventId();
    await event(reactionAddedEvent({ user: BEN, reaction: 'memo', channel: CHANNEL, ts: reply.ts }), delivery);
    await event(reactionAddedEvent({ user: BEN, reaction: 'memo', channel: CHANNEL, ts: reply.ts }), delivery); // Slack's retry
    await event(reactionAddedEvent({ user: ANA, reaction: 'memo', channel: CHANNEL, ts: reply.ts })); // added again

    expect(await h.answers(CHANNEL, parent.ts)).toEqual(['A flaky login test has kept the build red since Tuesday.']);
    expect(questionsIn(CHANNEL, parent.ts).map((m) => m.text)).toEqual([`<@${BEN}> asked with :memo:: Summarise this thread in one line.`]);
    const runs = await runsOf(CHANNEL, parent.ts);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ triggerUserId: BEN });
    expect(h.model.requests).toHaveLength(1);
    expect(JSON.stringify(h.model.requests[0])).toContain('flaky login test');
    // The claim is durable: one row for the message and emoji, the first reactor's.
    expect(await h.database.db.select().from(reactionTriggerClaims)).toMatchObject([{ channelId: CHANNEL, messageTs: reply.ts, reaction: 'memo', userId: BEN }]);
  });
});

describe('Ask threadwise shortcuts', () => {
  it('on a message in a thread with files: the answer lands in that thread, the files listed for the model', async () => {
    const file = h.slack.addFile({ name: 'incident-report.txt', mimetype: 'text/plain', filetype: 'text', content: 'Root cause: expired certificate.\n' });
    const parent = h.slack.addMessage(CHANNEL, { user: ANA, text: 'Incident write-up attached.', files: [file] });
    const reply = h.slack.addMessage(CHANNEL, { user: BEN, text: 'Thanks, reading.', thread_ts: parent.ts });

    await h.interact(messageShortcut({ slack: h.slack, user: BEN, callbackId: 'threadwise_ask_message', channel: CHANNEL, message: { ts: reply.ts, thread_ts: parent.ts, user: BEN } }));
    await h.slack.waitFor((fake) => fake.callsTo('views.open').length === 1);
    const form = h.slack.callsTo('views.open')[0]!.body.view;
    expect(form.callback_id).toBe('threadwise_ask');

    h.model.enqueue({ text: 'An expired certificate.' });
    const submitted = await h.interact(
      viewSubmission({ slack: h.slack, user: BEN, callbackId: 'threadwise_ask', privateMetadata: form.private_metadata, values: { question: { value: { type: 'plain_text_input', value: 'What was the root cause?' } } } }),
    );
    expect(submitted.status).toBe(200);
    expect(await h.answers(CHANNEL, parent.ts)).toEqual(['An expired certificate.']);
    expect(questionsIn(CHANNEL, parent.ts).map((m) => m.text)).toEqual([`<@${BEN}> asked via the shortcut: What was the root cause?`]);
    const request = JSON.stringify(h.model.requests[0]);
    expect(request).toContain('incident-report.txt');
    expect(request).toContain('What was the root cause?');
    expect((await runsOf(CHANNEL, parent.ts))[0]).toMatchObject({ triggerUserId: BEN });
  });

  it('an empty question is refused in the form', async () => {
    const response = await h.interact(
      viewSubmission({ slack: h.slack, user: BEN, callbackId: 'threadwise_ask', privateMetadata: '{}', values: { question: { value: { type: 'plain_text_input', value: '  ' } } } }),
    );
    expect(JSON.parse(response.body)).toEqual({ response_action: 'errors', errors: { question: 'Write a question for threadwise to answer.' } });
  });

  it('the global shortcut asks in a DM', async () => {
    await h.interact(globalShortcut({ slack: h.slack, user: ANA, callbackId: 'threadwise_ask_global' }));
    await h.slack.waitFor((fake) => fake.callsTo('views.open').length === 1);
    const form = h.slack.callsTo('views.open')[0]!.body.view;
    h.model.enqueue({ text: 'Tuesday.' });
    await h.interact(viewSubmission({ slack: h.slack, user: ANA, callbackId: 'threadwise_ask', privateMetadata: form.private_metadata, values: { question: { value: { type: 'plain_text_input', value: 'When is the release?' } } } }));
    const dm = `D${ANA.slice(1)}`;
    await h.slack.waitFor((fake) => fake.botMessages(dm).length > 0);
    const question = h.slack.botMessages(dm)[0]!;
    expect(await h.answers(dm, question.ts)).toEqual(['Tuesday.']);
  });
});

describe('agent view', () => {
  it('assistant_thread_started suggests the prompts of the channel the user came from and titles the thread; their DM then follows that channel', async () => {
    await settings(CHANNEL, {
      suggestedPrompts: [{ title: 'Triage a bug', message: 'Triage the bug in this thread.' }],
      extraInstructions: 'Use the support playbook.',
    });
    const dm = `D${ANA.slice(1)}`;
    // Slack opens an agent-view thread under a message of the app's.
    const threadTs = h.slack.addMessage(dm, { user: h.slack.botUserId, bot_id: h.slack.botId, text: 'Hi! What can I help with?' }).ts;
    await event(assistantThreadStartedEvent({ user: ANA, dmChannel: dm, threadTs, contextChannel: CHANNEL, teamId: h.slack.teamId }));
    await h.slack.waitFor((fake) => fake.callsTo('assistant.threads.setTitle').length === 1);
    expect(h.slack.callsTo('assistant.threads.setSuggestedPrompts')[0]!.body).toMatchObject({
      channel_id: dm,
      thread_ts: threadTs,
      title: 'Suggestions for #general',
      prompts: [{ title: 'Triage a bug', message: 'Triage the bug in this thread.' }],
    });
    expect(h.slack.callsTo('assistant.threads.setTitle')[0]!.body).toMatchObject({ channel_id: dm, thread_ts: threadTs, title: 'Asked from #general' });

    h.model.enqueue({ text: 'Sure.' });
    const stored = h.slack.addMessage(dm, { user: ANA, text: 'Help me triage this.', thread_ts: threadTs });
    await event(dmEvent({ channel: dm, user: ANA, text: stored.text, ts: stored.ts, thread_ts: threadTs }));
    expect(await h.answers(dm, threadTs)).toEqual(['Sure.']);
    expect(JSON.stringify(h.model.requests.at(-1)!.messages[0])).toContain('Use the support playbook.');
  });

  it('without a channel, the default prompts', async () => {
    await event(assistantThreadStartedEvent({ user: BEN, dmChannel: `D${BEN.slice(1)}`, threadTs: '1700001001.000100' }));
    await h.slack.waitFor((fake) => fake.callsTo('assistant.threads.setSuggestedPrompts').length === 1);
    expect(h.slack.callsTo('assistant.threads.setSuggestedPrompts')[0]!.body.prompts.length).toBeGreaterThan(0);
  });
});

describe('App Home', () => {
  const published = (user: string) => h.slack.callsTo('views.publish').filter((c) => c.body.user_id === user);

  it('shows the user’s recent questions with links; admins see the week’s usage, others do not', async () => {
    h.model.enqueue({ text: 'Done.' });
    const { ts } = await h.mention({ user: ANA, text: `<@${h.slack.botUserId}> what changed?` });
    await h.answers(CHANNEL, ts);

    await event(appHomeOpenedEvent({ user: ANA }));
    await h.slack.waitFor(() => published(ANA).length === 1);
    const anaHome = JSON.stringify(published(ANA)[0]!.body.view);
    expect(published(ANA)[0]!.body.view.type).toBe('home');
    expect(anaHome).toContain('Your recent questions');
    expect(anaHome).toContain(`/archives/${CHANNEL}/p${ts.replace('.', '')}`);
    expect(anaHome).toContain(`<#${CHANNEL}>`);
    expect(anaHome).toContain('Usage, last 7 days');
    expect(anaHome).toMatch(/\*\d+\* runs/);

    const carl = 'U0CARL';
    h.slack.addUser({ id: carl, name: 'carl', displayName: 'Carl' });
    await event(appHomeOpenedEvent({ user: carl }));
    await h.slack.waitFor(() => published(carl).length === 1);
    const benHome = JSON.stringify(published(carl)[0]!.body.view);
    expect(benHome).not.toContain('Usage, last 7 days');
    expect(benHome).toContain('haven’t asked me anything yet');
  });
});
