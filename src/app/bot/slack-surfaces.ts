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
import { describeChannelTools } from '../../tools/channel-tools';
import type { createBotChannelSettings } from './channel-settings';
import { createRunRequests } from '../../runs/run-requests';
import { slackDeletions } from '../slack-deletions';
import { registerConnectButton } from '../../slack/connect-prompt';
import { registerDisconnectAction } from '../../slack/oauth-home';
import { registerPersonLeft } from '../../slack/person-left';
import type { SignInParts } from '../sign-in';
import { registerKnowledgeListeners, type KnowledgeListenerDependencies } from '../../slack/knowledge-listeners';

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
  /** Per-person sign-in, when an MCP server uses it: Connect, Disconnect, App Home's accounts, people who leave. */
  signIn?: SignInParts;
  /** Beyond the thread: the message index's listeners and App Home's memories section (absent: neither). */
  knowledge?: { listeners: KnowledgeListenerDependencies; homeSection(teamId: string, userId: string): Promise<unknown[]> };
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
    runs: createRunRequests(db, parts.clock),
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
  const refreshHome = registerAppHome(app as never, {
    db,
    settingsFor: settings.settingsFor,
    skills: listSkills,
    tools: () => describeChannelTools(parts.toolsFor('')),
    admins: config.approval.adminUsers,
    botName: bot.name,
    now: parts.now,
    logger,
    accounts: parts.signIn && { servers: parts.signIn.serverNames, grantsOf: parts.signIn.grantsOf, allGrants: parts.signIn.allGrants },
    memories: parts.knowledge?.homeSection,
    tasks: (userId, teamId) => homeTaskSection(taskDeps, userId, teamId),
  });
  registerTaskActions(app as unknown as TaskActionHost, {
    ...taskDeps,
    logger,
    onTaskChanged: parts.onTaskChanged,
    onHomeChanged: (userId, client) => refreshHome(client, '', userId),
  });
  const signIn = parts.signIn;
  if (signIn) {
    registerConnectButton(app as never);
    registerDisconnectAction(app as never, { disconnect: (as, server) => signIn.personal.disconnect(as, server), refreshHome: (teamId, userId) => refreshHome(app.client, teamId, userId), logger });
    registerPersonLeft(app as never, { forget: signIn.forgetPerson, logger });
  }
  if (parts.knowledge) registerKnowledgeListeners(app as never, parts.knowledge.listeners);
  registerApprovalActions(app, { db, timeZone: config.timeZone, logger, onRunResumable: parts.onRunResumable, admins: config.approval.adminUsers });
  app.error(async (error) => {
    logger.error('unhandled error in a Slack listener', { error });
  });
  return listeners;
}
