/**
 * Structured logs on stderr, one JSON object a line. Secrets never reach the output: every line passes through a
 * redactor that knows the configured secrets and Slack/OpenAI token shapes. File contents are never logged by
 * callers; the redactor is the net under that rule, not the rule.
 */
import { ThreadwiseError } from '../core/errors';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

const TOKEN_SHAPES = [
  /xox[abposre]-[A-Za-z0-9-]+/g, // Slack bot, user, app-config tokens
  /xapp-[A-Za-z0-9-]+/g, // Slack app-level tokens
  /sk-[A-Za-z0-9_-]{16,}/g, // OpenAI keys
  /Bearer\s+[A-Za-z0-9._~+/-]+=*/gi,
];

/**
 * OAuth values by name (per-person sign-in): a sign-in link's `state` and `code` in a URL (the Connect button's
 * link is in the Web API client's debug line for chat.postEphemeral), and tokens or secrets as JSON fields.
 */
const OAUTH_SHAPES = [
  /([?&](?:state|code|code_verifier|refresh_token|access_token|client_secret)=)[^&"'\s\\]+/g,
  /("(?:access_token|refresh_token|id_token|code_verifier|client_secret)"\s*:\s*")(?:[^"\\]|\\.)*"/g,
];

export function createRedactor(secrets: Array<string | undefined>): (text: string) => string {
  const known = secrets.filter((s): s is string => typeof s === 'string' && s.length >= 6);
  return (text) => {
    let out = text;
    for (const secret of known) out = out.split(secret).join('[redacted]');
    for (const shape of TOKEN_SHAPES) out = out.replace(shape, '[redacted]');
    for (const shape of OAUTH_SHAPES) out = out.replace(shape, (_match, name: string) => `${name}[redacted]${name.endsWith('"') ? '"' : ''}`);
    return out;
  };
}

/** Keys whose string values are what people wrote (messages, questions, file previews, blocks). */
const MESSAGE_TEXT_KEYS = ['text', 'question', 'preview', 'plain_text', 'initial_comment', 'markdown_text', 'title'];
const MESSAGE_TEXT_IN_JSON = new RegExp(`"(${MESSAGE_TEXT_KEYS.join('|')})"\\s*:\\s*"(?:[^"\\\\]|\\\\.)*"`, 'g');

/**
 * Replaces what people wrote with "[redacted]": in fields (by key) and in JSON quoted inside a message (Bolt and
 * the Web API client log whole payloads at debug level). LOG_MESSAGE_TEXT=true turns it off for debugging.
 */
function redactMessageText(message: string, fields: LogFields): { message: string; fields: LogFields } {
  const keys = new Set(MESSAGE_TEXT_KEYS);
  const scrub = (value: unknown, depth: number): unknown => {
    if (depth > 8 || value === null || typeof value !== 'object' || value instanceof Error) return value;
    if (Array.isArray(value)) return value.map((item) => scrub(item, depth + 1));
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, keys.has(key) && typeof item === 'string' ? '[redacted]' : scrub(item, depth + 1)]),
    );
  };
  return { message: message.replace(MESSAGE_TEXT_IN_JSON, '"$1":"[redacted]"'), fields: scrub(fields, 0) as LogFields };
}

export function createLogger(options: {
  level: LogLevel;
  secrets?: Array<string | undefined>;
  write?: (line: string) => void;
  fields?: LogFields;
  /** Log what people wrote (LOG_MESSAGE_TEXT). Default false: message text is redacted. */
  messageText?: boolean;
}): Logger {
  const redact = createRedactor(options.secrets ?? []);
  const keepText = options.messageText ?? false;
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  const threshold = ORDER[options.level];

  const make = (base: LogFields): Logger => {
    const emit = (level: LogLevel, message: string, fields?: LogFields) => {
      if (ORDER[level] < threshold) return;
      const shown = keepText ? { message, fields } : redactMessageText(message, { ...fields });
      const record = { time: new Date().toISOString(), level, message: shown.message, ...base, ...shown.fields };
      write(`${redact(JSON.stringify(record, errorReplacer))}\n`);
    };
    return {
      debug: (m, f) => emit('debug', m, f),
      info: (m, f) => emit('info', m, f),
      warn: (m, f) => emit('warn', m, f),
      error: (m, f) => emit('error', m, f),
      child: (fields) => make({ ...base, ...fields }),
    };
  };
  return make(options.fields ?? {});
}

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) {
    const withCode = value as Error & { code?: unknown; kind?: unknown };
    // A threadwise error's context (which file, thread, server) is what makes its line findable.
    const context = value instanceof ThreadwiseError && Object.keys(value.context).length > 0 ? { context: value.context } : {};
    const status = httpStatusOf(value);
    const cause = value.cause instanceof Error ? { cause: summaryOf(value.cause) } : {};
    // An expected failure (ours, with its code; an HTTP status from Slack or the model) is said by its message and
    // code: its stack would only show where it was noticed. An unexpected one keeps the stack that finds the bug.
    const expected = value instanceof ThreadwiseError || status !== undefined;
    return {
      name: value.name,
      message: value.message,
      code: withCode.code ?? withCode.kind,
      ...(status !== undefined ? { status } : {}),
      ...context,
      ...cause,
      ...(expected ? {} : { stack: value.stack }),
    };
  }
  return value;
}

/** An HTTP status an error carries: the model's (status) or Slack's Web API client's (statusCode). */
function httpStatusOf(error: Error): number | undefined {
  const { status, statusCode } = error as Error & { status?: unknown; statusCode?: unknown };
  const found = typeof status === 'number' ? status : typeof statusCode === 'number' ? statusCode : undefined;
  return found !== undefined && found >= 100 && found < 600 ? found : undefined;
}

/** What caused an error, in a line: the cause's name, message and code (ECONNREFUSED, a Slack error…). */
function summaryOf(cause: Error): { name: string; message: string; code?: unknown } {
  const code = (cause as Error & { code?: unknown }).code;
  return { name: cause.name, message: cause.message, ...(code !== undefined ? { code } : {}) };
}

/** A logger that drops everything, for tests that do not look at logs. */
export const silentLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  child: () => silentLogger,
};
