/**
 * The MCP layer's logger: the caller's logger with mcp.json's secrets (header values, env values) redacted from
 * every message and field first. The composition root should also hand those secrets to its own logger; this is
 * the net under that, so a token cannot leak even from a logger built before mcp.json was read.
 */
import type { LogFields, Logger } from '../logging/logger';

export function redactingLogger(logger: Logger, redact: (text: string) => string): Logger {
  const scrub = (fields?: LogFields): LogFields | undefined => (fields === undefined ? undefined : (scrubValue(fields, redact, 0) as LogFields));
  return {
    debug: (message, fields) => logger.debug(redact(message), scrub(fields)),
    info: (message, fields) => logger.info(redact(message), scrub(fields)),
    warn: (message, fields) => logger.warn(redact(message), scrub(fields)),
    error: (message, fields) => logger.error(redact(message), scrub(fields)),
    child: (fields) => redactingLogger(logger.child(scrub(fields) ?? {}), redact),
  };
}

function scrubValue(value: unknown, redact: (text: string) => string, depth: number): unknown {
  if (typeof value === 'string') return redact(value);
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) {
    return { name: value.name, message: redact(value.message), code: (value as { code?: unknown }).code };
  }
  if (Array.isArray(value)) return value.map((item) => scrubValue(item, redact, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, scrubValue(item, redact, depth + 1)]));
}
