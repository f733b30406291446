import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';

const minimal = { SLACK_BOT_TOKEN: 'xoxb-123-abc', SLACK_SIGNING_SECRET: 'secret', OPENAI_API_KEY: 'sk-test' };

describe('loadConfig', () => {
  it('fills in the documented defaults', () => {
    const result = loadConfig(minimal);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.config.slack).toMatchObject({ mode: 'http', port: 3000, apiUrl: 'https://slack.com/api/', replyWithoutMention: true });
    expect(result.config.storage).toEqual({ databaseUrl: undefined, dataDir: './data', databaseWaitMs: 60_000 });
    expect(result.config.retentionDays).toBe(90);
    expect(result.config.logMessageText).toBe(false);
    expect(result.config.slack.allowDirectMessages).toBe(true);
    expect(result.config.skillsDir).toBe('./skills');
    expect(result.config.files.preloadKb).toBe(8);
    expect(result.config.agent.maxIterations).toBe(10);
    expect(result.config.model.strategy).toBe('auto');
  });

  it('switches to Socket Mode when an app token is set, and then needs no signing secret', () => {
    const result = loadConfig({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1-abc', OPENAI_API_KEY: 'k' });
    expect(result.ok && result.config.slack.mode).toBe('socket');
  });

  it('needs no API key for a keyless OpenAI-compatible server', () => {
    const result = loadConfig({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's', OPENAI_BASE_URL: 'http://localhost:11434/v1' });
    expect(result.ok).toBe(true);
  });

  it('reports every problem at once, one line each, naming the variable and the fix', () => {
    const result = loadConfig({ SLACK_BOT_TOKEN: 'xoxp-user-token', PORT: 'eighty', REPLY_WITHOUT_MENTION: 'maybe', DATABASE_URL: 'not a url' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toEqual([
      expect.stringMatching(/^SLACK_BOT_TOKEN must be a bot token starting with "xoxb-"/),
      expect.stringMatching(/^PORT must be a whole number/),
      expect.stringMatching(/^DATABASE_URL is not a valid URL .*unset it for the embedded database/),
      expect.stringMatching(/^REPLY_WITHOUT_MENTION must be true or false/),
      expect.stringMatching(/^SLACK_SIGNING_SECRET is missing: .*or set SLACK_APP_TOKEN/),
      expect.stringMatching(/^OPENAI_API_KEY is missing/),
    ]);
    for (const problem of result.problems) expect(problem).not.toMatch(/\n/);
  });

  it('reads the MCP and approval settings, with their defaults', () => {
    const defaults = loadConfig(minimal);
    expect(defaults.ok && defaults.config.mcpConfigPath).toBeUndefined();
    expect(defaults.ok && defaults.config.approval).toEqual({ adminUsers: [], timeoutMs: 60 * 60_000 });

    const set = loadConfig({ ...minimal, MCP_CONFIG: ' ./config/mcp.json ', ADMIN_USERS: 'U0123ABCD, W9ZZZ', APPROVAL_TIMEOUT_MINUTES: '15' });
    expect(set.ok).toBe(true);
    if (!set.ok) return;
    expect(set.config.mcpConfigPath).toBe('./config/mcp.json');
    expect(set.config.approval).toEqual({ adminUsers: ['U0123ABCD', 'W9ZZZ'], timeoutMs: 15 * 60_000 });
  });

  it('refuses admin users that are not Slack user ids, and approval timeouts out of range, naming the variable', () => {
    const result = loadConfig({ ...minimal, ADMIN_USERS: 'U0123ABCD,@alice,c0123abc', APPROVAL_TIMEOUT_MINUTES: '0' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toEqual([
      expect.stringMatching(/^ADMIN_USERS must be Slack user ids separated by commas, like U0123ABCD \(got "@alice", "c0123abc"\)/),
      'APPROVAL_TIMEOUT_MINUTES must be a whole number from 1 to 10080 (got "0")',
    ]);
  });

  it('reads SETTINGS_EDITORS (members by default, or admins) and refuses anything else with a sentence', () => {
    const byDefault = loadConfig(minimal);
    expect(byDefault.ok && byDefault.config.slack.settingsEditors).toBe('members');
    const admins = loadConfig({ ...minimal, SETTINGS_EDITORS: 'admins' });
    expect(admins.ok && admins.config.slack.settingsEditors).toBe('admins');
    const wrong = loadConfig({ ...minimal, SETTINGS_EDITORS: 'everyone' });
    expect(wrong.ok).toBe(false);
    if (!wrong.ok) expect(wrong.problems).toEqual([expect.stringMatching(/^SETTINGS_EDITORS must be members \(anyone in the channel\) or admins/)]);
  });
});
