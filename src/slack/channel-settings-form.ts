/**
 * The `/ask settings` modal as Block Kit: built from a channel's effective settings, and read back from a
 * view_submission into plain values for config/channel-settings.ts to validate. Pure: no Slack calls here.
 * Each input's block_id is the setting's name, so a validation sentence lands next to its field.
 */
import {
  DEFAULT_SUGGESTED_PROMPTS,
  SETTING_LABELS,
  type ChannelSettings,
  type SettingName,
  type SettingsChoices,
} from '../config/channel-settings';

export const SETTINGS_VIEW_ID = 'threadwise_channel_settings';

export interface SettingsFormTarget {
  teamId: string;
  channelId: string;
}

const option = (value: string, text = value) => ({ text: { type: 'plain_text' as const, text: text.slice(0, 75) }, value });

export function buildSettingsView(target: SettingsFormTarget, channelName: string, current: ChannelSettings, choices: SettingsChoices) {
  const input = (name: SettingName, element: Record<string, unknown>, extra: { hint?: string; optional?: boolean } = {}) => ({
    type: 'input',
    block_id: name,
    optional: extra.optional ?? false,
    label: { type: 'plain_text', text: capitalise(SETTING_LABELS[name]) },
    element: { action_id: 'value', ...element },
    ...(extra.hint ? { hint: { type: 'plain_text', text: extra.hint } } : {}),
  });
  const onOff = [option('on', 'On'), option('off', 'Off')];
  const visibility = [option('thread', 'In the thread'), option('thread_and_channel', 'Thread, and short answers also to the channel')];
  const blocks: unknown[] = [
    {
      type: 'section',
      text: { type: 'mrkdwn', text: `How threadwise behaves in *#${channelName}*. Fields left as they are follow the workspace defaults.` },
    },
    input('extraInstructions', { type: 'plain_text_input', multiline: true, ...(current.extraInstructions ? { initial_value: current.extraInstructions } : {}) }, {
      optional: true,
      hint: 'Added to threadwise’s instructions here, e.g. “Answer in German” or “Follow our Jira playbook”.',
    }),
    input('model', { type: 'static_select', options: choices.models.map((m) => option(m)), initial_option: option(current.model) }),
  ];
  if (choices.skills.length > 0) {
    blocks.push(
      input(
        'skills',
        {
          type: 'multi_static_select',
          options: choices.skills.map((s) => option(s)),
          ...(current.skills?.length ? { initial_options: current.skills.filter((s) => choices.skills.includes(s)).map((s) => option(s)) } : {}),
        },
        { optional: true, hint: 'Leave empty to offer every skill.' },
      ),
    );
  }
  if (choices.mcpServers.length > 0) {
    blocks.push(
      input(
        'mcpServers',
        {
          type: 'multi_static_select',
          options: choices.mcpServers.map((s) => option(s)),
          ...(current.mcpServers?.length ? { initial_options: current.mcpServers.filter((s) => choices.mcpServers.includes(s)).map((s) => option(s)) } : {}),
        },
        { optional: true, hint: 'Leave empty to offer every server mcp.json enables for this channel.' },
      ),
    );
  }
  blocks.push(
    input('replyWithoutMention', { type: 'radio_buttons', options: onOff, initial_option: current.replyWithoutMention ? onOff[0] : onOff[1] }, {
      hint: 'On: follow-ups in a thread that began with a mention need no mention.',
    }),
    input('preloadKb', { type: 'number_input', is_decimal_allowed: false, initial_value: String(current.preloadKb) }, { hint: 'First KB of each file put in the prompt; 0 = off.' }),
    input('maxImagesPerTurn', { type: 'number_input', is_decimal_allowed: false, initial_value: String(current.maxImagesPerTurn) }),
    input('answerVisibility', { type: 'radio_buttons', options: visibility, initial_option: visibility.find((o) => o.value === current.answerVisibility) }),
    input(
      'suggestedPrompts',
      {
        type: 'plain_text_input',
        multiline: true,
        initial_value: formatPrompts(current.suggestedPrompts ?? DEFAULT_SUGGESTED_PROMPTS),
      },
      { optional: true, hint: 'One per line: title | message. Shown when someone opens threadwise from this channel (at most 4).' },
    ),
    input(
      'reactionTriggers',
      { type: 'plain_text_input', multiline: true, ...(Object.keys(current.reactionTriggers).length ? { initial_value: formatTriggers(current.reactionTriggers) } : {}) },
      { optional: true, hint: 'One per line: :emoji: request, e.g. “:memo: summarise this thread”. Reacting with it asks threadwise in that message’s thread.' },
    ),
  );
  return {
    type: 'modal' as const,
    callback_id: SETTINGS_VIEW_ID,
    private_metadata: JSON.stringify(target),
    title: { type: 'plain_text' as const, text: 'Channel settings' },
    submit: { type: 'plain_text' as const, text: 'Save' },
    close: { type: 'plain_text' as const, text: 'Cancel' },
    blocks,
  };
}

export function parseSettingsTarget(privateMetadata: string | undefined): SettingsFormTarget | undefined {
  try {
    const parsed = JSON.parse(privateMetadata ?? '') as Partial<SettingsFormTarget>;
    return typeof parsed.channelId === 'string' && typeof parsed.teamId === 'string' ? { teamId: parsed.teamId, channelId: parsed.channelId } : undefined;
  } catch {
    return undefined;
  }
}

type StateValues = Record<string, Record<string, { type?: string; value?: string | null; selected_option?: { value: string } | null; selected_options?: Array<{ value: string }> }>>;

/**
 * The submitted form as plain values, before validation. A field missing from the form (no skills configured, say)
 * is left out; text that cannot be a number stays text so the validator names the field.
 */
export function readSettingsForm(values: StateValues): Record<string, unknown> {
  const field = (name: SettingName) => values[name]?.value;
  const input: Record<string, unknown> = {};
  if (field('extraInstructions')) input.extraInstructions = field('extraInstructions')!.value ?? '';
  const model = field('model')?.selected_option?.value;
  if (model !== undefined) input.model = model;
  for (const name of ['skills', 'mcpServers'] as const) {
    const selected = field(name)?.selected_options;
    if (selected && selected.length > 0) input[name] = selected.map((o) => o.value);
  }
  const reply = field('replyWithoutMention')?.selected_option?.value;
  if (reply !== undefined) input.replyWithoutMention = reply === 'on';
  for (const name of ['preloadKb', 'maxImagesPerTurn'] as const) {
    const raw = field(name)?.value;
    if (raw === undefined || raw === null) continue;
    input[name] = /^\s*-?\d+(\.\d+)?\s*$/.test(raw) ? Number(raw) : raw;
  }
  const visibility = field('answerVisibility')?.selected_option?.value;
  if (visibility !== undefined) input.answerVisibility = visibility;
  const prompts = field('suggestedPrompts')?.value;
  if (prompts?.trim()) input.suggestedPrompts = parsePrompts(prompts);
  const triggers = field('reactionTriggers')?.value;
  input.reactionTriggers = triggers?.trim() ? parseTriggers(triggers) : {};
  return input;
}

/** "Title | message" per line; a line without "|" is a title without a message (the validator says so). */
export function parsePrompts(text: string): Array<{ title: string; message: string }> {
  return lines(text).map((line) => {
    const bar = line.indexOf('|');
    return bar < 0 ? { title: line, message: '' } : { title: line.slice(0, bar).trim(), message: line.slice(bar + 1).trim() };
  });
}

/** ":emoji: request" (or "emoji → request", "emoji = request") per line. */
export function parseTriggers(text: string): Record<string, string> {
  const triggers: Record<string, string> = {};
  for (const line of lines(text)) {
    const match = /^:?([^\s:]+):?\s*(?:→|->|=|\|)?\s*(.*)$/.exec(line);
    if (match) triggers[match[1]!.toLowerCase()] = match[2]!.trim();
  }
  return triggers;
}

function formatPrompts(prompts: ReadonlyArray<{ title: string; message: string }>): string {
  return prompts.map((p) => `${p.title} | ${p.message}`).join('\n');
}

function formatTriggers(triggers: Record<string, string>): string {
  return Object.entries(triggers)
    .map(([emoji, request]) => `:${emoji}: ${request}`)
    .join('\n');
}

function lines(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
