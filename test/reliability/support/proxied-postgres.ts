/**
 * A scratch PostgreSQL database opened through a TCP proxy the test can switch off (tcp-proxy.ts): how the outage
 * tests reach a database that goes away and comes back. `close()` closes the handle, the proxy and the database.
 */
import { openDatabase } from '../../../src/app/database/open-database';
import type { DatabaseHandle } from '../../../src/store/database';
import { createScratchPostgres } from '../../support/databases';
import { startTcpProxy, type TcpProxy } from './tcp-proxy';

export interface ProxiedPostgres {
  database: DatabaseHandle;
  proxy: TcpProxy;
  close(): Promise<void>;
}

export async function openProxiedScratchPostgres(adminUrl: string, maxConnections: number): Promise<ProxiedPostgres> {
  const scratch = await createScratchPostgres(adminUrl);
  const direct = new URL(scratch.url);
  const proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
  const proxied = new URL(scratch.url);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(proxy.port);
  const database = await openDatabase({ driver: 'postgres', url: proxied.toString(), maxConnections });
  return {
    database,
    proxy,
    async close() {
      await database.close().catch(() => {});
      await proxy.close();
      await scratch.drop();
    },
  };
}
