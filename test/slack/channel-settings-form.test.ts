import { describe, expect, it } from 'vitest';
import { buildSettingsView, parsePrompts, parseTriggers, readSettingsForm } from '../../src/slack/channel-settings-form';
import { describeChange, overridesOf } from '../../src/slack/settings-surface';
import { defaultChannelSettings, effectiveChannelSettings, validateChannelSettings } from '../../src/config/channel-settings';

const defaults = defaultChannelSettings({
  model: { name: 'gpt-4o-mini' },
  slack: { replyWithoutMention: true },
  files: { preloadKb: 8, maxImagesPerTurn: 4 },
} as never);
const choices = { models: ['gpt-4o-mini', 'gpt-4o'], skills: ['jira', 'slack'], mcpServers: ['github'] };

describe('the settings form', () => {
  it('round-trips: the values it shows are read back as the same settings, and nothing differs from the defaults', () => {
    const view = buildSettingsView({ teamId: 'T1', channelId: 'C1' }, 'general', defaults, choices);
    // What Slack submits for an untouched form: each element's initial value.
    const values = Object.fromEntries(
      (view.blocks as Array<{ type: string; block_id?: string; element?: Record<string, any> }>)
        .filter((b) => b.type === 'input')
        .map((b) => {
          const e = b.element!;
          const state =
            e.type === 'static_select' || e.type === 'radio_buttons'
              ? { type: e.type, selected_option: e.initial_option }
              : e.type === 'multi_static_select'
                ? { type: e.type, selected_options: e.initial_options ?? [] }
                : { type: e.type, value: e.initial_value ?? null };
          return [b.block_id!, { value: state }];
        }),
    );
    const checked = validateChannelSettings(readSettingsForm(values), choices);
    expect(checked.ok).toBe(true);
    if (checked.ok) expect(overridesOf(checked.overrides, defaults)).toEqual({});
  });

  it('reads prompts and triggers line by line, in the forms people type them', () => {
    expect(parsePrompts('Triage | Triage this bug\n\nNo message')).toEqual([
      { title: 'Triage', message: 'Triage this bug' },
      { title: 'No message', message: '' },
    ]);
    expect(parseTriggers(':memo: summarise this thread\njira → file this as a bug\n:Eyes: = look')).toEqual({
      memo: 'summarise this thread',
      jira: 'file this as a bug',
      eyes: 'look',
    });
  });

  it('says what is wrong with each bad field', () => {
    const checked = validateChannelSettings(
      readSettingsForm({
        preloadKb: { value: { type: 'number_input', value: 'lots' } },
        suggestedPrompts: { value: { type: 'plain_text_input', value: 'Only a title' } },
        reactionTriggers: { value: { type: 'plain_text_input', value: ':memo:' } },
        skills: { value: { type: 'multi_static_select', selected_options: [{ value: 'nope' }] } },
      }),
      choices,
    );
    expect(checked).toEqual({
      ok: false,
      errors: {
        preloadKb: 'Preload KB must be a whole number from 0 to 1024.',
        suggestedPrompts: 'Each suggested prompt needs a message.',
        reactionTriggers: 'Each reaction trigger needs a request.',
        skills: '"nope" is not among the skills (jira, slack).',
      },
    });
  });

  it('announces a change as before → after, by label', () => {
    const after = effectiveChannelSettings(defaults, { preloadKb: 0, model: 'gpt-4o', reactionTriggers: { memo: 'summarise' } }, choices);
    expect(describeChange('Ana', defaults, after, ['model', 'preloadKb', 'reactionTriggers'])).toBe(
      'Ana changed threadwise’s settings for this channel: model gpt-4o-mini → gpt-4o; preload KB 8 → 0 (off); reaction triggers none → :memo: → summarise.',
    );
  });
});
