/**
 * GET /oauth/callback (on PORT, under PUBLIC_URL): where a person's browser lands after signing in on a per-person
 * server. The state must be one threadwise issued, unused and under 10 minutes old (a replayed, foreign or stale
 * state is refused with a sentence); it names the person, the server and the parked run. The code is exchanged
 * through the SDK's auth() with the verifier kept for that state, the tokens stored (encrypted) as that person's,
 * and the run made resumable — once, whichever replica got the callback; the worker that claims it carries on.
 */
import type { McpServerConfig } from '../mcp';
import { messageOf } from '../core/errors';
import type { Logger } from '../logging/logger';
import { serverTitle } from './connect-prompt';

interface CallbackSignIn {
  teamId: string;
  userId: string;
  server: string;
  runId: number | null;
}

export interface OAuthCallbackDependencies {
  /** The servers with `"auth": "oauth"`. */
  servers: readonly McpServerConfig[];
  /** Uses the state once (store/sign-in-store.ts consumeSignIn). */
  consume(state: string): Promise<{ ok: true; signIn: CallbackSignIn; codeVerifier: string } | { ok: false; reason: 'unknown' | 'used' | 'expired' }>;
  /** The person said no at the server (declineSignIn). */
  decline(state: string): Promise<{ signIn: CallbackSignIn; runResumable: boolean } | undefined>;
  /** Exchanges the code and stores the tokens (mcp finishSignIn with the store and redirect URL bound). */
  exchange(server: McpServerConfig, key: { teamId: string; userId: string; server: string }, code: string, codeVerifier: string): Promise<void>;
  /** Completes the run's sign-in (completeSignIn): true when the run became resumable. */
  complete(signIn: CallbackSignIn): Promise<boolean>;
  /** Look for work now. */
  onRunResumable(): void;
  logger: Logger;
}

export interface CallbackResponse {
  status: number;
  html: string;
}

export type OAuthCallbackQuery = { code?: string | null; state?: string | null; error?: string | null };

export function createOAuthCallback(deps: OAuthCallbackDependencies): (query: OAuthCallbackQuery) => Promise<CallbackResponse> {
  return async function handleOAuthCallback({ code, state, error }) {
    if (!state) return page(400, 'This sign-in link is incomplete', 'It has no state, so I cannot tell whose sign-in it is. Go back to Slack and use the Connect button I sent you.');
    if (error) {
      const declined = await deps.decline(state);
      if (!declined) return refusal(await deps.consume(state).then((r) => (r.ok ? 'used' : r.reason)));
      deps.logger.info('person declined a sign-in', { server: declined.signIn.server, userId: declined.signIn.userId });
      if (declined.runResumable) deps.onRunResumable();
      const title = serverTitle(declined.signIn.server);
      return page(200, `${title} was not connected`, `${title} said the sign-in did not go through (${error.slice(0, 60)}). You can go back to Slack; I will answer without ${title}.`);
    }
    if (!code) return page(400, 'This sign-in link is incomplete', 'It has no authorization code. Go back to Slack and use the Connect button again.');
    const consumed = await deps.consume(state);
    if (!consumed.ok) return refusal(consumed.reason);
    const { signIn } = consumed;
    const title = serverTitle(signIn.server);
    const server = deps.servers.find((candidate) => candidate.name === signIn.server && candidate.auth?.kind === 'oauth');
    if (!server) return page(410, `${title} is no longer set up`, `threadwise does not use ${title} with personal accounts any more, so there is nothing to connect.`);
    try {
      await deps.exchange(server, { teamId: signIn.teamId, userId: signIn.userId, server: signIn.server }, code, consumed.codeVerifier);
    } catch (failure) {
      // No token or code in the line: the SDK's OAuth errors carry the server's error code and description only.
      deps.logger.warn('a sign-in could not be completed', { server: signIn.server, userId: signIn.userId, reason: messageOf(failure).slice(0, 200) });
      return page(502, `${title} did not accept the sign-in`, `${title} refused to finish the sign-in. Go back to Slack and ask again to get a new Connect button.`);
    }
    deps.logger.info('person connected a per-person server', { server: signIn.server, userId: signIn.userId, runId: signIn.runId });
    if (await deps.complete(signIn)) deps.onRunResumable();
    return page(200, `Connected — you can go back to Slack`, `Your ${title} account is connected.${signIn.runId !== null ? ' The answer continues in the thread.' : ''} You can disconnect it any time from threadwise's Home tab.`);
  };
}

function refusal(reason: 'unknown' | 'used' | 'expired'): CallbackResponse {
  if (reason === 'used') return page(409, 'This sign-in link was already used', 'Each Connect link works once. If you are not connected yet, ask again in Slack for a new one.');
  if (reason === 'expired') return page(410, 'This sign-in link has expired', 'Connect links work for 10 minutes. Ask again in Slack for a new one.');
  return page(400, 'This sign-in link is not one of mine', 'threadwise did not start this sign-in, so it was refused. Use the Connect button I sent you privately in Slack.');
}

function page(status: number, title: string, sentence: string): CallbackResponse {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title><style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#1d1c1d}</style></head><body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(sentence)}</p></body></html>`;
  return { status, html };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
