/**
 * What people see of per-person sign-in in Slack: the private Connect prompt (a link button, to that person only),
 * their connected accounts on the Home tab with Disconnect (which only ever removes the clicker's own grant), and the
 * admins' list of who connected what — without a token anywhere.
 */
import { describe, expect, it } from 'vitest';
import { connectPromptBlocks, createConnectPrompter, serverTitle } from '../../src/slack/connect-prompt';
import { connectedAccountsBlocks, DISCONNECT_ACTION_ID, grantsAdminBlocks, registerDisconnectAction } from '../../src/slack/oauth-home';
import { silentLogger } from '../../src/logging/logger';

const URL_ = 'https://auth.example/authorize?client_id=c1&state=s1&code_challenge=x&code_challenge_method=S256';

describe('the Connect prompt', () => {
  it('says what it needs and links the sign-in on a "Connect <Server>" button', () => {
    const message = connectPromptBlocks({ server: 'jira', authorizationUrl: URL_ });
    expect(message.text).toBe('To use Jira I need you to connect your account.');
    const actions = message.blocks.find((block) => (block as { type: string }).type === 'actions') as { elements: Array<Record<string, unknown>> };
    expect(actions.elements[0]).toMatchObject({ type: 'button', text: { type: 'plain_text', text: 'Connect Jira' }, url: URL_, action_id: 'oauth_connect' });
    expect(JSON.stringify(message.blocks)).toContain('Only you can see this');
    expect(serverTitle('github-enterprise')).toBe('Github enterprise');
  });

  it('is posted privately, in the thread, to the person whose account is needed', async () => {
    const posted: unknown[] = [];
    const prompt = createConnectPrompter({ chat: { postEphemeral: async (args) => void posted.push(args) } });
    await prompt({ channelId: 'C1', threadTs: '1.2' }, { server: 'jira', teamId: 'T1', userId: 'U0ANA', authorizationUrl: URL_, requestId: 7 });
    expect(posted).toEqual([expect.objectContaining({ channel: 'C1', user: 'U0ANA', thread_ts: '1.2', text: 'To use Jira I need you to connect your account.' })]);
  });
});

describe('the Home tab', () => {
  const at = new Date('2026-03-01T10:00:00Z');
  it('lists the person\u2019s connected servers with Disconnect, and the ones not connected', () => {
    const blocks = connectedAccountsBlocks([{ server: 'jira', connectedAt: at, lastUsedAt: at }], ['jira', 'notion']);
    const section = blocks.find((block) => (block as { accessory?: unknown }).accessory) as { text: { text: string }; accessory: Record<string, unknown> };
    expect(section.text.text).toContain('*Jira* — connected 2026-03-01');
    expect(section.accessory).toMatchObject({ action_id: DISCONNECT_ACTION_ID, value: 'jira', text: { text: 'Disconnect' } });
    expect(JSON.stringify(blocks)).toContain('Not connected: Notion');
    expect(connectedAccountsBlocks([], [])).toEqual([]);
  });

  it('shows admins who connected which server, never a token', () => {
    const blocks = grantsAdminBlocks([
      { userId: 'U0ANA', server: 'jira', connectedAt: at, lastUsedAt: at },
      { userId: 'U0BEN', server: 'jira', connectedAt: at, lastUsedAt: at },
    ]);
    expect(JSON.stringify(blocks)).toContain('*Jira* — 2 people: <@U0ANA>');
    expect(grantsAdminBlocks([])).toHaveLength(2);
  });

  it('Disconnect removes only the clicking person\u2019s grant for the server on the button', async () => {
    const handlers = new Map<string, (args: { ack(): Promise<void>; action: unknown; body: any }) => Promise<void>>();
    const removed: unknown[] = [];
    const refreshed: string[] = [];
    registerDisconnectAction({ action: (id, listener) => handlers.set(id, listener) }, {
      disconnect: async (as, server) => {
        removed.push({ ...as, server });
        return true;
      },
      refreshHome: async (_team, user) => void refreshed.push(user),
      logger: silentLogger,
    });
    let acked = 0;
    await handlers.get(DISCONNECT_ACTION_ID)!({ ack: async () => void acked++, action: { value: 'jira' }, body: { user: { id: 'U0BEN', team_id: 'T1' } } });
    expect(acked).toBe(1);
    expect(removed).toEqual([{ teamId: 'T1', userId: 'U0BEN', server: 'jira' }]);
    expect(refreshed).toEqual(['U0BEN']);
  });
});
