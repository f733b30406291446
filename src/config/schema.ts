/**
 * The environment, validated once at start. Each rule's message is written for the person setting the variable:
 * it names the variable and says how to fix it (DESIGN.md § Contract).
 */
import { z } from 'zod';
import { modelPricesVariable } from './model-prices';

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

/** A URL as it may be echoed back: user and password replaced, so a start-up line never prints a credential. */
export function redactUrlCredentials(raw: string): string {
  return raw.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/gi, '$1***@');
}

const url = (name: string, fallback: string | undefined, hint: string, protocols: RegExp = /^https?:$/, suggestPath?: string) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      const raw = value?.trim() || fallback;
      if (raw === undefined) return undefined;
      // "localhost:11434" parses as a URL whose scheme is "localhost": the scheme is what is missing.
      if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) && protocols.test('http:')) {
        const guess = `http://${raw.replace(/^\/+/, '')}`;
        const suggestion = suggestPath ? withPath(guess, suggestPath) : guess;
        ctx.addIssue({
          code: 'custom',
          message: `${name} must start with http:// or https:// (got "${redactUrlCredentials(raw)}"; did you mean ${redactUrlCredentials(suggestion)}?)`,
        });
        return z.NEVER;
      }
      let parsed: URL;
      try {
        parsed = new URL(raw);
      } catch {
        ctx.addIssue({ code: 'custom', message: `${name} is not a valid URL (got "${redactUrlCredentials(raw)}"); ${hint}` });
        return z.NEVER;
      }
      if (!protocols.test(parsed.protocol)) {
        ctx.addIssue({ code: 'custom', message: `${name} cannot use ${parsed.protocol.slice(0, -1)} (got "${redactUrlCredentials(raw)}"); ${hint}` });
        return z.NEVER;
      }
      return raw;
    });

/** `http://host:port` → `http://host:port/v1` when it has no path of its own. */
function withPath(raw: string, suggestedPath: string): string {
  try {
    const parsed = new URL(raw);
    return parsed.pathname === '/' && !raw.endsWith('/') ? `${raw}${suggestedPath}` : raw;
  } catch {
    return raw;
  }
}

/** Tesseract language codes joined by "+", e.g. "eng+chi_sim"; their data ships as @tesseract.js-data/<code>. */
const ocrLanguages = z
  .string()
  .optional()
  .transform((value, ctx) => {
    const raw = value?.trim() || 'eng';
    const codes = raw.split('+').map((code) => code.trim());
    if (codes.some((code) => !/^[a-z]{3}(_[a-z]+)?$/i.test(code))) {
      ctx.addIssue({
        code: 'custom',
        message: `OCR_LANGUAGES must be Tesseract language codes joined by "+", e.g. "eng" or "eng+chi_sim" (got "${value}")`,
      });
      return z.NEVER;
    }
    return [...new Set(codes.map((code) => code.toLowerCase()))];
  });

/** A dollar amount; unset, empty or 0 → no limit (0). */
const dollars = (name: string) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value.trim() === '') return 0;
      const parsed = Number(value.trim().replace(/^\$/, ''));
      if (!Number.isFinite(parsed) || parsed < 0 || parsed > 1_000_000) {
        ctx.addIssue({ code: 'custom', message: `${name} must be an amount in US dollars like 5 or 12.50, or 0 for no limit (got "${value}")` });
        return z.NEVER;
      }
      return parsed;
    });

/** A port that may be unset (the feature is off then). */
const optionalPort = (name: string) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value.trim() === '') return undefined;
      const parsed = Number(value);
      if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65535) {
        ctx.addIssue({ code: 'custom', message: `${name} must be a port number from 0 to 65535, or unset to turn the console off (got "${value}")` });
        return z.NEVER;
      }
      return parsed;
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

/**
 * A comma-separated list of Slack ids. Names are refused at start: a list of names would match nothing, so every
 * message would be refused and the bot would look broken rather than misconfigured.
 */
const idList = (name: string, shape: RegExp, example: string, where: string) =>
  list.transform((items, ctx) => {
    const wrong = items.filter((item) => !shape.test(item));
    if (wrong.length > 0) {
      const shown = wrong
        .slice(0, 3)
        .map((item) => `"${item}"`)
        .join(', ');
      ctx.addIssue({
        code: 'custom',
        message: `${name} has ${shown}, which ${wrong.length === 1 ? 'is not an id' : 'are not ids'}: use ${example} (${where})`,
      });
      return z.NEVER;
    }
    return items;
  });

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

/**
 * PUBLIC_URL: the base of links people open from Slack (the OAuth sign-in's callback). https, except on this machine
 * (http://localhost, 127.0.0.1) for trying it out; no query or fragment; stored without a trailing slash.
 */
const publicUrl = z
  .string()
  .optional()
  .transform((value, ctx) => {
    const raw = value?.trim();
    if (!raw) return undefined;
    let parsed: URL;
    try {
      parsed = new URL(raw);
    } catch {
      ctx.addIssue({ code: 'custom', message: `PUBLIC_URL is not a valid URL (got "${redactUrlCredentials(raw)}"); use the bot's public base URL, e.g. https://threadwise.example.com` });
      return z.NEVER;
    }
    const local = isLoopbackHost(parsed.hostname);
    if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && local)) {
      ctx.addIssue({
        code: 'custom',
        message: `PUBLIC_URL must start with https:// (got "${redactUrlCredentials(raw)}"): sign-in codes travel through it; http:// is allowed only for localhost`,
      });
      return z.NEVER;
    }
    if (parsed.search || parsed.hash || parsed.username || parsed.password) {
      ctx.addIssue({ code: 'custom', message: 'PUBLIC_URL must be a plain base URL without user, query or #fragment, e.g. https://threadwise.example.com' });
      return z.NEVER;
    }
    return `${parsed.origin}${parsed.pathname}`.replace(/\/+$/, '');
  });

/** A 256-bit key as 64 hex digits or base64 (44 characters); undefined when unset. Never echoed back. */
export function decodeTokenKey(text: string): Buffer | undefined {
  const raw = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(raw)) return Buffer.from(raw, 'hex');
  if (/^[A-Za-z0-9+/_-]{42,43}={0,2}$/.test(raw)) {
    const bytes = Buffer.from(raw.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (bytes.length === 32) return bytes;
  }
  return undefined;
}

const tokenKey = (name: string) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      const raw = value?.trim();
      if (!raw) return undefined;
      if (!decodeTokenKey(raw)) {
        ctx.addIssue({
          code: 'custom',
          message: `${name} must be 32 random bytes as 64 hex digits or base64 (it is not; its value is not shown); generate one with \`openssl rand -hex 32\``,
        });
        return z.NEVER;
      }
      return raw;
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
    OPENAI_BASE_URL: url('OPENAI_BASE_URL', undefined, 'use the endpoint’s base, e.g. http://localhost:11434/v1', undefined, '/v1'),
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
    DATABASE_URL: url(
      'DATABASE_URL',
      undefined,
      'use postgres://user:password@host:5432/database, or unset it for the embedded database',
      /^postgres(ql)?:$/,
    ),
    // How long start-up waits for a PostgreSQL that does not answer (restarting, not up yet, a name that does not
    // resolve yet) before it gives up with a sentence; the supervisor's restart takes it from there.
    DATABASE_WAIT_SECONDS: int('DATABASE_WAIT_SECONDS', 60, 0, 3600),
    DATA_DIR: z.string().optional().default('./data'),
    SKILLS_DIR: z.string().optional().default('./skills'),
    REPLY_WITHOUT_MENTION: bool('REPLY_WITHOUT_MENTION', true),
    PRELOAD_KB: int('PRELOAD_KB', 8, 0, 1024),
    OCR_LANGUAGES: ocrLanguages,
    OCR_MAX_PAGES: int('OCR_MAX_PAGES', 10, 0, 500),
    MAX_FILE_MB: int('MAX_FILE_MB', 50, 1, 1024),
    MAX_IMAGES_PER_TURN: int('MAX_IMAGES_PER_TURN', 4, 0, 20),
    MAX_IMAGE_KB: int('MAX_IMAGE_KB', 1536, 16, 20_480),
    MAX_ITERATIONS: int('MAX_ITERATIONS', 10, 1, 100),
    RUN_TIMEOUT_SECONDS: int('RUN_TIMEOUT_SECONDS', 300, 10, 3600),
    TOOL_TIMEOUT_SECONDS: int('TOOL_TIMEOUT_SECONDS', 60, 1, 900),
    MODEL_TIMEOUT_SECONDS: int('MODEL_TIMEOUT_SECONDS', 120, 5, 900),
    // G… (private channels created before 2021) and D… (a DM, allowed explicitly) are channel ids too.
    ALLOWED_CHANNELS: idList('ALLOWED_CHANNELS', /^[CGD][A-Z0-9]{2,}$/, 'channel ids like C0123ABC', 'in Slack: the channel’s name → About → Channel ID'),
    ALLOWED_USERS: idList('ALLOWED_USERS', /^[UW][A-Z0-9]{2,}$/, 'user ids like U0123ABC', 'in Slack: the person’s profile → ⋮ → Copy member ID'),
    // DMs are not channels: ALLOWED_CHANNELS does not restrict them; this does (ALLOWED_USERS still applies).
    ALLOW_DIRECT_MESSAGES: bool('ALLOW_DIRECT_MESSAGES', true),
    ADMIN_USERS: userIds('ADMIN_USERS'),
    // Who may change a channel's settings besides ADMIN_USERS: the channel's members, or nobody.
    SETTINGS_EDITORS: z
      .enum(['members', 'admins'], { error: 'SETTINGS_EDITORS must be members (anyone in the channel) or admins (ADMIN_USERS only)' })
      .optional()
      .default('members'),
    MCP_CONFIG: optionalText,
    // Per-person sign-in (README § Per-person sign-in): where people's browsers come back to, and the key their
    // tokens are encrypted with. Both required once a server in MCP_CONFIG says "auth": "oauth" (checkOauthConfig).
    PUBLIC_URL: publicUrl,
    TOKEN_ENCRYPTION_KEY: tokenKey('TOKEN_ENCRYPTION_KEY'),
    // The key before the last rotation: tokens it encrypted are still read, and re-encrypted with the new key then.
    TOKEN_ENCRYPTION_KEY_PREVIOUS: tokenKey('TOKEN_ENCRYPTION_KEY_PREVIOUS'),
    APPROVAL_TIMEOUT_MINUTES: int('APPROVAL_TIMEOUT_MINUTES', 60, 1, 10_080),
    USER_RATE_LIMIT_PER_MINUTE: int('USER_RATE_LIMIT_PER_MINUTE', 10, 0, 10_000),
    SHUTDOWN_GRACE_SECONDS: int('SHUTDOWN_GRACE_SECONDS', 25, 0, 600),
    // How long a replica's claim on a run lasts without a heartbeat (sent every third of it). A crashed replica's
    // answers are taken over after this; too short and a replica stalled by a slow database loses runs it still works on.
    RUN_LEASE_SECONDS: int('RUN_LEASE_SECONDS', 30, 2, 600),
    // Scheduled tasks (schedule_task): the shortest interval a repeating task may have, how many open tasks one person
    // may have, and after how many failed runs in a row a task pauses itself.
    TASK_MIN_INTERVAL_MINUTES: int('TASK_MIN_INTERVAL_MINUTES', 60, 1, 10_080),
    TASK_MAX_PER_PERSON: int('TASK_MAX_PER_PERSON', 20, 1, 10_000),
    TASK_PAUSE_AFTER_FAILURES: int('TASK_PAUSE_AFTER_FAILURES', 3, 1, 100),
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
    // Days extracted file text, search chunks, image descriptions, cached thread messages and tool-call payloads are
    // kept; 0 keeps them forever. Run totals (tokens, cost, timings, status) stay for the usage figures.
    RETENTION_DAYS: int('RETENTION_DAYS', 90, 0, 3650),
    // What people wrote, in debug logs (Bolt logs whole payloads there): redacted unless this is true.
    LOG_MESSAGE_TEXT: bool('LOG_MESSAGE_TEXT', false),
    // Operator console (README § Operator console): off unless CONSOLE_PORT is set.
    CONSOLE_PORT: optionalPort('CONSOLE_PORT'),
    CONSOLE_HOST: z
      .string()
      .optional()
      .transform((value) => value?.trim() || '127.0.0.1'),
    CONSOLE_TOKEN: optionalText.refine((value) => value === undefined || value.length >= 16, {
      message: 'CONSOLE_TOKEN must be at least 16 characters; generate one with `openssl rand -hex 32`',
    }),
    // Only behind a proxy that sets X-Forwarded-Proto itself: otherwise anyone could claim HTTPS.
    CONSOLE_TRUST_PROXY: bool('CONSOLE_TRUST_PROXY', false),
    MODEL_PRICES: modelPricesVariable,
    DAILY_LIMIT_USER: dollars('DAILY_LIMIT_USER'),
    DAILY_LIMIT_CHANNEL: dollars('DAILY_LIMIT_CHANNEL'),
    OTEL_EXPORTER_OTLP_ENDPOINT: url('OTEL_EXPORTER_OTLP_ENDPOINT', undefined, 'use the collector’s OTLP/HTTP base, e.g. http://localhost:4318'),
    OTEL_CAPTURE_CONTENT: bool('OTEL_CAPTURE_CONTENT', false),
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
  ALLOW_DIRECT_MESSAGES: true,
  USER_RATE_LIMIT_PER_MINUTE: true,
  CONSOLE_PORT: true,
  CONSOLE_HOST: true,
  CONSOLE_TOKEN: true,
  CONSOLE_TRUST_PROXY: true,
  DAILY_LIMIT_USER: true,
  DAILY_LIMIT_CHANNEL: true,
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
  problems.push(...checkConsoleVariables(env));
  return problems;
}

/** The console may be open (no token) only where nobody else can reach it: on the loopback interface. */
function checkConsoleVariables(env: Record<string, string | undefined>): string[] {
  if (!isSet(env, 'CONSOLE_PORT') || isSet(env, 'CONSOLE_TOKEN')) return [];
  const host = env.CONSOLE_HOST?.trim() || '127.0.0.1';
  if (isLoopbackHost(host)) return [];
  return [
    `CONSOLE_TOKEN is missing: the console would listen on ${host} (CONSOLE_HOST), which other machines can reach; set CONSOLE_TOKEN to a long random secret (openssl rand -hex 32), or set CONSOLE_HOST=127.0.0.1`,
  ];
}

/** 127.0.0.0/8, ::1 and localhost: addresses only this machine can connect to. */
function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127(\.\d{1,3}){3}$/.test(bare);
}

/** The model needs a key, or a server of its own that needs none. */
export function checkModelVariables(env: Record<string, string | undefined>): string[] {
  if (isSet(env, 'OPENAI_API_KEY') || isSet(env, 'OPENAI_BASE_URL')) return [];
  return [
    'OPENAI_API_KEY is missing: set your OpenAI API key, or set OPENAI_BASE_URL to an OpenAI-compatible server that needs no key (Ollama, vLLM, llama.cpp)',
  ];
}

const isSet = (env: Record<string, string | undefined>, name: string) => Boolean(env[name]?.trim());

export type LocalEnvironment = z.output<typeof localEnvironmentSchema>;
