/**
 * Everything a person can do with the bot in Slack, registered on the app: messages and /ask (listeners), the
 * settings form, reaction triggers, message shortcuts, the agent view, App Home and the approval buttons.
 */
import type { App } from '@slack/bolt';
import type { Config } from '../../config';
import type { BotIdentity } from '../../conversation';
import type { Logger } from '../../logging/logger';
import type { Intake } from '../../runs/intake';
import { registerAgentView } from '../../slack/agent-view';
import { registerAppHome } from '../../slack/app-home';
import { homeTaskSection, registerTaskActions, tasksSubcommand, type TaskActionHost } from '../../slack/task-actions';
import type { Clock } from '../../core/clock';
import { registerApprovalActions } from '../../slack/approval-actions';
import { registerAskShortcuts, type ShortcutHost } from '../../slack/ask-shortcuts';
import { registerListeners, type ListenerDependencies } from '../../slack/listeners';
import { registerReactionTriggers } from '../../slack/reaction-triggers';
import { registerSettingsSubmission, settingsCommand, type ViewHost } from '../../slack/settings-surface';
import type { SkillLibrary } from '../../skills';
import type { Database } from '../../store/database';
import type { ToolRegistry } from '../../tools';
import { describeChannelTools } from '../channel-tools';
import type { createBotChannelSettings } from './channel-settings';
import { createRunRequests } from '../../runs/run-requests';
import { slackDeletions } from '../slack-deletions';

export interface SurfaceParts {
  db: Database;
  intake: Intake;
  bot: BotIdentity;
  settings: ReturnType<typeof createBotChannelSettings>;
  skills: Pick<SkillLibrary, 'list'>;
  toolsFor: (channelId: string) => ToolRegistry;
  logger: Logger;
  replicaId: string;
  now: () => number;
  /** A decision made a parked run resumable: the worker should look now. */
  onRunResumable: () => void;
  /** Scheduled tasks' buttons and `/ask tasks`: their time, and the scheduler told of a change. */
  clock: Clock;
  onTaskChanged: () => void;
}

/** Returns what the listeners were given (questions recovered after a crash are answered with the same). */
export function registerSlackSurfaces(app: App, config: Config, parts: SurfaceParts): ListenerDependencies {
  const { db, intake, bot, settings, skills, logger, replicaId } = parts;
  const listSkills = () => skills.list();
  const taskDeps = { db, clock: parts.clock, admins: config.approval.adminUsers };
  const listeners: ListenerDependencies = {
    db,
    intake,
    runs: createRunRequests(db),
    deletions: slackDeletions(db),
    bot,
    replyWithoutMention: settings.replyWithoutMention,
    subcommands: { settings: settingsCommand(settings.surface), tasks: tasksSubcommand(taskDeps) },
    skills: listSkills,
    tools: (channelId) => describeChannelTools(parts.toolsFor(channelId)),
    logger,
    replicaId,
  };
  registerListeners(app, listeners);
  registerSettingsSubmission(app as unknown as ViewHost, settings.surface);
  registerReactionTriggers(app as never, { db, intake, bot, settingsFor: settings.settingsFor, logger, replicaId });
  registerAskShortcuts(app as unknown as ShortcutHost, { db, intake, botName: bot.name, logger, replicaId });
  registerAgentView(app as never, { db, settingsFor: settings.settingsFor, logger });
  const home = registerAppHome(app as never, {
    db,
    settingsFor: settings.settingsFor,
    skills: listSkills,
    tools: () => describeChannelTools(parts.toolsFor('')),
    admins: config.approval.adminUsers,
    botName: bot.name,
    now: parts.now,
    logger,
    tasks: (userId, teamId) => homeTaskSection(taskDeps, userId, teamId),
  });
  registerTaskActions(app as unknown as TaskActionHost, {
    ...taskDeps,
    logger,
    onTaskChanged: parts.onTaskChanged,
    onHomeChanged: (userId, client) => home.publish(client, userId, ''),
  });
  registerApprovalActions(app, { db, timeZone: config.timeZone, logger, onRunResumable: parts.onRunResumable, admins: config.approval.adminUsers });
  app.error(async (error) => {
    logger.error('unhandled error in a Slack listener', { error });
  });
  return listeners;
}
