/** Small builders shared by the MCP tests: a logger that keeps its lines, and server entries. */
import { createLogger, type Logger } from '../../src/logging/logger';
import type { McpServerConfig } from '../../src/mcp';
import type { McpTransportConfig } from '../../src/mcp/mcp-config';

export interface LogRecord {
  level: string;
  message: string;
  [field: string]: unknown;
}

/** The project's logger writing to memory — with no secrets of its own, so any redaction seen is the hub's. */
export function memoryLogger(): { logger: Logger; records: LogRecord[]; raw: string[]; messages(level?: string): string[] } {
  const raw: string[] = [];
  const records: LogRecord[] = [];
  const logger = createLogger({
    level: 'debug',
    write: (line) => {
      raw.push(line);
      records.push(JSON.parse(line) as LogRecord);
    },
  });
  return { logger, records, raw, messages: (level) => records.filter((r) => !level || r.level === level).map((r) => r.message) };
}

export function serverEntry(name: string, transport: McpTransportConfig, extra: Partial<McpServerConfig> = {}): McpServerConfig {
  return { name, transport, approval: 'ask', autoApprove: [], disabledTools: [], timeoutMs: 10_000, ...extra };
}

export function httpTransport(url: string, headers: Record<string, string> = {}, sseOnly = false): McpTransportConfig {
  return { kind: 'http', url, headers, sseOnly };
}

/** Fast retries, so a test waits for recovery in tenths of a second. */
export const FAST_RETRY = { initialMs: 50, maxMs: 200, onDemandAfterMs: 100 };
