import { LogLevel, type Logger as BoltLogger } from '@slack/bolt';
import type { Logger } from '../logging/logger';

/** Bolt and the Web API client log through ours, so their lines are redacted and structured too. */
export function toBoltLogger(logger: Logger, level: 'debug' | 'info' | 'warn' | 'error'): BoltLogger {
  let name = 'bolt';
  const text = (parts: unknown[]) => parts.map((p) => (typeof p === 'string' ? p : p instanceof Error ? p.message : JSON.stringify(p))).join(' ');
  return {
    debug: (...parts) => logger.debug(text(parts), { component: name }),
    info: (...parts) => logger.info(text(parts), { component: name }),
    warn: (...parts) => logger.warn(text(parts), { component: name }),
    error: (...parts) => logger.error(text(parts), { component: name }),
    setLevel: () => {},
    getLevel: () => level as LogLevel,
    setName: (newName) => {
      name = newName;
    },
  };
}
