/**
 * What a channel may change of threadwise's behaviour, validated, and how its overrides meet the workspace defaults
 * (the environment). A channel stores only the fields it changed; everything else follows the environment, so an
 * operator's new default reaches every channel that did not choose otherwise.
 */
import { z } from 'zod';
import type { Config } from './load-config';

type AnswerVisibility = 'thread' | 'thread_and_channel';

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
  /** Offered when someone opens threadwise's agent view from this channel; undefined = the built-in defaults. */
  suggestedPrompts?: SuggestedPrompt[];
  /** Emoji name (without colons) → the request a reaction with it makes, in the reacted message's thread. */
  reactionTriggers: Record<string, string>;
}

export interface SuggestedPrompt {
  title: string;
  message: string;
}

/** What the agent view suggests where a channel chose nothing (Slack shows at most four). */
export const DEFAULT_SUGGESTED_PROMPTS: SuggestedPrompt[] = [
  { title: 'Summarise a document', message: 'Summarise the file I just shared, with page references.' },
  { title: 'Catch me up', message: 'Summarise what this channel decided this week.' },
  { title: 'Draft a Jira ticket', message: 'Turn this thread into a Jira bug ticket.' },
];

const MAX_SUGGESTED_PROMPTS = 4;
const MAX_REACTION_TRIGGERS = 10;

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
  suggestedPrompts: 'suggested prompts',
  reactionTriggers: 'reaction triggers',
};

const MAX_EXTRA_INSTRUCTIONS_CHARS = 4_000;

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
function channelSettingsSchema(choices: SettingsChoices) {
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
      suggestedPrompts: z
        .array(
          z.object({
            title: z.string().trim().min(1, 'Each suggested prompt needs a title.').max(75, 'A suggested prompt’s title can be at most 75 characters.'),
            message: z.string().trim().min(1, 'Each suggested prompt needs a message.').max(1_000, 'A suggested prompt’s message can be at most 1,000 characters.'),
          }),
          { error: 'Suggested prompts must be a list of title and message.' },
        )
        .max(MAX_SUGGESTED_PROMPTS, `At most ${MAX_SUGGESTED_PROMPTS} suggested prompts (Slack shows no more).`),
      reactionTriggers: z
        .record(
          z.string().regex(/^[a-z0-9_+'-]{1,100}$/, 'A reaction trigger’s emoji must be an emoji name such as memo or jira (letters, digits, - _ +).'),
          z.string().trim().min(1, 'Each reaction trigger needs a request.').max(1_000, 'A reaction trigger’s request can be at most 1,000 characters.'),
          { error: 'Reaction triggers must map emoji names to requests.' },
        )
        .refine((map) => Object.keys(map).length <= MAX_REACTION_TRIGGERS, `At most ${MAX_REACTION_TRIGGERS} reaction triggers per channel.`),
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
    reactionTriggers: {},
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

/** A setting's value as people read it: in the channel note, on the home tab and in the prompt's `<context>`. */
export function describeSettingValue(name: SettingName, settings: ChannelSettings): string {
  switch (name) {
    case 'extraInstructions':
      return settings.extraInstructions.trim() ? `"${truncate(settings.extraInstructions.trim(), 80)}"` : 'none';
    case 'model':
      return settings.model;
    case 'skills':
      return settings.skills ? settings.skills.join(', ') || 'none' : 'all';
    case 'mcpServers':
      return settings.mcpServers ? settings.mcpServers.join(', ') || 'none' : 'all';
    case 'replyWithoutMention':
      return settings.replyWithoutMention ? 'on' : 'off';
    case 'preloadKb':
      return settings.preloadKb === 0 ? '0 (off)' : String(settings.preloadKb);
    case 'maxImagesPerTurn':
      return String(settings.maxImagesPerTurn);
    case 'answerVisibility':
      return settings.answerVisibility === 'thread' ? 'in the thread' : 'thread, short answers also to the channel';
    case 'suggestedPrompts':
      return (settings.suggestedPrompts ?? DEFAULT_SUGGESTED_PROMPTS).map((prompt) => prompt.title).join(', ') || 'none';
    case 'reactionTriggers': {
      const entries = Object.entries(settings.reactionTriggers);
      return entries.length ? entries.map(([emoji, request]) => `:${emoji}: → ${truncate(request, 40)}`).join(', ') : 'none';
    }
  }
}

/** "label: value" for every setting the channel chose itself, in a stable order. */
export function describeOverrides(settings: EffectiveChannelSettings): string[] {
  return settings.overridden.map((name) => `${SETTING_LABELS[name]}: ${describeSettingValue(name, settings)}`);
}

function truncate(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}
