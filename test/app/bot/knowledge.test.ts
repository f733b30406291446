/**
 * Beyond the thread, end to end through startThreadwise: the real app against the fake Slack and the fake model
 * (scripted tool calls) over real HTTP. Messages reach the index as events (new, edited, deleted), through the
 * backfill when threadwise joins a channel and at start; a mention in a third channel finds a decision with its
 * channel, author, date and permalink; a non-member never gets a trace of a private channel (tool result, answer,
 * recorded steps); "remember" posts a note with Forget, the channel's next thread carries the memory and another
 * channel's does not; Forget removes it; a personal memory reaches only its author's private conversations; and the
 * retention sweep removes old messages.
 */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { findIndexedMessage } from '../../../src/knowledge/message-index';
import { rowsOf } from '../../../src/store/database';
import { toolResultsIn } from '../../agent/loop-fixtures';
import type { ChatRequestBody } from '../../fakes/fake-openai';
import { appHomeOpenedEvent, buttonClick, messageChangedEvent, messageEvent, postSlackEvent } from '../../fakes/slack-signing';
import { eventually } from '../../support/eventually';
import { ANA, BEN, CHANNEL, SIGNING_SECRET, useHarness } from '../../support/harness';

const MIRA = 'U0MIRA';
const PLATFORM = 'C0PLATFORM';
const DEALS = 'C0DEALS';
const RANDOM = 'C0RANDOM';
const SECRET = 'Codename Bluebird: the staging database password rotation is paused until the Halvorsen acquisition closes';

const h = useHarness({
  env: { RETENTION_DAYS: '30' },
  // The retention sweep runs often here, so a message posted long ago is swept while the test waits for it.
  start: { housekeepingMs: 400, firstHousekeepingMs: 400, leaseMs: 30_000 },
});

let micros = 0;
/** A message ts `hoursAgo` hours before now, each one distinct. */
function tsAgo(hoursAgo: number): string {
  const ms = Date.now() - hoursAgo * 60 * 60_000;
  micros = (micros + 100) % 1_000_000;
  return `${Math.floor(ms / 1000)}.${String(micros).padStart(6, '0')}`;
}
const dateOf = (ts: string) => new Date(Number(ts.split('.')[0]) * 1000).toISOString().slice(0, 10);
const permalinkOf = (channel: string, ts: string) => `${h.slack.origin}/archives/${channel}/p${ts.replace('.', '')}`;

let workspaceReady = false;
function setUpWorkspace() {
  if (workspaceReady) return;
  workspaceReady = true;
  h.slack.addUser({ id: MIRA, name: 'mira', displayName: 'Mira' });
  h.slack.addChannel({ id: PLATFORM, name: 'platform' });
  h.slack.addChannel({ id: DEALS, name: 'deal-room', isPrivate: true, members: [ANA, MIRA] });
  h.slack.addChannel({ id: RANDOM, name: 'random' });
}

/** Someone writes in a channel: the message is in Slack and its event reaches the app. */
async function post(channel: string, user: string, text: string, options: { hoursAgo?: number; threadTs?: string; type?: 'channel' | 'group' } = {}) {
  const ts = tsAgo(options.hoursAgo ?? 1);
  h.slack.addMessage(channel, { ts, user, text, thread_ts: options.threadTs });
  const event = messageEvent({ channel, user, text, ts, thread_ts: options.threadTs, channel_type: options.type ?? 'channel' });
  const response = await postSlackEvent(h.eventsUrl, SIGNING_SECRET, event, { teamId: h.slack.teamId });
  expect(response.status).toBe(200);
  return ts;
}

/** A mention that starts a new thread; returns its ts and the index of its run's first model request. */
async function ask(channel: string, user: string, text: string, threadTs?: string) {
  const first = h.model.requests.length;
  const { ts } = await h.mention({ channel, user, text: `<@${h.slack.botUserId}> ${text}`, threadTs });
  await h.answers(channel, threadTs ?? ts);
  await h.app.idle();
  return { ts, request: h.model.requests[first]!, requests: h.model.requests.slice(first) };
}

const everything = (request: ChatRequestBody) => JSON.stringify(request.messages);
const toolNames = (request: ChatRequestBody) => (request.tools ?? []).map((tool) => (tool as { function: { name: string } }).function.name);

/** The model calls search_messages, then answers by repeating every tool result it got (the worst case for a leak). */
function searchThenRepeat(query: string) {
  h.model.enqueue({ toolCalls: [{ name: 'search_messages', arguments: { query } }] }, (request) => ({ text: `What I found:\n${toolResultsIn(request).join('\n')}` }));
}

async function recordedTraces(triggerTs: string): Promise<string> {
  const rows = await eventually(async () => {
    const found = rowsOf<Record<string, unknown>>(
      await h.database.db.execute(sql`select s.name, s.arguments, s.result_preview, s.error, r.activity, r.answer from run_steps s join runs r on r.id = s.run_id where r.trigger_ts = ${triggerTs}`),
    );
    return found.some((row) => row.name === 'search_messages') && found;
  });
  return JSON.stringify(rows);
}

describe('search_messages through the running app', () => {
  it('finds a decision made in another channel with channel, author, date and link; a non-member gets no trace of a private channel', async () => {
    setUpWorkspace();
    const question = await post(PLATFORM, BEN, 'How often should we rotate the staging DB password?', { hoursAgo: 50 });
    const decision = await post(PLATFORM, ANA, 'Decision: we rotate the staging database password every 30 days, and the on-call engineer does it.', { hoursAgo: 49, threadTs: question });
    await post(DEALS, ANA, SECRET, { hoursAgo: 30, type: 'group' });
    await h.app.idle();

    // Ben is not in #deal-room.
    searchThenRepeat('rotate staging database password');
    const ben = await ask(CHANNEL, BEN, 'what did we decide about rotating the staging DB password?');
    expect(toolNames(ben.request)).toEqual(expect.arrayContaining(['search_messages', 'read_channel', 'remember', 'forget']));
    const result = toolResultsIn(ben.requests[1]!)[0]!;
    expect(result).toContain(`#platform · Ana · ${dateOf(decision)}`);
    expect(result).toContain(`link: ${permalinkOf(PLATFORM, decision)}`);
    expect(result).toContain('<slack_message channel="#platform" author="Ana"');
    expect(result).toMatch(/^2 messages in the channels you can read/);

    const answer = (await h.answers(CHANNEL, ben.ts)).join('\n');
    expect(answer).toContain('#platform · Ana');
    const steps = await recordedTraces(ben.ts);
    for (const trace of ['Bluebird', 'Halvorsen', 'acquisition', 'deal-room', DEALS, '3 messages']) {
      expect(result).not.toContain(trace);
      expect(answer).not.toContain(trace);
      expect(steps).not.toContain(trace);
    }

    // Mira is: the same question finds the private channel's message too.
    searchThenRepeat('rotate staging database password');
    const mira = await ask(CHANNEL, MIRA, 'what did we decide about rotating the staging DB password?');
    const forMira = toolResultsIn(mira.requests[1]!)[0]!;
    expect(forMira).toMatch(/^3 messages/);
    expect(forMira).toContain('#deal-room · Ana');
    expect(forMira).toContain('Bluebird');
  });

  it('follows edits and deletions sent as events, and the retention sweep removes messages posted before the window', async () => {
    setUpWorkspace();
    const freeze = await post(PLATFORM, ANA, 'The deploy freeze starts on Thursday at noon.');
    const leaked = await post(PLATFORM, BEN, 'The deploy freeze override code is 8812, do not share it.');
    const old = await post(PLATFORM, ANA, 'The deploy freeze of last quarter was cancelled.', { hoursAgo: 45 * 24 });
    await h.app.idle();

    const edited = messageChangedEvent({ channel: PLATFORM, user: ANA, text: 'The deploy freeze starts on Friday at noon.', ts: freeze, editedTs: tsAgo(0) });
    expect((await postSlackEvent(h.eventsUrl, SIGNING_SECRET, edited, { teamId: h.slack.teamId })).status).toBe(200);
    expect(await h.slack.deleteMessage(PLATFORM, leaked)).toBe(200);
    // The sweep runs every 400 ms: it reports the message posted 45 days ago, and the row is gone.
    await eventually(() => h.logs.some((line) => line.includes('retention sweep') && (JSON.parse(line) as { indexedMessages?: number }).indexedMessages! >= 1), {
      timeoutMs: 15_000,
      what: 'a retention sweep removing an indexed message',
    });
    expect(await findIndexedMessage(h.database.db, PLATFORM, old)).toBeUndefined();
    await h.app.idle();

    searchThenRepeat('deploy freeze');
    const asked = await ask(CHANNEL, BEN, 'when does the deploy freeze start?');
    const result = toolResultsIn(asked.requests[1]!)[0]!;
    expect(result).toContain('Friday');
    expect(result).toContain('edited');
    for (const gone of ['Thursday', '8812', 'override', 'last quarter']) expect(result).not.toContain(gone);
  });

  it('backfills a channel when threadwise joins it, and the channels it is in when it starts', async () => {
    setUpWorkspace();
    h.slack.addChannel({ id: 'C0OPS', name: 'ops' });
    const parent = tsAgo(20);
    h.slack.addMessage('C0OPS', { ts: parent, user: BEN, text: 'Who owns the nightly backup job?' });
    h.slack.addMessage('C0OPS', { ts: tsAgo(19), thread_ts: parent, user: ANA, text: 'The nightly backup job belongs to the storage team since October.' });
    const joined = { type: 'member_joined_channel', user: h.slack.botUserId, channel: 'C0OPS', channel_type: 'C', team: h.slack.teamId, event_ts: tsAgo(0) };
    expect((await postSlackEvent(h.eventsUrl, SIGNING_SECRET, joined, { teamId: h.slack.teamId })).status).toBe(200);
    await h.app.idle();

    searchThenRepeat('nightly backup job owner');
    const afterJoin = toolResultsIn((await ask(CHANNEL, ANA, 'who owns the nightly backup job?')).requests[1]!)[0]!;
    expect(afterJoin).toContain('#ops · Ana');
    expect(afterJoin).toContain('storage team');

    // A channel threadwise is in but heard nothing from: read when the app starts again.
    h.slack.addChannel({ id: 'C0LEGACY', name: 'legacy' });
    h.slack.addMessage('C0LEGACY', { ts: tsAgo(10), user: BEN, text: 'The legacy billing cluster is switched off on the first of December.' });
    await h.restart();
    await h.app.idle();
    expect(h.slack.callsTo('conversations.history').some((call) => call.body.channel === 'C0LEGACY')).toBe(true);
    searchThenRepeat('legacy billing cluster switched off');
    const afterStart = toolResultsIn((await ask(CHANNEL, ANA, 'when is the legacy billing cluster switched off?')).requests[1]!)[0]!;
    expect(afterStart).toContain('#legacy · Ben');
  });
});

describe('memories through the running app', () => {
  /** The Forget button on a memory's note in the thread. */
  function forgetButtonOf(channel: string, threadTs: string) {
    const note = h.slack.botMessages(channel, threadTs).find((m) => JSON.stringify(m.blocks ?? []).includes('memory_forget'));
    if (!note) return undefined;
    const button = (note.blocks as Array<{ accessory?: { action_id?: string; value?: string } }>).find((b) => b.accessory?.action_id === 'memory_forget')!.accessory!;
    return { note, id: button.value! };
  }

  it('keeps a channel memory on request, announces it with Forget, carries it in that channel only, and forgets it on the button', async () => {
    setUpWorkspace();
    h.model.enqueue({ toolCalls: [{ name: 'remember', arguments: { text: 'Payments on-call: +1 555 0100' } }] }, { text: 'Noted for this channel.' });
    const kept = await ask(PLATFORM, ANA, 'remember that payments on-call is +1 555 0100');
    expect(toolResultsIn(kept.requests[1]!)[0]).toMatch(/^Kept as M\d+ for this channel/);
    const found = forgetButtonOf(PLATFORM, kept.ts);
    expect(found).toBeDefined();
    const { note, id } = found!;
    expect(note.text).toBe(`Remembered for this channel (M${id}): “Payments on-call: +1 555 0100”`);

    // The channel's next thread carries it; another channel's does not.
    const next = await ask(PLATFORM, BEN, 'who is on call for payments?');
    expect(everything(next.request)).toContain('<memories');
    expect(everything(next.request)).toContain(`M${id} | for this channel | Ana`);
    expect(everything(next.request)).toContain('+1 555 0100');
    const elsewhere = await ask(RANDOM, BEN, 'who is on call for payments?');
    expect(everything(elsewhere.request)).not.toContain('555 0100');
    expect(everything(elsewhere.request)).not.toContain('<memories');

    // Ben did not ask for it and is no admin: his click changes nothing.
    const click = (user: string) =>
      h.interact(buttonClick({ slack: h.slack, user, channel: PLATFORM, message: { ts: note.ts, thread_ts: kept.ts }, action: { action_id: 'memory_forget', value: id } }));
    expect((await click(BEN)).status).toBe(200);
    await h.slack.waitFor(() => h.slack.ephemerals.some((e) => e.user === BEN));
    expect(h.slack.ephemerals.find((e) => e.user === BEN)?.text).toBe(`Only <@${ANA}> (who asked to remember it) or an admin can forget M${id}.`);
    expect(everything((await ask(PLATFORM, BEN, 'on call?')).request)).toContain('555 0100');

    // Ana's click forgets it: the note says so, and later requests no longer carry it.
    await click(ANA);
    await h.slack.waitFor(() => (h.slack.botMessages(PLATFORM, kept.ts).find((m) => m.ts === note.ts)?.text ?? '').startsWith('Forgotten'));
    await h.app.idle();
    const after = await ask(PLATFORM, BEN, 'who is on call for payments?');
    expect(everything(after.request)).not.toContain('555 0100');
  });

  it('keeps a personal memory for its author\'s private conversations only: a DM or a thread no one else wrote in', async () => {
    setUpWorkspace();
    h.model.enqueue({ toolCalls: [{ name: 'remember', arguments: { text: 'My badge number is 4711', scope: 'personal' } }] }, { text: 'Kept for you.' });
    const kept = await ask(RANDOM, ANA, 'remember for me only that my badge number is 4711');
    const note = h.slack.ephemerals.find((e) => e.user === ANA && JSON.stringify(e.blocks ?? []).includes('memory_forget'));
    expect(note?.text).toMatch(/^Remembered for you only \(M\d+\): “My badge number is 4711”/);
    expect(note?.thread_ts).toBe(kept.ts);
    expect(h.slack.botMessages(RANDOM, kept.ts).some((m) => (m.text ?? '').includes('4711') && JSON.stringify(m.blocks ?? []).includes('memory_forget'))).toBe(false);

    // Alone in a new thread, in any channel: carried.
    expect(everything((await ask(PLATFORM, ANA, 'what is my badge number?')).request)).toContain('4711');
    // In a DM with the bot: carried.
    const dmFirst = h.model.requests.length;
    const dm = await h.say({ channel: 'D0ANA', user: ANA, text: 'what is my badge number?', channelType: 'im' });
    await h.answers('D0ANA', dm.ts);
    await h.app.idle();
    expect(everything(h.model.requests[dmFirst]!)).toContain('4711');
    // In a thread Ben wrote in: left out, though Ana asks.
    const shared = await h.say({ channel: RANDOM, user: BEN, text: 'Anyone know the door codes?' });
    expect(everything((await ask(RANDOM, ANA, 'what is my badge number?', shared.ts)).request)).not.toContain('4711');
    // Ben's own requests: never.
    expect(everything((await ask(RANDOM, BEN, 'what is the badge number?')).request)).not.toContain('4711');
  });

  it('lists memories in App Home, with Forget only where the person may forget, and forgets from there', async () => {
    setUpWorkspace();
    h.model.enqueue({ toolCalls: [{ name: 'remember', arguments: { text: 'Standup moves to 09:30 on Mondays' } }] }, { text: 'Noted.' });
    await ask(RANDOM, ANA, 'remember that standup moves to 09:30 on Mondays');
    const published = async (user: string) => {
      const before = h.slack.callsTo('views.publish').length;
      await postSlackEvent(h.eventsUrl, SIGNING_SECRET, appHomeOpenedEvent({ user }), { teamId: h.slack.teamId });
      await h.slack.waitFor(() => h.slack.callsTo('views.publish').length > before);
      await h.app.idle();
      return h.slack.callsTo('views.publish').at(-1)!.body.view as { type: string; blocks: Array<{ type: string; text?: { text: string }; accessory?: { action_id: string; value: string } }> };
    };
    const line = (view: Awaited<ReturnType<typeof published>>) => view.blocks.find((b) => b.text?.text.includes('Standup moves to 09:30'));

    const forAna = await published(ANA);
    expect(forAna.blocks.some((b) => b.type === 'header' && b.text?.text === 'Memories')).toBe(true);
    expect(line(forAna)?.text?.text).toContain(`<#${RANDOM}>`);
    const button = line(forAna)?.accessory;
    expect(button?.action_id).toBe('memory_forget');
    // Ben may read #random, so he sees it; he did not ask for it, so he has no Forget.
    const forBen = await published(BEN);
    expect(line(forBen)).toBeDefined();
    expect(line(forBen)?.accessory).toBeUndefined();

    const before = h.slack.callsTo('views.publish').length;
    const click = {
      type: 'block_actions',
      user: { id: ANA, username: 'ana', team_id: h.slack.teamId },
      team: { id: h.slack.teamId, domain: 'fake' },
      api_app_id: h.slack.appId,
      token: 'fake-verification-token',
      trigger_id: '1.2.3',
      container: { type: 'view', view_id: 'V0HOME' },
      view: { id: 'V0HOME', type: 'home', blocks: forAna.blocks },
      actions: [{ type: 'button', action_id: 'memory_forget', value: button!.value, action_ts: '1700000999.000100' }],
    };
    expect((await h.interact(click)).status).toBe(200);
    await h.slack.waitFor(() => h.slack.callsTo('views.publish').length > before);
    const after = h.slack.callsTo('views.publish').at(-1)!.body.view as Awaited<ReturnType<typeof published>>;
    expect(line(after)).toBeUndefined();
    expect(after.blocks.filter((b) => b.type === 'header' && b.text?.text === 'Memories')).toHaveLength(1);
    expect(after.blocks.length).toBe(forAna.blocks.length - 1);
  });
});
