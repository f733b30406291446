/**
 * `"auth": "oauth"` in mcp.json, PUBLIC_URL and TOKEN_ENCRYPTION_KEY: what is accepted, and the one sentence each
 * mistake gets (oauth on a stdio server, oauth with shared headers, a missing key or URL once a server needs them).
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config';
import { checkOauthConfig, oauthCallbackUrl } from '../../../src/config/oauth-config';
import { decodeTokenKey } from '../../../src/config/schema';
import { parseMcpConfig } from '../../../src/mcp';

const parse = (servers: Record<string, unknown>, env: Record<string, string | undefined> = {}) => parseMcpConfig(JSON.stringify({ mcpServers: servers }), env, 'mcp.json');
const base = { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's', OPENAI_API_KEY: 'k' };
const HEX_KEY = 'a'.repeat(64);

describe('mcp.json "auth": "oauth"', () => {
  it('reads an HTTP server with oauth, a pre-registered client (its secret kept from logs) and scopes', () => {
    const result = parse(
      { jira: { url: 'https://mcp.atlassian.example/v1/mcp', auth: 'oauth', clientId: 'tw-client', clientSecret: '${JIRA_CLIENT_SECRET}', scopes: ['read:jira-work'] }, plain: { url: 'https://x.example/mcp' } },
      { JIRA_CLIENT_SECRET: 'jira-client-secret-123' },
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.config.servers[0]!.auth).toEqual({ kind: 'oauth', clientId: 'tw-client', clientSecret: 'jira-client-secret-123', scopes: ['read:jira-work'] });
    expect(result.config.servers[1]!.auth).toBeUndefined();
    expect(result.config.secrets).toContain('jira-client-secret-123');
  });

  it('refuses oauth on a stdio server, oauth with headers, and client settings without oauth — one sentence each', () => {
    const result = parse({
      local: { command: 'npx', args: ['srv'], auth: 'oauth' },
      mixed: { url: 'https://x.example/mcp', auth: 'oauth', headers: { Authorization: 'Bearer abc' } },
      stray: { url: 'https://y.example/mcp', clientId: 'c1' },
      orphan: { url: 'https://z.example/mcp', auth: 'oauth', clientSecret: 's3cr3t-value' },
      wrong: { url: 'https://w.example/mcp', auth: 'basic' },
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toHaveLength(5);
    expect(result.problems[0]).toMatch(/^mcp.json: server "local": "auth": "oauth" needs an HTTP server \("url"\)/);
    expect(result.problems[1]).toMatch(/^mcp.json: server "mixed": has both "auth": "oauth" and "headers"/);
    expect(result.problems[2]).toBe('mcp.json: server "stray": "clientId" applies only with "auth": "oauth"; add it for per-person sign-in, or remove it');
    expect(result.problems[3]).toMatch(/"clientSecret" needs "clientId"/);
    expect(result.problems[4]).toMatch(/"auth" must be "oauth"/);
    expect(result.problems.join('\n')).not.toContain('s3cr3t-value');
  });
});

describe('PUBLIC_URL and TOKEN_ENCRYPTION_KEY', () => {
  it('accept https, http on localhost, and 32-byte keys as hex or base64', () => {
    const loaded = loadConfig({ ...base, PUBLIC_URL: 'https://bot.example.com/', TOKEN_ENCRYPTION_KEY: HEX_KEY, TOKEN_ENCRYPTION_KEY_PREVIOUS: Buffer.alloc(32, 7).toString('base64') });
    expect(loaded.ok && loaded.config.signIn).toEqual({ publicUrl: 'https://bot.example.com', tokenKey: HEX_KEY, previousTokenKey: Buffer.alloc(32, 7).toString('base64') });
    expect(loadConfig({ ...base, PUBLIC_URL: 'http://localhost:3000' }).ok).toBe(true);
    expect(oauthCallbackUrl('https://bot.example.com')).toBe('https://bot.example.com/oauth/callback');
    expect(decodeTokenKey(HEX_KEY)).toHaveLength(32);
    expect(decodeTokenKey(Buffer.alloc(32, 1).toString('base64url'))).toHaveLength(32);
  });

  it('refuse plain http elsewhere and a key of the wrong size, without echoing the key', () => {
    const loaded = loadConfig({ ...base, PUBLIC_URL: 'http://bot.example.com', TOKEN_ENCRYPTION_KEY: 'too-short-secret-key-material' });
    expect(loaded.ok).toBe(false);
    if (loaded.ok) return;
    expect(loaded.problems).toEqual([
      'PUBLIC_URL must start with https:// (got "http://bot.example.com"): sign-in codes travel through it; http:// is allowed only for localhost',
      'TOKEN_ENCRYPTION_KEY must be 32 random bytes as 64 hex digits or base64 (it is not; its value is not shown); generate one with `openssl rand -hex 32`',
    ]);
  });

  it('stop start-up with one line each when a server uses oauth and the key or the URL is missing', () => {
    const mcp = { servers: [{ name: 'jira', auth: { kind: 'oauth' as const } }, { name: 'plain' }] };
    expect(checkOauthConfig({ signIn: {} }, { servers: [{ name: 'plain' }] })).toEqual([]);
    expect(checkOauthConfig({ signIn: { publicUrl: 'https://b.example', tokenKey: HEX_KEY } }, mcp)).toEqual([]);
    const problems = checkOauthConfig({ signIn: {} }, mcp);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^TOKEN_ENCRYPTION_KEY is missing: MCP server "jira" uses "auth": "oauth"/);
    expect(problems[1]).toMatch(/^PUBLIC_URL is missing: MCP server "jira" uses "auth": "oauth", and sign-in must come back to \/oauth\/callback on PORT/);
    for (const problem of problems) expect(problem).not.toContain('\n');
  });
});
