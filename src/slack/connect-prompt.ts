/**
 * The private Connect prompt: "To use Jira I need you to connect your account" with a **Connect Jira** link button,
 * shown with chat.postEphemeral in the thread to the person whose account is needed — nobody else sees the link
 * (it carries their single-use sign-in state). The blocks are a pure function of the prompt.
 */
import type { SignInPrompt } from '../core/sign-in';
import { escapeMrkdwn } from './format/escape-mrkdwn';

const CONNECT_ACTION_ID = 'oauth_connect';

/** "jira" → "Jira"; "github-enterprise" → "Github enterprise": the name as people say it, from mcp.json's key. */
export function serverTitle(server: string): string {
  const words = server.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export interface ConnectPromptMessage {
  text: string;
  blocks: unknown[];
}

export function connectPromptBlocks(prompt: Pick<SignInPrompt, 'server' | 'authorizationUrl'>, options: { minutes?: number } = {}): ConnectPromptMessage {
  const title = serverTitle(prompt.server);
  const minutes = options.minutes ?? 10;
  const text = `To use ${title} I need you to connect your account.`;
  return {
    text,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: `:key: To use *${escapeMrkdwn(title)}* I need you to connect your account.` } },
      {
        type: 'actions',
        elements: [
          {
            type: 'button',
            action_id: CONNECT_ACTION_ID,
            style: 'primary',
            text: { type: 'plain_text', text: `Connect ${title}`.slice(0, 75) },
            url: prompt.authorizationUrl,
          },
        ],
      },
      {
        type: 'context',
        elements: [
          {
            type: 'mrkdwn',
            text: `Only you can see this. You sign in on ${escapeMrkdwn(title)}'s own page; the link works once, for ${minutes} minutes, and the answer continues here once you are connected. Disconnect any time from my Home tab.`,
          },
        ],
      },
    ],
  };
}

export interface EphemeralPoster {
  chat: { postEphemeral(args: { channel: string; user: string; thread_ts?: string; text: string; blocks?: never }): Promise<unknown> };
}

/** The SignInPrompter of runs/park-for-sign-in.ts, over a Web API client. */
export function createConnectPrompter(client: EphemeralPoster) {
  return async (target: { channelId: string; threadTs: string }, prompt: SignInPrompt): Promise<void> => {
    const message = connectPromptBlocks(prompt);
    await client.chat.postEphemeral({ channel: target.channelId, user: prompt.userId, thread_ts: target.threadTs, text: message.text, blocks: message.blocks as never });
  };
}

/** Slack sends a block_actions for a link button too: it only needs an ack. */
export function registerConnectButton(app: { action(actionId: string, listener: (args: { ack(): Promise<void> }) => Promise<void>): unknown }): void {
  app.action(CONNECT_ACTION_ID, async ({ ack }) => {
    await ack();
  });
}
