/**
 * Per-person sign-in on the Home tab: the person's connected servers, each with **Disconnect**; for ADMIN_USERS, who
 * connected which server (never a token). Pure block builders, plus the Disconnect action.
 */
import { escapeMrkdwn } from './format/escape-mrkdwn';
import { serverTitle } from './connect-prompt';

export const DISCONNECT_ACTION_ID = 'oauth_disconnect';

export interface ConnectedServerLine {
  server: string;
  connectedAt: Date;
  lastUsedAt: Date;
}

export interface GrantLine {
  userId: string;
  server: string;
  connectedAt: Date;
  lastUsedAt: Date;
}

const day = (date: Date) => date.toISOString().slice(0, 10);

/** "Your connected accounts": one section per server with a Disconnect button; the servers not connected listed after. */
export function connectedAccountsBlocks(connected: readonly ConnectedServerLine[], perPersonServers: readonly string[]): unknown[] {
  if (perPersonServers.length === 0) return [];
  const blocks: unknown[] = [{ type: 'header', text: { type: 'plain_text', text: 'Your connected accounts' } }];
  for (const line of connected) {
    const title = serverTitle(line.server);
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: `*${escapeMrkdwn(title)}* — connected ${day(line.connectedAt)}, last used ${day(line.lastUsedAt)}. I use it only when answering you.` },
      accessory: {
        type: 'button',
        action_id: DISCONNECT_ACTION_ID,
        value: line.server,
        text: { type: 'plain_text', text: 'Disconnect' },
        confirm: {
          title: { type: 'plain_text', text: `Disconnect ${title}?`.slice(0, 100) },
          text: { type: 'mrkdwn', text: `I forget your ${escapeMrkdwn(title)} tokens. I ask you to connect again the next time a question needs it.` },
          confirm: { type: 'plain_text', text: 'Disconnect' },
          deny: { type: 'plain_text', text: 'Keep' },
        },
      },
    });
  }
  const others = perPersonServers.filter((server) => !connected.some((line) => line.server === server));
  if (others.length > 0) {
    blocks.push({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: `Not connected: ${others.map((server) => escapeMrkdwn(serverTitle(server))).join(', ')}. I ask you privately in a thread when a question needs one.` }],
    });
  }
  return blocks;
}

/** ADMIN_USERS: who connected which server, by server. No tokens, no scopes' contents beyond the server's name. */
export function grantsAdminBlocks(grants: readonly GrantLine[]): unknown[] {
  const blocks: unknown[] = [{ type: 'header', text: { type: 'plain_text', text: 'Connected accounts (admin)' } }];
  if (grants.length === 0) {
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: 'Nobody has connected a per-person server yet.' } });
    return blocks;
  }
  const byServer = new Map<string, GrantLine[]>();
  for (const grant of grants) byServer.set(grant.server, [...(byServer.get(grant.server) ?? []), grant]);
  for (const [server, lines] of byServer) {
    const people = lines.map((line) => `<@${line.userId}> (since ${day(line.connectedAt)}, used ${day(line.lastUsedAt)})`).join(', ');
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: `*${escapeMrkdwn(serverTitle(server))}* — ${lines.length} ${lines.length === 1 ? 'person' : 'people'}: ${people}`.slice(0, 3000) } });
  }
  return blocks;
}

export interface DisconnectDependencies {
  /** Forgets the grant and closes the person's connection (PersonalServers.disconnect). */
  disconnect(as: { teamId: string; userId: string }, server: string): Promise<boolean>;
  /** Publishes the Home tab again so the button goes. */
  refreshHome?(teamId: string, userId: string): Promise<void>;
  logger: { info(message: string, fields?: Record<string, unknown>): void; warn(message: string, fields?: Record<string, unknown>): void };
}

/** Disconnect on the Home tab: only ever the clicking person's own grant (the button's value names just the server). */
export function registerDisconnectAction(
  app: { action(actionId: string, listener: (args: { ack(): Promise<void>; action: unknown; body: any }) => Promise<void>): unknown },
  deps: DisconnectDependencies,
): void {
  app.action(DISCONNECT_ACTION_ID, async ({ ack, action, body }) => {
    await ack();
    const server = (action as { value?: string }).value;
    const userId: string | undefined = body?.user?.id;
    const teamId: string = body?.user?.team_id ?? body?.team?.id ?? '';
    if (!server || !userId) return;
    try {
      const removed = await deps.disconnect({ teamId, userId }, server);
      deps.logger.info('person disconnected a per-person server', { server, userId, removed });
      await deps.refreshHome?.(teamId, userId);
    } catch (error) {
      deps.logger.warn('could not disconnect', { server, userId, error });
    }
  });
}
