import type { SignInSettings } from './oauth-config';
import type { z } from 'zod';
import { checkModelVariables, checkVariableCombinations, environmentSchema, localEnvironmentSchema, type LocalEnvironment } from './schema';
import { contextWindowFor, DEFAULT_MODEL } from './models';
import type { ModelPrices } from '../core/model-prices';

export interface Config {
  slack: {
    botToken: string;
    signingSecret?: string;
    appToken?: string;
    mode: 'socket' | 'http';
    port: number;
    apiUrl: string;
    replyWithoutMention: boolean;
    allowedChannels: string[];
    allowedUsers: string[];
    /** DMs are not channels: ALLOWED_CHANNELS does not apply to them, this does (ALLOWED_USERS still does). */
    allowDirectMessages: boolean;
    userRateLimitPerMinute: number;
    /** SETTINGS_EDITORS: who may change a channel's settings besides ADMIN_USERS. */
    settingsEditors: 'members' | 'admins';
  };
  /** The operator console; undefined when CONSOLE_PORT is unset. */
  console?: {
    port: number;
    host: string;
    /** Unset: open, which the config allows only on a loopback host. */
    token?: string;
    /** CONSOLE_TRUST_PROXY: believe X-Forwarded-Proto (for the cookie's Secure flag). */
    trustProxy: boolean;
  };
  /** DAILY_LIMIT_USER / DAILY_LIMIT_CHANNEL in US dollars per UTC day; 0: no limit. */
  limits: { dailyUserUsd: number; dailyChannelUsd: number };
  model: {
    apiKey: string;
    baseUrl?: string;
    name: string;
    /** ALLOWED_MODELS: what a channel's settings may choose; the default model first, always included. Absent: `name` only. */
    allowedModels?: string[];
    embeddingModel?: string;
    vision: boolean;
    strategy: 'auto' | 'function_calling' | 'react';
    contextWindow: number;
    timeoutMs: number;
  };
  agent: { maxIterations: number; runTimeoutMs: number; toolTimeoutMs: number };
  files: {
    preloadKb: number;
    maxFileBytes: number;
    maxImagesPerTurn: number;
    maxImageBytes: number;
    /** OCR_LANGUAGES split at "+": Tesseract codes whose data comes from @tesseract.js-data/<code>. */
    ocrLanguages: string[];
    /** OCR_MAX_PAGES: pages recognised per document; 0 turns OCR off. */
    ocrMaxPages: number;
  };
  storage: { databaseUrl?: string; dataDir: string; databaseWaitMs: number };
  /** Derived content older than this many days is swept (RETENTION_DAYS); 0 = kept. */
  retentionDays: number;
  skillsDir: string;
  /** MCP_CONFIG as given; undefined → ./mcp.json if it exists (resolved by mcp/load-mcp-config.ts). */
  mcpConfigPath?: string;
  /** Per-person sign-in (config/oauth-config.ts): PUBLIC_URL and the keys people's tool tokens are encrypted with. */
  signIn: SignInSettings;
  approval: {
    /** ADMIN_USERS: may decide any approval, besides the person who asked. */
    adminUsers: string[];
    /** APPROVAL_TIMEOUT_MINUTES: a call nobody decides on expires after this. */
    timeoutMs: number;
  };
  /** MODEL_PRICES merged over the defaults: USD per million tokens. */
  prices: ModelPrices;
  /** OTEL_EXPORTER_OTLP_ENDPOINT: export a trace per run there; content only with OTEL_CAPTURE_CONTENT. */
  tracing: { endpoint?: string; captureContent: boolean };
  timeZone: string;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** Message text in debug logs (LOG_MESSAGE_TEXT); otherwise redacted. */
  logMessageText: boolean;
  shutdownGraceMs: number;
  /** A run's lease: a dead process's runs are taken over after this (RUN_LEASE_SECONDS). */
  runLeaseMs: number;
  /** Scheduled tasks: TASK_MIN_INTERVAL_MINUTES, TASK_MAX_PER_PERSON, TASK_PAUSE_AFTER_FAILURES. */
  tasks: { minIntervalMinutes: number; maxPerPerson: number; pauseAfterFailures: number };
}

export type ConfigResult = { ok: true; config: Config } | { ok: false; problems: string[] };

/** Everything but Slack: what threadwise needs to answer in a terminal (`npm run chat`) or for the evals. */
export type LocalConfig = Omit<Config, 'slack' | 'console' | 'limits'>;
export type LocalConfigResult = { ok: true; config: LocalConfig } | { ok: false; problems: string[] };

/** Validates the environment. Never throws: every problem comes back as one line naming the variable and the fix. */
export function loadConfig(env: Record<string, string | undefined>): ConfigResult {
  const parsed = environmentSchema.safeParse(env);
  const problems = [...problemsOf(parsed), ...checkVariableCombinations(env)];
  if (!parsed.success || problems.length > 0) return { ok: false, problems: [...new Set(problems)] };
  const e = parsed.data;
  return {
    ok: true,
    config: Object.freeze({
      slack: {
        botToken: e.SLACK_BOT_TOKEN,
        signingSecret: e.SLACK_SIGNING_SECRET,
        appToken: e.SLACK_APP_TOKEN,
        mode: e.SLACK_APP_TOKEN ? ('socket' as const) : ('http' as const),
        port: e.PORT,
        apiUrl: e.SLACK_API_URL!.endsWith('/') ? e.SLACK_API_URL! : `${e.SLACK_API_URL}/`,
        replyWithoutMention: e.REPLY_WITHOUT_MENTION,
        allowedChannels: e.ALLOWED_CHANNELS,
        allowedUsers: e.ALLOWED_USERS,
        allowDirectMessages: e.ALLOW_DIRECT_MESSAGES,
        userRateLimitPerMinute: e.USER_RATE_LIMIT_PER_MINUTE,
        settingsEditors: e.SETTINGS_EDITORS,
      },
      console:
        e.CONSOLE_PORT === undefined
          ? undefined
          : { port: e.CONSOLE_PORT, host: e.CONSOLE_HOST, token: e.CONSOLE_TOKEN, trustProxy: e.CONSOLE_TRUST_PROXY },
      limits: { dailyUserUsd: e.DAILY_LIMIT_USER, dailyChannelUsd: e.DAILY_LIMIT_CHANNEL },
      ...localSettings(e),
    }),
  };
}

/**
 * The environment without any Slack variable: only the model's (OPENAI_API_KEY or OPENAI_BASE_URL, OPENAI_MODEL)
 * are needed, the rest have the same defaults as for the bot. Never throws, like loadConfig.
 */
export function loadLocalConfig(env: Record<string, string | undefined>): LocalConfigResult {
  const parsed = localEnvironmentSchema.safeParse(env);
  const problems = [...problemsOf(parsed), ...checkModelVariables(env)];
  if (!parsed.success || problems.length > 0) return { ok: false, problems: [...new Set(problems)] };
  return { ok: true, config: Object.freeze(localSettings(parsed.data)) };
}

function problemsOf(parsed: { success: boolean; error?: z.ZodError }): string[] {
  if (parsed.success || !parsed.error) return [];
  return parsed.error.issues.map((issue) => {
    const variable = String(issue.path[0] ?? '');
    return issue.message.includes(variable) || !variable ? issue.message : `${variable}: ${issue.message}`;
  });
}

function localSettings(e: LocalEnvironment): LocalConfig {
  const modelName = e.OPENAI_MODEL ?? DEFAULT_MODEL;
  return {
    model: {
      // Keyless local servers still need a non-empty string for the SDK.
      apiKey: e.OPENAI_API_KEY ?? 'not-needed',
      baseUrl: e.OPENAI_BASE_URL,
      name: modelName,
      allowedModels: [...new Set([modelName, ...e.ALLOWED_MODELS])],
      embeddingModel: e.OPENAI_EMBEDDING_MODEL,
      vision: e.OPENAI_VISION,
      strategy: e.AGENT_STRATEGY,
      contextWindow: e.CONTEXT_WINDOW || contextWindowFor(modelName),
      timeoutMs: e.MODEL_TIMEOUT_SECONDS * 1000,
    },
    agent: {
      maxIterations: e.MAX_ITERATIONS,
      runTimeoutMs: e.RUN_TIMEOUT_SECONDS * 1000,
      toolTimeoutMs: e.TOOL_TIMEOUT_SECONDS * 1000,
    },
    files: {
      preloadKb: e.PRELOAD_KB,
      maxFileBytes: e.MAX_FILE_MB * 1024 * 1024,
      maxImagesPerTurn: e.MAX_IMAGES_PER_TURN,
      maxImageBytes: e.MAX_IMAGE_KB * 1024,
      ocrLanguages: e.OCR_LANGUAGES,
      ocrMaxPages: e.OCR_MAX_PAGES,
    },
    storage: { databaseUrl: e.DATABASE_URL, dataDir: e.DATA_DIR, databaseWaitMs: e.DATABASE_WAIT_SECONDS * 1000 },
    retentionDays: e.RETENTION_DAYS,
    skillsDir: e.SKILLS_DIR,
    mcpConfigPath: e.MCP_CONFIG,
    approval: { adminUsers: e.ADMIN_USERS, timeoutMs: e.APPROVAL_TIMEOUT_MINUTES * 60_000 },
    signIn: { publicUrl: e.PUBLIC_URL, tokenKey: e.TOKEN_ENCRYPTION_KEY, previousTokenKey: e.TOKEN_ENCRYPTION_KEY_PREVIOUS },
    prices: e.MODEL_PRICES,
    tracing: { endpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT, captureContent: e.OTEL_CAPTURE_CONTENT },
    timeZone: e.TIMEZONE,
    logLevel: e.LOG_LEVEL,
    logMessageText: e.LOG_MESSAGE_TEXT,
    shutdownGraceMs: e.SHUTDOWN_GRACE_SECONDS * 1000,
    runLeaseMs: e.RUN_LEASE_SECONDS * 1000,
    tasks: {
      minIntervalMinutes: e.TASK_MIN_INTERVAL_MINUTES,
      maxPerPerson: e.TASK_MAX_PER_PERSON,
      pauseAfterFailures: e.TASK_PAUSE_AFTER_FAILURES,
    },
  };
}
