/**
 * The database a process is configured for — DATABASE_URL, else PGlite in DATA_DIR — or one of its own in memory
 * (evals), waited for while it comes up. Any failure is one sentence naming where it looked.
 */
import { messageOf } from '../../core/errors';
import type { LocalConfig } from '../../config';
import type { Logger } from '../../logging/logger';
import type { DatabaseHandle } from '../../store/database';
import { StartupError } from '../startup-error';
import { DataDirInUseError } from './data-dir-lock';
import { openDatabaseWhenReachable } from './wait-for-database';

export interface DatabaseChoice {
  /** `memory`: a database that ends with the process. */
  where: 'configured' | 'memory';
  /** How long to wait for a PostgreSQL that is not up yet. */
  waitMs: number;
  /** postgres.js pool size; default the driver's. */
  maxConnections?: number;
  /** Told which database is being opened, or created (a start-up line). */
  say?: (sentence: string) => void;
}

export async function openConfiguredDatabase(storage: LocalConfig['storage'], choice: DatabaseChoice, logger: Logger): Promise<DatabaseHandle> {
  try {
    return await openDatabaseWhenReachable(
      choice.where === 'memory'
        ? { driver: 'pglite' }
        : storage.databaseUrl
          ? { driver: 'postgres', url: storage.databaseUrl, ...(choice.maxConnections ? { maxConnections: choice.maxConnections } : {}) }
          : { driver: 'pglite', dataDir: storage.dataDir },
      logger,
      choice.waitMs,
      choice.say,
    );
  } catch (error) {
    if (error instanceof StartupError) throw error;
    if (error instanceof DataDirInUseError) throw new StartupError(error.message);
    const where = choice.where === 'memory' ? 'an in-memory database' : storage.databaseUrl ? 'the database at DATABASE_URL' : `the database in ${storage.dataDir} (DATA_DIR)`;
    throw new StartupError(`could not open ${where}: ${messageOf(error)}`);
  }
}
