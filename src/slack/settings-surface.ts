/**
 * `/ask settings`: the channel's settings form (views.open), its validation (response_action: errors, a sentence
 * per bad field) and the save — recorded with history by the store and announced in the channel, so a change is
 * never silent. Who may edit: ADMIN_USERS always; the channel's members too when SETTINGS_EDITORS=members.
 */
import type { WebClient } from '@slack/web-api';
import {
  DEFAULT_SUGGESTED_PROMPTS,
  SETTING_LABELS,
  describeSettingValue,
  validateChannelSettings,
  type ChannelSettings,
  type EffectiveChannelSettings,
  type SettingName,
  type SettingsChoices,
} from '../config/channel-settings';
import type { Logger } from '../logging/logger';
import type { ChannelSettingsResolver } from '../store/channel-settings-store';
import { buildSettingsView, parseSettingsTarget, readSettingsForm, SETTINGS_VIEW_ID } from './channel-settings-form';
import type { SlashCommandArgs } from './listeners';

export interface SettingsSurfaceDependencies {
  resolver: ChannelSettingsResolver<EffectiveChannelSettings>;
  defaults: ChannelSettings;
  choices: () => SettingsChoices;
  admins: readonly string[];
  editors: 'members' | 'admins';
  logger: Logger;
}

/** The part of Bolt's App the view handlers register on, by shape (only the composition root imports Bolt). */
export interface ViewHost {
  view(
    callbackId: string,
    listener: (args: { ack(response?: Record<string, unknown>): Promise<void>; body: any; view: any; client: WebClient }) => Promise<void>,
  ): unknown;
}

function mayEditSettings(user: string, deps: Pick<SettingsSurfaceDependencies, 'admins' | 'editors'>): boolean {
  return deps.admins.includes(user) || deps.editors === 'members';
}

/** The sentence for someone who may not edit: who can, and what to do. */
function whoMayEditSettings(deps: Pick<SettingsSurfaceDependencies, 'admins' | 'editors'>): string {
  if (deps.admins.length === 0) {
    return 'Only threadwise’s admins can change its settings here, and none are set up (ADMIN_USERS is empty). Ask the team that runs threadwise.';
  }
  return `Only threadwise’s admins can change its settings here: ${deps.admins.map((id) => `<@${id}>`).join(', ')}. Ask one of them.`;
}

/** `/ask settings` in a channel: the form with the channel's current values, or a sentence saying why not. */
export function settingsCommand(deps: SettingsSurfaceDependencies) {
  return async ({ command, respond, client }: SlashCommandArgs) => {
    if (command.channel_id.startsWith('D')) {
      await respond({ response_type: 'ephemeral', text: 'Settings are per channel: run `/ask settings` in the channel you want to change.' });
      return;
    }
    if (!mayEditSettings(command.user_id, deps)) {
      await respond({ response_type: 'ephemeral', text: whoMayEditSettings(deps) });
      return;
    }
    // Slack sends team_id with every command; the schema leaves it optional, as the workspace default ('') reads it.
    const teamId = command.team_id ?? '';
    try {
      const current = await deps.resolver.settingsFor(teamId, command.channel_id);
      const name = await client.conversations
        .info({ channel: command.channel_id })
        .then((info) => info.channel?.name ?? command.channel_id)
        .catch(() => command.channel_id);
      await client.views.open({
        trigger_id: command.trigger_id!,
        view: buildSettingsView({ teamId, channelId: command.channel_id }, name, current, deps.choices()) as never,
      });
    } catch (error) {
      deps.logger.warn('could not open the settings form', { channel: command.channel_id, error });
      await respond({ response_type: 'ephemeral', text: 'Sorry, I couldn’t open the settings form just now. Please try `/ask settings` again.' });
    }
  };
}

export function registerSettingsSubmission(app: ViewHost, deps: SettingsSurfaceDependencies): void {
  app.view(SETTINGS_VIEW_ID, async ({ ack, body, view, client }) => {
    const user: string = body.user?.id ?? '';
    const target = parseSettingsTarget(view.private_metadata);
    if (!target) {
      await ack({ response_action: 'errors', errors: { extraInstructions: 'This form lost track of its channel. Close it and run /ask settings again.' } });
      return;
    }
    // Checked again here: the form may have been opened before the operator changed SETTINGS_EDITORS.
    if (!mayEditSettings(user, deps)) {
      await ack({ response_action: 'errors', errors: { extraInstructions: whoMayEditSettings(deps).replace(/<@(\w+)>/g, '$1') } });
      return;
    }
    const choices = deps.choices();
    const checked = validateChannelSettings(readSettingsForm(view.state?.values ?? {}), choices);
    if (!checked.ok) {
      const errors: Record<string, string> = {};
      for (const [field, message] of Object.entries(checked.errors)) errors[field === 'form' ? 'extraInstructions' : field] = message!;
      await ack({ response_action: 'errors', errors });
      return;
    }
    await ack();
    try {
      const before = await deps.resolver.settingsFor(target.teamId, target.channelId);
      const overrides = overridesOf(checked.overrides as Record<string, unknown>, deps.defaults);
      const changes = await deps.resolver.save(target, overrides, user);
      if (changes.length === 0) return;
      const after = await deps.resolver.settingsFor(target.teamId, target.channelId);
      deps.logger.info('channel settings changed', { channel: target.channelId, by: user, fields: changes.map((c) => c.field) });
      const who = await displayName(client, user);
      await client.chat.postMessage({ channel: target.channelId, text: describeChange(who, before, after, changes.map((c) => c.field as SettingName)), unfurl_links: false });
    } catch (error) {
      deps.logger.error('could not save channel settings', { channel: target.channelId, by: user, error });
      await client.chat
        .postEphemeral({ channel: target.channelId, user, text: 'Sorry, I couldn’t save the channel settings just now. Nothing was changed; please try again.' })
        .catch(() => {});
    }
  });
}

/** Only what differs from the workspace defaults is stored: the rest keeps following the environment. */
export function overridesOf(values: Record<string, unknown>, defaults: ChannelSettings): Record<string, unknown> {
  const base: Record<string, unknown> = { ...defaults, suggestedPrompts: defaults.suggestedPrompts ?? DEFAULT_SUGGESTED_PROMPTS };
  return Object.fromEntries(Object.entries(values).filter(([name, value]) => value !== undefined && JSON.stringify(value) !== JSON.stringify(base[name])));
}

/** "Ana changed threadwise's settings: preload KB 8 → 0 (off); model gpt-4o-mini → gpt-4o." */
export function describeChange(who: string, before: ChannelSettings, after: ChannelSettings, fields: SettingName[]): string {
  const parts = fields
    .filter((field) => field in SETTING_LABELS)
    .map((field) => `${SETTING_LABELS[field]} ${describeSettingValue(field, before)} → ${describeSettingValue(field, after)}`);
  return `${who} changed threadwise’s settings for this channel: ${parts.join('; ')}.`;
}

async function displayName(client: WebClient, userId: string): Promise<string> {
  try {
    const info = await client.users.info({ user: userId });
    return info.user?.profile?.display_name || info.user?.real_name || info.user?.name || userId;
  } catch {
    return 'Someone';
  }
}
