/**
 * Structured logs on stderr, one JSON object a line. Secrets never reach the output: every line passes through a
 * redactor that knows the configured secrets and Slack/OpenAI token shapes. File contents are never logged by
 * callers; the redactor is the net under that rule, not the rule.
 */
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

export function createRedactor(secrets: Array<string | undefined>): (text: string) => string {
  const known = secrets.filter((s): s is string => typeof s === 'string' && s.length >= 6);
  return (text) => {
    let out = text;
    for (const secret of known) out = out.split(secret).join('[redacted]');
    for (const shape of TOKEN_SHAPES) out = out.replace(shape, '[redacted]');
    return out;
  };
}

export function createLogger(options: {
  level: LogLevel;
  secrets?: Array<string | undefined>;
  write?: (line: string) => void;
  fields?: LogFields;
}): Logger {
  const redact = createRedactor(options.secrets ?? []);
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  const threshold = ORDER[options.level];

  const make = (base: LogFields): Logger => {
    const emit = (level: LogLevel, message: string, fields?: LogFields) => {
      if (ORDER[level] < threshold) return;
      const record = { time: new Date().toISOString(), level, message, ...base, ...fields };
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
    return { name: value.name, message: value.message, code: withCode.code ?? withCode.kind, stack: value.stack };
  }
  return value;
}

/** A logger that drops everything, for tests that do not look at logs. */
export const silentLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  child: () => silentLogger,
};
