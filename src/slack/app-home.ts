/**
 * threadwise's Home tab, published on every app_home_opened: what it is and how to ask, the channels it is in with
 * their settings, the person's own recent questions (linked to their threads), the skills and tools it has, and for
 * ADMIN_USERS the last seven days' usage.
 */
import type { WebClient } from '@slack/web-api';
import { describeOverrides, type EffectiveChannelSettings } from '../config/channel-settings';
import type { Logger } from '../logging/logger';
import type { SkillSummary } from '../skills/types';
import { recentQuestionsOf, type RecentQuestion } from '../store/app-home-store';
import { readUsageTotals, type UsageRow } from '../store/usage-store';
import type { Database } from '../store/database';
import { escapeMrkdwn } from './format/escape-mrkdwn';
import type { ToolListing, ToolOverview } from './format-tool-list';
import type { AppHomeOpenedPayload, EventEnvelopePayload } from './payload-schemas';
import { connectedAccountsBlocks, grantsAdminBlocks, type ConnectedServerLine, type GrantLine } from './oauth-home';

export interface AppHomeDependencies {
  db: Database;
  settingsFor: (teamId: string, channelId: string) => Promise<EffectiveChannelSettings>;
  skills: () => SkillSummary[];
  /** Every tool threadwise has (its own and the MCP servers'), whichever channel enables them. */
  tools: () => ToolOverview;
  admins: readonly string[];
  botName: string;
  now: () => number;
  logger: Logger;
  /** Per-person servers: the person's connected accounts (with Disconnect) and, for admins, who connected what. */
  accounts?: {
    servers: readonly string[];
    grantsOf(teamId: string, userId: string): Promise<ConnectedServerLine[]>;
    allGrants(teamId: string): Promise<GrantLine[]>;
  };
  /** The person's memories and those of the channels they can read (knowledge-home.ts), appended at the end. */
  memories?: (teamId: string, userId: string) => Promise<unknown[]>;
  /** The person's scheduled tasks (an admin's: everyone's), as the Home tab's section. */
  tasks?: (userId: string, teamId: string) => Promise<unknown[]>;
}

export interface AppHomeHost {
  event(name: 'app_home_opened', listener: (args: { event: AppHomeOpenedPayload; body: Pick<EventEnvelopePayload, 'team_id'>; client: WebClient }) => Promise<void>): unknown;
}

const DAY_MS = 24 * 60 * 60_000;
const MAX_CHANNELS = 15;

/** Returns what publishes a person's Home tab again (after Disconnect). */
export function registerAppHome(app: AppHomeHost, deps: AppHomeDependencies): (client: WebClient, teamId: string, user: string) => Promise<void> {
  app.event('app_home_opened', async ({ event, body, client }) => {
    if (event.tab !== 'home') return;
    await publishHome(client, deps, body.team_id ?? '', event.user);
  });
  return (client, teamId, user) => publishHome(client, deps, teamId, user);
}

async function publishHome(client: WebClient, deps: AppHomeDependencies, teamId: string, user: string): Promise<void> {
  try {
    const memories = deps.memories?.(teamId, user).catch((error: unknown) => {
      deps.logger.warn('could not list memories for the home tab', { user, error });
      return [];
    });
    const [channels, recent, usage, tasks] = await Promise.all([
      channelsWithSettings(client, deps, teamId),
      recentWithLinks(client, deps, user),
      deps.admins.includes(user) ? readUsageTotals(deps.db, lastSevenUtcDays(deps.now())) : Promise.resolve(undefined),
      deps.tasks?.(user, teamId),
    ]);
    const accounts = await accountBlocks(deps, teamId, user);
    // A home view holds at most 100 blocks: the memories, last, give way first.
    const blocks = [...renderHome({ botName: deps.botName, channels, recent, usage, skills: deps.skills(), tools: deps.tools().tools, tasks }), ...accounts, ...((await memories) ?? [])].slice(0, 100);
    await client.views.publish({ user_id: user, view: { type: 'home', blocks: blocks as never } });
  } catch (error) {
    deps.logger.warn('could not publish the home tab', { user, error });
  }
}

/** The person's connected per-person servers; for admins, also who connected which (never a token). */
async function accountBlocks(deps: AppHomeDependencies, teamId: string, user: string): Promise<unknown[]> {
  if (!deps.accounts || deps.accounts.servers.length === 0) return [];
  const [mine, all] = await Promise.all([deps.accounts.grantsOf(teamId, user), deps.admins.includes(user) ? deps.accounts.allGrants(teamId) : Promise.resolve(undefined)]);
  return [{ type: 'divider' }, ...connectedAccountsBlocks(mine, deps.accounts.servers), ...(all ? [{ type: 'divider' }, ...grantsAdminBlocks(all)] : [])];
}

/** Today and the six UTC days before it: the same days the console's usage and the daily limits count. */
function lastSevenUtcDays(now: number): { from: string; to: string } {
  return { from: new Date(now - 6 * DAY_MS).toISOString().slice(0, 10), to: new Date(now).toISOString().slice(0, 10) };
}

interface ChannelLine {
  id: string;
  name: string;
  settings: string[];
}

async function channelsWithSettings(client: WebClient, deps: AppHomeDependencies, teamId: string): Promise<ChannelLine[]> {
  const listed = await client.users.conversations({ types: 'public_channel,private_channel', exclude_archived: true, limit: 200 }).catch(() => undefined);
  const channels = (listed?.channels ?? []).filter((c) => c.id).slice(0, MAX_CHANNELS);
  return Promise.all(
    channels.map(async (channel) => ({ id: channel.id!, name: channel.name ?? channel.id!, settings: describeOverrides(await deps.settingsFor(teamId, channel.id!)) })),
  );
}

async function recentWithLinks(client: WebClient, deps: AppHomeDependencies, user: string): Promise<Array<RecentQuestion & { link?: string }>> {
  const recent = await recentQuestionsOf(deps.db, user, 5);
  return Promise.all(
    recent.map(async (question) => ({
      ...question,
      // A scheduled task's run was asked by no message: no permalink to look up.
      link: !/^\d+\.\d+$/.test(question.triggerTs) ? undefined : await client.chat
        .getPermalink({ channel: question.channelId, message_ts: question.triggerTs })
        .then((found) => found.permalink)
        .catch(() => undefined),
    })),
  );
}

interface HomeContent {
  botName: string;
  channels: ChannelLine[];
  recent: Array<RecentQuestion & { link?: string }>;
  /** Only for admins. */
  usage?: UsageRow;
  skills: SkillSummary[];
  tools: ToolListing[];
  /** Blocks of the scheduled tasks' section (slack/task-blocks.ts). */
  tasks?: unknown[];
}

function renderHome(content: HomeContent): unknown[] {
  const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text: text.slice(0, 3000) } });
  const header = (text: string) => ({ type: 'header', text: { type: 'plain_text', text } });
  const blocks: unknown[] = [
    header(`${content.botName}`),
    section(
      `An AI agent that lives in your threads: it reads the whole thread and the files shared in it, and answers in place.\n• @mention me in any thread, DM me, or use \`/ask <question>\`\n• On any message: ⋯ → *Ask threadwise* answers in its thread\n• \`/ask settings\` in a channel changes how I behave there`,
    ),
    { type: 'divider' },
    header('Channels I’m in'),
  ];
  if (content.channels.length === 0) blocks.push(section('None yet — invite me with `/invite @' + content.botName + '`.'));
  for (const channel of content.channels) {
    const settings = channel.settings.length ? channel.settings.map((line) => escapeMrkdwn(line)).join(' · ') : 'workspace defaults';
    blocks.push(section(`<#${channel.id}> — ${settings}`));
  }
  blocks.push({ type: 'divider' }, header('Your recent questions'));
  if (content.recent.length === 0) blocks.push(section('You haven’t asked me anything yet.'));
  else {
    blocks.push(
      section(
        content.recent
          .map((q) => {
            const when = q.createdAt.toISOString().slice(0, 16).replace('T', ' ');
            const label = q.channelId.startsWith('D') ? 'in our DM' : `in <#${q.channelId}>`;
            return `• ${q.link ? `<${q.link}|${when} UTC>` : `${when} UTC`} ${label} — ${q.status}`;
          })
          .join('\n'),
      ),
    );
  }
  if (content.tasks?.length) blocks.push({ type: 'divider' }, ...content.tasks);
  blocks.push({ type: 'divider' }, header('Skills and tools'));
  blocks.push(section(content.skills.length ? content.skills.map((s) => `• *${escapeMrkdwn(s.name)}* — ${escapeMrkdwn(s.description)}`).join('\n') : 'No skills installed.'));
  blocks.push(
    section(
      content.tools.length
        ? content.tools.map((t) => `• \`${t.name}\`${t.needsApproval ? ' (asks for approval)' : ''}`).join('\n')
        : 'No tools.',
    ),
  );
  if (content.usage) {
    const u = content.usage;
    blocks.push(
      { type: 'divider' },
      header('Usage, last 7 days (admins only)'),
      section(`*${u.runs}* runs · *${u.failed}* failed · *${(u.inputTokens + u.outputTokens).toLocaleString('en')}* tokens (${u.inputTokens.toLocaleString('en')} in, ${u.outputTokens.toLocaleString('en')} out)`),
    );
  }
  return blocks;
}
