/**
 * After the answer: 👍/👎 under it, stored against the run and acknowledged privately. Before it: a :x: on the
 * question or on the status message, or the status message's Stop button, ends the run cleanly — a note in the
 * thread, the run recorded as cancelled, what it had done so far still in run_steps.
 */
import { describe, expect, it } from 'vitest';
import { ANA, BEN, CHANNEL, SIGNING_SECRET, useHarness } from '../support/harness';
import { postSlackEvent } from '../fakes/slack-signing';
import { listFeedback, listRunSteps, listThreadRuns, type RunRow } from '../../src/store/run-store';
import { findThread } from '../../src/store/thread-store';

const h = useHarness();

const mention = (text: string) => h.mention({ text: `<@${h.slack.botUserId}> ${text}` });

async function runOf(threadTs: string): Promise<RunRow> {
  const thread = await findThread(h.database.db, CHANNEL, threadTs);
  const runs = await listThreadRuns(h.database.db, thread!.id);
  return runs.at(-1)!;
}

/** What Slack posts when someone clicks a button in a message. */
function blockAction(input: { user: string; messageTs: string; threadTs: string; action: Record<string, unknown> }) {
  return {
    type: 'block_actions',
    user: { id: input.user, username: input.user.toLowerCase(), team_id: h.slack.teamId },
    team: { id: h.slack.teamId, domain: 'fake' },
    api_app_id: h.slack.appId,
    token: 'fake-verification-token',
    trigger_id: '1.2.3',
    container: { type: 'message', message_ts: input.messageTs, channel_id: CHANNEL, is_ephemeral: false, thread_ts: input.threadTs },
    channel: { id: CHANNEL, name: 'general' },
    message: { type: 'message', ts: input.messageTs, thread_ts: input.threadTs, user: h.slack.botUserId, bot_id: h.slack.botId, text: '' },
    response_url: `${h.slack.origin}/response-url`,
    actions: [{ action_ts: '1700000999.000100', ...input.action }],
  };
}

function react(reaction: string, itemTs: string, user = ANA) {
  return postSlackEvent(
    h.eventsUrl,
    SIGNING_SECRET,
    { type: 'reaction_added', user, reaction, item: { type: 'message', channel: CHANNEL, ts: itemTs }, item_user: ANA, event_ts: '1700000999.000200' },
    { teamId: h.slack.teamId },
  );
}

describe('feedback', () => {
  it('is stored against the run, acknowledged to the clicker only, and a second click changes it', async () => {
    h.model.enqueue({ text: 'The deploy window is Tuesday.' });
    const { ts } = await mention('when is the deploy window?');
    await h.answers(CHANNEL, ts);
    const [answer] = h.slack.botMessages(CHANNEL, ts);
    const buttons = (answer!.blocks as Array<{ type: string; block_id: string; elements: Array<{ action_id: string }> }>).find((b) => b.type === 'context_actions')!;
    const runId = Number(buttons.block_id.replace('feedback_', ''));
    expect(runId).toBe((await runOf(ts)).id);
    const click = (value: string) =>
      h.interact(
        blockAction({
          user: BEN,
          messageTs: answer!.ts,
          threadTs: ts,
          action: { type: 'feedback_buttons', action_id: buttons.elements[0]!.action_id, block_id: buttons.block_id, value, text: { type: 'plain_text', text: '👎' } },
        }),
      );

    expect((await click(`negative:${runId}`)).status).toBe(200);
    await expect.poll(() => listFeedback(h.database.db, runId)).toMatchObject([{ runId, userId: BEN, value: 'negative' }]);
    await h.slack.waitFor(() => h.slack.ephemerals.length > 0);
    expect(h.slack.ephemerals[0]).toMatchObject({ channel: CHANNEL, user: BEN, thread_ts: ts, text: expect.stringContaining('what was missing') });

    await click(`positive:${runId}`);
    await expect.poll(async () => (await listFeedback(h.database.db, runId)).map((f) => f.value)).toEqual(['positive']);
  });
});

describe('cancel', () => {
  it('by :x: on the question stops the model call, says so in the thread and records the run as cancelled', async () => {
    h.model.enqueue({ delayMs: 30_000, then: { text: 'far too late' } });
    const { ts } = await mention('write me an essay');
    await h.model.waitForRequests(1);

    await react('x', ts);

    expect(await h.answers(CHANNEL, ts)).toEqual(['_Stopped: this answer was cancelled._']);
    await expect.poll(async () => (await runOf(ts)).status).toBe('cancelled');
    const run = await runOf(ts);
    expect(run).toMatchObject({ error: 'cancelled by a user', model: 'gpt-4o-mini', strategy: 'function_calling' });
    expect(await listRunSteps(h.database.db, run.id)).toMatchObject([{ kind: 'model', name: 'gpt-4o-mini' }]);
    await expect.poll(() => h.model.outcomes[0]!.kind).toBe('aborted');
    await h.slack.waitFor((fake) => fake.statuses(CHANNEL, ts).at(-1) === '');
  });

  it('by the Stop button on the status message, where Slack refuses the native status', async () => {
    h.slack.refuse('assistant.threads.setStatus', 'not_allowed_token_type');
    h.model.enqueue({ delayMs: 30_000, then: { text: 'far too late' } });
    const { ts } = await mention('write me another essay');
    await h.model.waitForRequests(1);
    await h.slack.waitFor((fake) => fake.botMessages(CHANNEL, ts).some((m) => JSON.stringify(m.blocks ?? []).includes('threadwise_cancel')));
    const statusMessage = h.slack.botMessages(CHANNEL, ts).find((m) => JSON.stringify(m.blocks ?? []).includes('threadwise_cancel'))!;
    const run = await runOf(ts);

    await h.interact(blockAction({ user: BEN, messageTs: statusMessage.ts, threadTs: ts, action: { type: 'button', action_id: 'threadwise_cancel', block_id: `cancel_${run.id}`, value: String(run.id) } }));

    expect(await h.answers(CHANNEL, ts)).toEqual(['_Stopped: this answer was cancelled._']);
    await expect.poll(async () => (await runOf(ts)).status).toBe('cancelled');
    // The status message is gone; the note is all that is left.
    await h.slack.waitFor((fake) => fake.botMessages(CHANNEL, ts).length === 1);
  });

  it('by :x: on the status message', async () => {
    h.slack.refuse('assistant.threads.setStatus', 'not_allowed_token_type');
    h.model.enqueue({ delayMs: 30_000, then: { text: 'far too late' } });
    const { ts } = await mention('and a third essay');
    await h.model.waitForRequests(1);
    await h.slack.waitFor((fake) => fake.botMessages(CHANNEL, ts).some((m) => JSON.stringify(m.blocks ?? []).includes('threadwise_cancel')));
    const statusMessage = h.slack.botMessages(CHANNEL, ts).find((m) => JSON.stringify(m.blocks ?? []).includes('threadwise_cancel'))!;
    await expect.poll(async () => (await runOf(ts)).statusMessageTs).toBe(statusMessage.ts);

    await react('x', statusMessage.ts, BEN);

    expect(await h.answers(CHANNEL, ts)).toEqual(['_Stopped: this answer was cancelled._']);
    await expect.poll(async () => (await runOf(ts)).status).toBe('cancelled');
  });

  it('ignores other reactions', async () => {
    h.model.enqueue({ delayMs: 1_500, then: { text: 'Finished anyway.' } });
    const { ts } = await mention('one more');
    await h.model.waitForRequests(1);
    await react('thumbsup', ts);
    expect(await h.answers(CHANNEL, ts)).toEqual(['Finished anyway.']);
    await expect.poll(async () => (await runOf(ts)).status).toBe('done');
  });
});
