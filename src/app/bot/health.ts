/**
 * GET /healthz: 200 while the database answers, with each MCP server's state and the model's; 503 when it does not. In HTTP mode
 * the receiver serves it; Socket Mode has no HTTP server of its own, so one is started for the platform's probes.
 */
import { createServer } from 'node:http';
import { raceWithSignal } from '../../core/abort';
import type { Logger } from '../../logging/logger';
import type { McpHub } from '../../mcp';
import type { HealthReport, PageHandler } from '../../slack/receiver/threaded-http-receiver';
import type { DatabaseHandle } from '../../store/database';
import type { ModelHealth } from '../check-model';

export function createHealthCheck(database: DatabaseHandle, mcp: McpHub | undefined, logger: Logger, model?: Pick<ModelHealth, 'report'>): () => Promise<HealthReport> {
  return async function checkHealth() {
    try {
      // Shorter than the receiver's own wait for this answer, so a database that hangs is reported as such.
      await raceWithSignal(database.ping(), AbortSignal.timeout(5_000));
      const tools = mcp?.health().servers.map(({ name, state, tools, lastError }) => ({ name, state, tools, ...(lastError ? { lastError } : {}) }));
      // The model's state is information, never a 503: a model outage must not get the bot restarted.
      return { status: 200, body: { ok: true, ...(tools ? { mcp: tools } : {}), ...(model ? { model: model.report() } : {}) } };
    } catch (error) {
      logger.warn('health check: the database is unreachable', { error });
      return { status: 503, body: { ok: false, error: 'database unreachable' } };
    }
  };
}

/** Serves /healthz (and `pages`: the OAuth callback) on `port` (0: any free port); resolves with the port and a close. */
export async function serveHealth(port: number, check: () => Promise<HealthReport>, pages: Record<string, PageHandler> = {}): Promise<{ port: number; close(): void }> {
  const server = createServer((req, res) => {
    const [path = '', search = ''] = (req.url ?? '/').split(/\?(.*)/s);
    const page = req.method === 'GET' ? pages[path] : undefined;
    if (page) {
      return void page(new URLSearchParams(search)).then(
        ({ status, headers, body }) => res.writeHead(status, headers).end(body),
        () => res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }).end('Something went wrong. Go back to Slack and try again.'),
      );
    }
    if (req.url !== '/healthz') return void res.writeHead(404).end();
    void check().then(({ status, body }) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body)));
  });
  await new Promise<void>((resolve) => server.listen(port, resolve));
  return { port: (server.address() as { port: number }).port, close: () => server.close() };
}
