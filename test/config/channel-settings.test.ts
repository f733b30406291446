import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { validateChannelSettings, type SettingsChoices } from '../../src/config/channel-settings';

const choices: SettingsChoices = { models: ['gpt-4o-mini', 'gpt-4o'], skills: ['jira', 'notion', 'slack'], mcpServers: ['jira'] };

describe('channel settings validation', () => {
  it('accepts any subset of the settings', () => {
    expect(validateChannelSettings({ preloadKb: 0, model: 'gpt-4o', skills: ['jira'], answerVisibility: 'thread_and_channel' }, choices)).toEqual({
      ok: true,
      overrides: { preloadKb: 0, model: 'gpt-4o', skills: ['jira'], answerVisibility: 'thread_and_channel' },
    });
    expect(validateChannelSettings({}, choices)).toEqual({ ok: true, overrides: {} });
  });

  it('gives one sentence per bad field, naming what would be accepted', () => {
    const result = validateChannelSettings(
      { preloadKb: -1, maxImagesPerTurn: 2.5, model: 'gpt-3', skills: ['jira', 'confluence'], extraInstructions: 'x'.repeat(4_001), colour: 'red' },
      choices,
    );
    expect(result).toEqual({
      ok: false,
      errors: {
        preloadKb: 'Preload KB must be at least 0.',
        maxImagesPerTurn: 'Max images per turn must be a whole number from 0 to 20.',
        model: 'That model is not approved here; choose one of gpt-4o-mini, gpt-4o.',
        skills: '"confluence" is not among the skills (jira, notion, slack).',
        extraInstructions: 'Extra instructions can be at most 4,000 characters.',
        form: 'Unknown settings: colour.',
      },
    });
  });
});

describe('ALLOWED_MODELS', () => {
  const base = { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's', OPENAI_API_KEY: 'k' };
  it('defaults to just OPENAI_MODEL, and always includes it', () => {
    const plain = loadConfig({ ...base, OPENAI_MODEL: 'gpt-4o-mini' });
    expect(plain.ok && plain.config.model.allowedModels).toEqual(['gpt-4o-mini']);
    const listed = loadConfig({ ...base, OPENAI_MODEL: 'gpt-4o-mini', ALLOWED_MODELS: 'gpt-4o, o3-mini ,gpt-4o-mini' });
    expect(listed.ok && listed.config.model.allowedModels).toEqual(['gpt-4o-mini', 'gpt-4o', 'o3-mini']);
  });
});
