/** Starts the operator console (CONSOLE_PORT) with what the Health page reads from the running parts. */
import type { Config } from '../config';
import type { Logger } from '../logging/logger';
import type { DatabaseHandle } from '../store/database';
import type { DocumentExtractor } from '../documents';
import type { HealthSnapshot, RunningConsole } from '../console/create-console';
import type { ConsoleOutputs } from '../console/run-outputs';
import { raceWithSignal } from '../core/abort';
import { messageOf } from '../core/errors';

export interface ConsoleParts {
  database: DatabaseHandle;
  logger: Logger;
  mcp?: { health(): { servers: Array<{ name: string; state: string; tools: number; lastError?: string }> } };
  extractor: Pick<DocumentExtractor, 'stats'>;
  intake: { pending(): number };
  worker: { active(): number };
  model?: { report(): NonNullable<HealthSnapshot['model']> };
  /** The process's chart renderer and table engine: a run's page shows its charts and links its files. */
  outputs?: ConsoleOutputs;
  now?: () => number;
}

export async function startOperatorConsole(config: Config, parts: ConsoleParts): Promise<RunningConsole | undefined> {
  if (!config.console) return undefined;
  const health = async (): Promise<HealthSnapshot> => {
    const started = performance.now();
    let database: HealthSnapshot['database'];
    try {
      await raceWithSignal(parts.database.ping(), AbortSignal.timeout(5_000));
      database = { ok: true, latencyMs: performance.now() - started };
    } catch (error) {
      database = { ok: false, error: messageOf(error) };
    }
    return {
      database,
      mcp: parts.mcp?.health().servers.map(({ name, state, tools, lastError }) => ({ name, state, tools, lastError })),
      extraction: parts.extractor.stats(),
      intakeWaiting: parts.intake.pending(),
      activeRuns: parts.worker.active(),
      ...(parts.model ? { model: parts.model.report() } : {}),
    };
  };
  // Loaded only when CONSOLE_PORT is set: a bot without a console does not load its pages and server.
  const { startConsole } = await import('../console/create-console');
  const running = await startConsole(
    {
      db: parts.database.db,
      logger: parts.logger.child({ component: 'console' }),
      token: config.console.token,
      trustProxy: config.console.trustProxy,
      prices: config.prices,
      limits: config.limits,
      health,
      outputs: parts.outputs,
      now: parts.now,
    },
    { host: config.console.host, port: config.console.port },
  );
  parts.logger.info('operator console is listening', { url: running.url, signIn: config.console.token ? 'token' : 'open on loopback' });
  return running;
}
