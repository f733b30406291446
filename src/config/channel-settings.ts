/**
 * What a channel may change of threadwise's behaviour, validated, and how its overrides meet the workspace defaults
 * (the environment). A channel stores only the fields it changed; everything else follows the environment, so an
 * operator's new default reaches every channel that did not choose otherwise.
 */
import { z } from 'zod';
import type { Config } from './load-config';

export type AnswerVisibility = 'thread' | 'thread_and_channel';

export interface ChannelSettings {
  /** Added to the system prompt for this channel ("" = none). */
  extraInstructions: string;
  model: string;
  /** Skills offered in this channel; undefined = every skill in the library. */
  skills?: string[];
  /** MCP servers whose tools are offered in this channel; undefined = every configured server. */
  mcpServers?: string[];
  /** Follow-ups in a thread that began with a mention need no mention. */
  replyWithoutMention: boolean;
  /** First N KB of each suitable file in the prompt; 0 = off. */
  preloadKb: number;
  maxImagesPerTurn: number;
  /** In the thread only, or also sent to the channel when the answer is short. */
  answerVisibility: AnswerVisibility;
}

export type SettingName = keyof ChannelSettings;

export interface EffectiveChannelSettings extends ChannelSettings {
  /** The settings this channel chose itself (the rest are the workspace defaults), in a stable order. */
  overridden: SettingName[];
}

/** How each setting is named to people (the modal's labels, the channel note, the prompt's `<context>`). */
export const SETTING_LABELS: Record<SettingName, string> = {
  extraInstructions: 'extra instructions',
  model: 'model',
  skills: 'skills offered',
  mcpServers: 'MCP servers offered',
  replyWithoutMention: 'reply without mention',
  preloadKb: 'preload KB',
  maxImagesPerTurn: 'max images per turn',
  answerVisibility: 'answer visibility',
};

export const MAX_EXTRA_INSTRUCTIONS_CHARS = 4_000;

export interface SettingsChoices {
  /** Operator-approved models (ALLOWED_MODELS). */
  models: readonly string[];
  /** Skill names in the library. */
  skills: readonly string[];
  /** Configured MCP server names. */
  mcpServers: readonly string[];
}

const names = (what: string, known: readonly string[]) =>
  z.array(z.string().trim().min(1), { error: `${what} must be a list of names.` }).superRefine((list, ctx) => {
    const unknown = list.filter((name) => !known.includes(name));
    if (unknown.length > 0) {
      ctx.addIssue({
        code: 'custom',
        message: `${unknown.map((name) => `"${name}"`).join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not among the ${what} (${known.join(', ') || 'none configured'}).`,
      });
    }
  });

const wholeNumber = (label: string, min: number, max: number) =>
  z.number({ error: `${label} must be a whole number from ${min} to ${max}.` }).int(`${label} must be a whole number from ${min} to ${max}.`).min(min, `${label} must be at least ${min}.`).max(max, `${label} must be at most ${max}.`);

/** The overrides a channel may store, each optional; every message is a sentence a person can act on. */
export function channelSettingsSchema(choices: SettingsChoices) {
  return z
    .object({
      extraInstructions: z
        .string({ error: 'Extra instructions must be text.' })
        .max(MAX_EXTRA_INSTRUCTIONS_CHARS, `Extra instructions can be at most ${MAX_EXTRA_INSTRUCTIONS_CHARS.toLocaleString('en')} characters.`),
      model: z.string({ error: 'Choose a model.' }).refine((model) => choices.models.includes(model), {
        message: `That model is not approved here; choose one of ${choices.models.join(', ')}.`,
      }),
      skills: names('skills', choices.skills),
      mcpServers: names('MCP servers', choices.mcpServers),
      replyWithoutMention: z.boolean({ error: 'Reply without mention must be on or off.' }),
      preloadKb: wholeNumber('Preload KB', 0, 1024),
      maxImagesPerTurn: wholeNumber('Max images per turn', 0, 20),
      answerVisibility: z.enum(['thread', 'thread_and_channel'], { error: 'Answer visibility must be "in the thread" or "thread and channel".' }),
    })
    .partial()
    .strict();
}

export type ChannelSettingsOverrides = z.infer<ReturnType<typeof channelSettingsSchema>>;

/** The workspace defaults, from the environment. */
export function defaultChannelSettings(config: Pick<Config, 'model' | 'slack' | 'files'>): ChannelSettings {
  return {
    extraInstructions: '',
    model: config.model.name,
    replyWithoutMention: config.slack.replyWithoutMention,
    preloadKb: config.files.preloadKb,
    maxImagesPerTurn: config.files.maxImagesPerTurn,
    answerVisibility: 'thread',
  };
}

/**
 * Stored overrides on top of the defaults. What was stored is read leniently: a field that no longer validates (a
 * model the operator since removed, a skill deleted) falls back to the default instead of breaking the channel.
 */
export function effectiveChannelSettings(defaults: ChannelSettings, stored: Record<string, unknown>, choices: SettingsChoices): EffectiveChannelSettings {
  const shape = channelSettingsSchema(choices).shape;
  const settings: ChannelSettings = { ...defaults };
  const overridden: SettingName[] = [];
  for (const name of Object.keys(SETTING_LABELS) as SettingName[]) {
    if (stored[name] === undefined) continue;
    const parsed = shape[name].safeParse(stored[name]);
    if (!parsed.success || parsed.data === undefined) continue;
    (settings as unknown as Record<string, unknown>)[name] = parsed.data;
    overridden.push(name);
  }
  return { ...settings, overridden };
}

/** One sentence per bad field, by field: what a form shows next to each input. */
export function validateChannelSettings(
  input: Record<string, unknown>,
  choices: SettingsChoices,
): { ok: true; overrides: ChannelSettingsOverrides } | { ok: false; errors: Partial<Record<SettingName | 'form', string>> } {
  const parsed = channelSettingsSchema(choices).safeParse(input);
  if (parsed.success) return { ok: true, overrides: parsed.data };
  const errors: Partial<Record<SettingName | 'form', string>> = {};
  for (const issue of parsed.error.issues) {
    const field = issue.path[0];
    const key = typeof field === 'string' && field in SETTING_LABELS ? (field as SettingName) : 'form';
    const message = issue.code === 'unrecognized_keys' ? `Unknown settings: ${issue.keys.join(', ')}.` : issue.message;
    errors[key] ??= message;
  }
  return { ok: false, errors };
}
