/**
 * Per-channel settings through the fakes: `/ask settings` opens the form with the channel's values, a save changes
 * what the next run in that channel does (and only there), bad values come back as sentences in the form, people who
 * may not edit are told who can, and a second replica follows a change within a second.
 */
import { describe, expect, it } from 'vitest';
import { ANA, BEN, CHANNEL, SIGNING_SECRET, useHarness } from '../support/harness';
import { loadConfig } from '../../src/config';
import { startThreadwise } from '../../src/app/index';
import { mentionEvent, postSlackEvent, viewSubmission } from '../fakes/slack-signing';
import { readChannelSettings } from '../../src/store/channel-settings-store';

const C2 = 'C0SECOND';
const h = useHarness({ env: { ADMIN_USERS: ANA, SETTINGS_EDITORS: 'admins', ALLOWED_MODELS: 'gpt-4o', PRELOAD_KB: '8' } });

const metadata = (channelId = CHANNEL) => JSON.stringify({ teamId: h.slack.teamId, channelId });

/** The form as Slack would submit it, with the current values unless `changes` says otherwise. */
function formValues(changes: Record<string, Record<string, unknown>> = {}) {
  return {
    extraInstructions: { value: { type: 'plain_text_input', value: null } },
    model: { value: { type: 'static_select', selected_option: { value: 'gpt-4o-mini' } } },
    replyWithoutMention: { value: { type: 'radio_buttons', selected_option: { value: 'on' } } },
    preloadKb: { value: { type: 'number_input', value: '8' } },
    maxImagesPerTurn: { value: { type: 'number_input', value: '4' } },
    answerVisibility: { value: { type: 'radio_buttons', selected_option: { value: 'thread' } } },
    suggestedPrompts: { value: { type: 'plain_text_input', value: null } },
    reactionTriggers: { value: { type: 'plain_text_input', value: null } },
    ...changes,
  };
}

const submit = (user: string, values: ReturnType<typeof formValues>, channelId = CHANNEL) =>
  h.interact(viewSubmission({ slack: h.slack, user, callbackId: 'threadwise_channel_settings', privateMetadata: metadata(channelId), values }));

async function askWithFile(channel: string, marker: string) {
  const file = h.slack.addFile({ name: `${marker}.txt`, mimetype: 'text/plain', filetype: 'text', content: `notes: ${marker}\n` });
  h.model.enqueue({ text: 'Read it.' });
  const { ts } = await h.mention({ channel, text: `<@${h.slack.botUserId}> what does the file say?`, files: [file] });
  await h.answers(channel, ts);
  return JSON.stringify(h.model.requests.at(-1));
}

describe('per-channel settings', () => {
  it('/ask settings opens the form with the channel’s current values', async () => {
    await h.ask({ text: 'settings', user: ANA });
    await h.slack.waitFor((fake) => fake.callsTo('views.open').length === 1);
    const view = h.slack.callsTo('views.open')[0]!.body.view;
    expect(view).toMatchObject({ type: 'modal', callback_id: 'threadwise_channel_settings' });
    expect(JSON.parse(view.private_metadata)).toEqual({ teamId: h.slack.teamId, channelId: CHANNEL });
    const block = (id: string) => view.blocks.find((b: { block_id?: string }) => b.block_id === id);
    expect(block('preloadKb').element.initial_value).toBe('8');
    expect(block('model').element.initial_option.value).toBe('gpt-4o-mini');
    expect(block('model').element.options.map((o: { value: string }) => o.value)).toEqual(['gpt-4o-mini', 'gpt-4o']);
    expect(block('replyWithoutMention').element.initial_option.value).toBe('on');
  });

  it('preload 0 saved for one channel: its next question preloads nothing, another channel still does; the change is announced', async () => {
    h.slack.addChannel({ id: C2, name: 'second' });
    const response = await submit(ANA, formValues({ preloadKb: { value: { type: 'number_input', value: '0' } } }));
    expect(response.status).toBe(200);
    await expect.poll(() => readChannelSettings(h.database.db, h.slack.teamId, CHANNEL)).toEqual({ preloadKb: 0 });
    await h.slack.waitFor((fake) => fake.botMessages(CHANNEL).some((m) => /changed threadwise’s settings/.test(m.text ?? '')));
    const note = h.slack.botMessages(CHANNEL).find((m) => /changed threadwise’s settings/.test(m.text ?? ''))!;
    expect(note.text).toBe('Ana changed threadwise’s settings for this channel: preload KB 8 → 0 (off).');

    const inC1 = await askWithFile(CHANNEL, 'alpha-marker');
    expect(inC1).not.toContain('notes: alpha-marker');
    expect(inC1).toContain('preload KB: 0 (off)');
    const inC2 = await askWithFile(C2, 'beta-marker');
    expect(inC2).toContain('notes: beta-marker');
  });

  it('an invalid value comes back as a sentence next to its field, and nothing is saved', async () => {
    const before = await readChannelSettings(h.database.db, h.slack.teamId, C2);
    const response = await submit(ANA, formValues({ maxImagesPerTurn: { value: { type: 'number_input', value: '500' } }, model: { value: { type: 'static_select', selected_option: { value: 'gpt-9' } } } }), C2);
    expect(JSON.parse(response.body)).toEqual({
      response_action: 'errors',
      errors: { maxImagesPerTurn: 'Max images per turn must be at most 20.', model: expect.stringContaining('That model is not approved here') },
    });
    expect(await readChannelSettings(h.database.db, h.slack.teamId, C2)).toEqual(before);
  });

  it('someone who may not edit is told who can, and changes nothing', async () => {
    await h.ask({ text: 'settings', user: BEN });
    await expect.poll(() => h.responses.at(-1)?.text).toContain(`<@${ANA}>`);
    expect(h.responses.at(-1)).toMatchObject({ response_type: 'ephemeral' });
    expect(h.slack.callsTo('views.open')).toHaveLength(0);
    // A form opened earlier and submitted now is refused too.
    const response = await submit(BEN, formValues({ preloadKb: { value: { type: 'number_input', value: '100' } } }));
    expect(JSON.parse(response.body).response_action).toBe('errors');
    expect(await readChannelSettings(h.database.db, h.slack.teamId, CHANNEL)).toEqual({ preloadKb: 0 });
  });

  it('a change made through one replica is used by another within a second', async () => {
    const env = {
      SLACK_BOT_TOKEN: h.slack.botToken,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: h.slack.apiUrl,
      OPENAI_API_KEY: 'sk-test-key-0123456789abcdef',
      OPENAI_BASE_URL: h.model.url,
      OPENAI_MODEL: 'gpt-4o-mini',
      PORT: '0',
      SKILLS_DIR: 'skills',
      ADMIN_USERS: ANA,
      USER_RATE_LIMIT_PER_MINUTE: '0',
    };
    const loaded = loadConfig(env);
    if (!loaded.ok) throw new Error(loaded.problems.join('; '));
    const second = await startThreadwise(loaded.config, { logger: h.logger, database: h.database, pollMs: 200, leaseMs: 3_000 });
    try {
      expect((await second.settingsFor(h.slack.teamId, C2)).extraInstructions).toBe(''); // cached on replica two now
      await submit(ANA, formValues({ extraInstructions: { value: { type: 'plain_text_input', value: 'Always answer in French.' } } }), C2);
      await expect.poll(() => readChannelSettings(h.database.db, h.slack.teamId, C2)).toMatchObject({ extraInstructions: 'Always answer in French.' });
      const savedAt = Date.now();
      await expect.poll(async () => (await second.settingsFor(h.slack.teamId, C2)).extraInstructions, { timeout: 1_000, interval: 50 }).toBe('Always answer in French.');
      expect(Date.now() - savedAt).toBeLessThan(1_000);

      // And a run on replica two follows it.
      h.model.enqueue({ text: 'Bien sûr.' });
      const stored = h.slack.addMessage(C2, { user: ANA, text: `<@${h.slack.botUserId}> hello` });
      await postSlackEvent(`http://127.0.0.1:${second.port}/slack/events`, SIGNING_SECRET, mentionEvent({ channel: C2, user: ANA, text: stored.text, ts: stored.ts }), { teamId: h.slack.teamId });
      await h.answers(C2, stored.ts);
      expect(JSON.stringify(h.model.requests.at(-1)!.messages[0])).toContain('Always answer in French.');
    } finally {
      await second.stop(1_000);
    }
  });
});
