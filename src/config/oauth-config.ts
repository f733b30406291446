/**
 * Per-person sign-in's settings (DESIGN.md § Per-person sign-in): PUBLIC_URL, where people's browsers come back to
 * after signing in (`${PUBLIC_URL}/oauth/callback`, served on PORT), and TOKEN_ENCRYPTION_KEY, which encrypts their
 * tokens at rest. Both are optional for the bot as a whole and required as soon as one MCP server says
 * `"auth": "oauth"` — checked at start by checkOauthConfig, one line per problem.
 */
export interface SignInSettings {
  /** Without a trailing slash. */
  publicUrl?: string;
  /** As written (64 hex digits or base64); decoded by the token store. */
  tokenKey?: string;
  /** The key before the last rotation, still read (store/token-cipher.ts). */
  previousTokenKey?: string;
}

export const OAUTH_CALLBACK_PATH = '/oauth/callback';

/** The redirect URI every per-person server's sign-in comes back to. */
export function oauthCallbackUrl(publicUrl: string): string {
  return `${publicUrl.replace(/\/+$/, '')}${OAUTH_CALLBACK_PATH}`;
}

/**
 * Problems that stop start-up (one sentence each), given the servers of mcp.json. Shaped structurally so config/
 * needs nothing from mcp/: pass `loadMcpConfig(…).config`.
 */
export function checkOauthConfig(
  config: { signIn: SignInSettings },
  mcpConfig: { servers: ReadonlyArray<{ name: string; auth?: { kind: 'oauth' } }> },
): string[] {
  const servers = mcpConfig.servers.filter((server) => server.auth?.kind === 'oauth').map((server) => `"${server.name}"`);
  if (servers.length === 0) return [];
  const which = `${servers.length === 1 ? 'server' : 'servers'} ${servers.join(', ')} ${servers.length === 1 ? 'uses' : 'use'} "auth": "oauth"`;
  const problems: string[] = [];
  if (!config.signIn.tokenKey) {
    problems.push(
      `TOKEN_ENCRYPTION_KEY is missing: MCP ${which}, and people's tokens are only kept encrypted; set it to 32 random bytes (openssl rand -hex 32) and keep it safe — losing it means everyone connects again`,
    );
  }
  if (!config.signIn.publicUrl) {
    problems.push(
      `PUBLIC_URL is missing: MCP ${which}, and sign-in must come back to ${OAUTH_CALLBACK_PATH} on PORT; set it to the bot's public base URL, e.g. https://threadwise.example.com`,
    );
  }
  return problems;
}
