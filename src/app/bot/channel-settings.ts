/**
 * Per-channel settings as the bot sees them: the environment's defaults, each channel's overrides on top, cached per
 * replica and invalidated through the store's version counter when any replica saves. What a run follows, what the
 * settings surface edits, and whether a channel answers without a mention all come from here.
 */
import type { Config } from '../../config';
import { defaultChannelSettings, effectiveChannelSettings, type EffectiveChannelSettings, type SettingsChoices } from '../../config/channel-settings';
import type { Logger } from '../../logging/logger';
import type { RunSettingsSource } from '../../runs/seams';
import type { SkillLibrary } from '../../skills';
import { createChannelSettingsResolver } from '../../store/channel-settings-store';
import type { Database } from '../../store/database';
import { userChannelContext } from '../../store/user-context-store';

export interface ChannelSettingsParts {
  db: Database;
  skills: Pick<SkillLibrary, 'list'>;
  mcpServers: readonly string[];
  logger: Logger;
  now: () => number;
}

export function createBotChannelSettings(config: Config, parts: ChannelSettingsParts) {
  const { db, logger } = parts;
  const defaults = defaultChannelSettings(config);
  const choices = (): SettingsChoices => ({
    models: config.model.allowedModels ?? [config.model.name],
    skills: parts.skills.list().map((skill) => skill.name),
    mcpServers: [...parts.mcpServers],
  });
  const resolver = createChannelSettingsResolver<EffectiveChannelSettings>({
    db,
    effective: (stored) => effectiveChannelSettings(defaults, stored, choices()),
    now: parts.now,
  });
  const settingsFor = (teamId: string | undefined, channelId: string) => resolver.settingsFor(teamId ?? '', channelId);

  // A DM follows the channel its asker was last looking at in Slack's agent view; without one, the defaults.
  const forRun: RunSettingsSource = async (thread, run) => {
    const teamId = run.teamId || thread.teamId || '';
    const viewing = thread.channelId.startsWith('D') && run.triggerUserId ? await userChannelContext(db, teamId, run.triggerUserId) : undefined;
    return settingsFor(teamId, viewing ?? thread.channelId);
  };

  const replyWithoutMention = (teamId: string | undefined, channelId: string) =>
    settingsFor(teamId, channelId).then(
      (settings) => settings.replyWithoutMention,
      (error) => {
        logger.warn('could not read the channel settings; following REPLY_WITHOUT_MENTION', { channel: channelId, error });
        return config.slack.replyWithoutMention;
      },
    );

  /** What the settings surface (/ask settings, its modal) edits with. */
  const surface = { resolver, defaults, choices, admins: config.approval.adminUsers, editors: config.slack.settingsEditors, logger };

  return { settingsFor, forRun, replyWithoutMention, surface };
}
