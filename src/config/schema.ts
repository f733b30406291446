/**
 * The environment, validated once at start. Each rule's message is written for the person setting the variable:
 * it names the variable and says how to fix it (DESIGN.md § Contract).
 */
import { z } from 'zod';

const bool = (name: string, fallback: boolean) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value.trim() === '') return fallback;
      const normalised = value.trim().toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(normalised)) return true;
      if (['0', 'false', 'no', 'off'].includes(normalised)) return false;
      ctx.addIssue({ code: 'custom', message: `${name} must be true or false (got "${value}")` });
      return z.NEVER;
    });

const int = (name: string, fallback: number, min: number, max: number) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value.trim() === '') return fallback;
      const parsed = Number(value);
      if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
        ctx.addIssue({ code: 'custom', message: `${name} must be a whole number from ${min} to ${max} (got "${value}")` });
        return z.NEVER;
      }
      return parsed;
    });

const url = (name: string, fallback: string | undefined, hint: string) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      const raw = value?.trim() || fallback;
      if (raw === undefined) return undefined;
      try {
        const parsed = new URL(raw);
        if (!/^https?:$|^postgres(ql)?:$/.test(parsed.protocol)) throw new Error('protocol');
        return raw;
      } catch {
        ctx.addIssue({ code: 'custom', message: `${name} is not a valid URL (got "${raw}"); ${hint}` });
        return z.NEVER;
      }
    });

const list = z
  .string()
  .optional()
  .transform((value) =>
    (value ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean),
  );

// Slack user ids: U… for ordinary users, W… on Enterprise Grid.
const userIds = (name: string) =>
  list.superRefine((ids, ctx) => {
    const bad = ids.filter((id) => !/^[UW][A-Z0-9]{2,}$/.test(id));
    if (bad.length > 0) {
      ctx.addIssue({
        code: 'custom',
        message: `${name} must be Slack user ids separated by commas, like U0123ABCD (got ${bad.map((id) => `"${id}"`).join(', ')}); find an id in the person’s Slack profile → ⋮ → Copy member ID`,
      });
    }
  });

const optionalText = z
  .string()
  .optional()
  .transform((value) => value?.trim() || undefined);

export const environmentSchema = z
  .object({
    SLACK_BOT_TOKEN: z
      .string({ error: 'SLACK_BOT_TOKEN is missing: set it to the bot token (xoxb-…) from your Slack app’s OAuth & Permissions page' })
      .trim()
      .regex(/^xoxb-\S+$/, 'SLACK_BOT_TOKEN must be a bot token starting with "xoxb-" (OAuth & Permissions → Bot User OAuth Token)'),
    SLACK_SIGNING_SECRET: optionalText,
    SLACK_APP_TOKEN: optionalText.refine((value) => value === undefined || value.startsWith('xapp-'), {
      message: 'SLACK_APP_TOKEN must be an app-level token starting with "xapp-" (Basic Information → App-Level Tokens, scope connections:write), or unset for HTTP mode',
    }),
    PORT: int('PORT', 3000, 0, 65535), // 0: any free port
    SLACK_API_URL: url('SLACK_API_URL', 'https://slack.com/api/', 'use e.g. https://slack.com/api/'),
    OPENAI_API_KEY: optionalText,
    OPENAI_BASE_URL: url('OPENAI_BASE_URL', undefined, 'use the endpoint’s base, e.g. http://localhost:11434/v1'),
    OPENAI_MODEL: optionalText,
    // The models a channel may choose in its settings; OPENAI_MODEL (the workspace default) is always one of them.
    ALLOWED_MODELS: list,
    OPENAI_EMBEDDING_MODEL: optionalText,
    OPENAI_VISION: bool('OPENAI_VISION', true),
    AGENT_STRATEGY: z
      .enum(['auto', 'function_calling', 'react'], {
        error: 'AGENT_STRATEGY must be auto, function_calling or react',
      })
      .optional()
      .default('auto'),
    CONTEXT_WINDOW: int('CONTEXT_WINDOW', 0, 0, 10_000_000),
    DATABASE_URL: url('DATABASE_URL', undefined, 'use postgres://user:password@host:5432/database, or unset it for the embedded database'),
    DATA_DIR: z.string().optional().default('./data'),
    SKILLS_DIR: z.string().optional().default('./skills'),
    REPLY_WITHOUT_MENTION: bool('REPLY_WITHOUT_MENTION', true),
    PRELOAD_KB: int('PRELOAD_KB', 8, 0, 1024),
    MAX_FILE_MB: int('MAX_FILE_MB', 50, 1, 1024),
    MAX_IMAGES_PER_TURN: int('MAX_IMAGES_PER_TURN', 4, 0, 20),
    MAX_IMAGE_KB: int('MAX_IMAGE_KB', 1536, 16, 20_480),
    MAX_ITERATIONS: int('MAX_ITERATIONS', 10, 1, 100),
    RUN_TIMEOUT_SECONDS: int('RUN_TIMEOUT_SECONDS', 300, 10, 3600),
    TOOL_TIMEOUT_SECONDS: int('TOOL_TIMEOUT_SECONDS', 60, 1, 900),
    MODEL_TIMEOUT_SECONDS: int('MODEL_TIMEOUT_SECONDS', 120, 5, 900),
    ALLOWED_CHANNELS: list,
    ALLOWED_USERS: list,
    ADMIN_USERS: userIds('ADMIN_USERS'),
    // Who may change a channel's settings besides ADMIN_USERS: the channel's members, or nobody.
    SETTINGS_EDITORS: z
      .enum(['members', 'admins'], { error: 'SETTINGS_EDITORS must be members (anyone in the channel) or admins (ADMIN_USERS only)' })
      .optional()
      .default('members'),
    MCP_CONFIG: optionalText,
    APPROVAL_TIMEOUT_MINUTES: int('APPROVAL_TIMEOUT_MINUTES', 60, 1, 10_080),
    USER_RATE_LIMIT_PER_MINUTE: int('USER_RATE_LIMIT_PER_MINUTE', 10, 0, 10_000),
    SHUTDOWN_GRACE_SECONDS: int('SHUTDOWN_GRACE_SECONDS', 25, 0, 600),
    // How long a replica's claim on a run lasts without a heartbeat (sent every third of it). A crashed replica's
    // answers are taken over after this; too short and a replica stalled by a slow database loses runs it still works on.
    RUN_LEASE_SECONDS: int('RUN_LEASE_SECONDS', 30, 2, 600),
    TIMEZONE: z
      .string()
      .optional()
      .transform((value, ctx) => {
        const zone = value?.trim() || Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
        try {
          new Intl.DateTimeFormat('en', { timeZone: zone });
          return zone;
        } catch {
          ctx.addIssue({ code: 'custom', message: `TIMEZONE "${zone}" is not a known IANA time zone; use e.g. Europe/Berlin or UTC` });
          return z.NEVER;
        }
      }),
    LOG_LEVEL: z
      .enum(['debug', 'info', 'warn', 'error'], { error: 'LOG_LEVEL must be debug, info, warn or error' })
      .optional()
      .default('info'),
  });

/** The variables only the Slack edge reads: a terminal chat or an eval run needs none of them. */
const SLACK_VARIABLES = {
  SLACK_BOT_TOKEN: true,
  SLACK_SIGNING_SECRET: true,
  SLACK_APP_TOKEN: true,
  PORT: true,
  SLACK_API_URL: true,
  REPLY_WITHOUT_MENTION: true,
  ALLOWED_CHANNELS: true,
  ALLOWED_USERS: true,
  USER_RATE_LIMIT_PER_MINUTE: true,
} as const;

/** The environment of threadwise without Slack (`npm run chat`, `npm run eval`): the model, storage, limits. */
export const localEnvironmentSchema = environmentSchema.omit(SLACK_VARIABLES);

/** Rules across variables; checked on the raw environment so they are reported even when another variable is bad. */
export function checkVariableCombinations(env: Record<string, string | undefined>): string[] {
  const problems: string[] = [];
  if (!isSet(env, 'SLACK_APP_TOKEN') && !isSet(env, 'SLACK_SIGNING_SECRET')) {
    problems.push(
      'SLACK_SIGNING_SECRET is missing: set it from your Slack app’s Basic Information page (HTTP mode), or set SLACK_APP_TOKEN to use Socket Mode',
    );
  }
  problems.push(...checkModelVariables(env));
  return problems;
}

/** The model needs a key, or a server of its own that needs none. */
export function checkModelVariables(env: Record<string, string | undefined>): string[] {
  if (isSet(env, 'OPENAI_API_KEY') || isSet(env, 'OPENAI_BASE_URL')) return [];
  return [
    'OPENAI_API_KEY is missing: set your OpenAI API key, or set OPENAI_BASE_URL to an OpenAI-compatible server that needs no key (Ollama, vLLM, llama.cpp)',
  ];
}

const isSet = (env: Record<string, string | undefined>, name: string) => Boolean(env[name]?.trim());

export type Environment = z.output<typeof environmentSchema>;
export type LocalEnvironment = z.output<typeof localEnvironmentSchema>;
