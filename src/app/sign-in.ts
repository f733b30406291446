/**
 * Per-person sign-in, wired (DESIGN.md § Per-person sign-in; docs/mcp.md § Per-person sign-in): the MCP servers with
 * `"auth": "oauth"` (mcp/oauth/person-servers.ts) over the database (grants and sign-ins, sealed with
 * TOKEN_ENCRYPTION_KEY), what a run needs to park for a sign-in, the OAuth callback served on PORT, and what App Home,
 * housekeeping and "a person left" need. Built only when some server says `"auth": "oauth"` and the settings it needs
 * are there (the bot refuses to start without them: checkOauthConfig in index.ts).
 */
import { decodeTokenKey } from '../config/schema';
import { checkOauthConfig, OAUTH_CALLBACK_PATH, oauthCallbackUrl, type SignInSettings } from '../config/oauth-config';
import type { Logger } from '../logging/logger';
import type { McpConfig, PersonalServers } from '../mcp';
import type { SignInLedger } from '../runs/park-for-sign-in';
import { createOAuthCallback, type CallbackResponse, type OAuthCallbackQuery } from '../slack/oauth-callback';
import type { PageHandler } from '../slack/receiver/threaded-http-receiver';
import type { Database } from '../store/database';
import { createOAuthStore, forgetPersonGrants, sweepGrants } from '../store/grant-store';
import { completedSignInsOf, completeSignIn, consumeSignIn, declineSignIn, expireSignIns, parkRunForSignIn } from '../store/sign-in-store';
import { createTokenCipher } from '../store/token-cipher';

export interface SignInParts {
  personal: PersonalServers;
  /** The names of the per-person servers, in mcp.json's order. */
  serverNames: string[];
  /** The run's durable side of parking for a sign-in. */
  ledger: SignInLedger & {
    /** Sign-ins the run waited for that are done (for its record when it carries on). */
    completed(runId: number): ReturnType<typeof completedSignInsOf>;
  };
  /** GET /oauth/callback: the page the person's browser gets. `onRunResumable` is bound later (the worker exists after the receiver). */
  callback(query: OAuthCallbackQuery): Promise<CallbackResponse>;
  /** Sign-ins nobody finished in time (housekeeping, beside the approval expiry). */
  expire(): ReturnType<typeof expireSignIns>;
  /** Retention: grants unused for `days`, finished sign-ins older than a day. */
  sweep(days: number): ReturnType<typeof sweepGrants>;
  /** The person left the workspace. */
  forgetPerson(teamId: string, userId: string): ReturnType<typeof forgetPersonGrants>;
  grantsOf(teamId: string, userId: string): ReturnType<ReturnType<typeof createOAuthStore>['grantsOf']>;
  allGrants(teamId?: string): ReturnType<ReturnType<typeof createOAuthStore>['allGrants']>;
  /** The worker should look for work now (set once the worker exists). */
  onRunResumable: { current: () => void };
}

/**
 * The per-person servers and everything around them; undefined when no server uses `"auth": "oauth"`, or (the
 * terminal, which does not check at start) when PUBLIC_URL or TOKEN_ENCRYPTION_KEY is missing — then those servers
 * are left out, with a warning.
 */
export async function openSignIn(
  settings: SignInSettings,
  mcpConfig: McpConfig,
  db: Database,
  logger: Logger,
  options: { connectTimeoutMs?: number } = {},
): Promise<SignInParts | undefined> {
  if (!mcpConfig.servers.some((server) => server.auth?.kind === 'oauth')) return undefined;
  const problems = checkOauthConfig({ signIn: settings }, mcpConfig);
  const current = settings.tokenKey ? decodeTokenKey(settings.tokenKey) : undefined;
  if (problems.length > 0 || !current || !settings.publicUrl) {
    logger.warn('the MCP servers with "auth": "oauth" are left out', { problems });
    return undefined;
  }
  const previous = settings.previousTokenKey ? decodeTokenKey(settings.previousTokenKey) : undefined;
  const cipher = createTokenCipher({ current, ...(previous ? { previous } : {}) });
  const store = createOAuthStore(db, cipher);
  const personalLogger = logger.child({ component: 'mcp-oauth' });
  const { createPersonalServers } = await import('../mcp/oauth/person-servers');
  const personal = await createPersonalServers(mcpConfig, {
    store,
    redirectUrl: oauthCallbackUrl(settings.publicUrl),
    logger: personalLogger,
    ...(options.connectTimeoutMs ? { connectTimeoutMs: options.connectTimeoutMs } : {}),
  });
  const onRunResumable = { current: () => {} };
  const callback = createOAuthCallback({
    servers: personal.servers,
    consume: (state) => consumeSignIn(db, cipher, state),
    decline: (state) => declineSignIn(db, state),
    exchange: (server, key, code, codeVerifier) => personal.finishSignIn(server, key, code, codeVerifier),
    complete: (signIn) => completeSignIn(db, signIn),
    onRunResumable: () => onRunResumable.current(),
    logger: personalLogger,
  });
  return {
    personal,
    serverNames: personal.servers.map((server) => server.name),
    ledger: {
      parkForSignIn: (request) => parkRunForSignIn(db, request),
      completed: (runId) => completedSignInsOf(db, runId),
    },
    callback,
    expire: () => expireSignIns(db),
    sweep: (days) => sweepGrants(db, days),
    forgetPerson: (teamId, userId) => forgetPersonGrants(db, teamId, userId),
    grantsOf: (teamId, userId) => store.grantsOf(teamId, userId),
    allGrants: (teamId) => store.allGrants(teamId),
    onRunResumable,
  };
}

/** The headers of every callback page: never cached, and the link's state never sent on as a referrer. */
const CALLBACK_PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
} as const;

/** GET /oauth/callback on PORT (the HTTP receiver, or the health server in Socket Mode); none without sign-in. */
export function callbackPages(signIn: SignInParts | undefined): Record<string, PageHandler> | undefined {
  if (!signIn) return undefined;
  return {
    [OAUTH_CALLBACK_PATH]: async (query) => {
      const page = await signIn.callback({ code: query.get('code'), state: query.get('state'), error: query.get('error') });
      return { status: page.status, headers: { ...CALLBACK_PAGE_HEADERS }, body: page.html };
    },
  };
}
