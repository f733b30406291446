/**
 * The embedded database's delivery journal on disk (the receiver thread writes it; see receiver-thread.mjs): at
 * start, whatever segments a previous process left are moved into the database, where the replay picks them up,
 * and the files are deleted. A torn last line (the process died mid-write, before the 200) is skipped: that
 * delivery was never acknowledged, and Slack sends it again.
 */
import { readdir, readFile, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Database } from '../store/database';
import { importDeliveries, type StoredDelivery } from '../store/delivery-store';
import type { Logger } from '../logging/logger';

export async function importLeftoverJournal(db: Database, dir: string, logger: Logger): Promise<number> {
  const names = (await readdir(dir).catch(() => [] as string[])).filter((name) => name.endsWith('.jsonl')).sort();
  let imported = 0;
  for (const name of names) {
    const file = path.join(dir, name);
    const deliveries: StoredDelivery[] = [];
    for (const line of (await readFile(file, 'utf8')).split('\n')) {
      if (!line.trim()) continue;
      try {
        const row = JSON.parse(line) as StoredDelivery & { receivedBy?: string };
        if (typeof row.id === 'string' && row.body && typeof row.body === 'object') deliveries.push(row);
      } catch {
        // torn write
      }
    }
    await importDeliveries(db, `journal ${name}`, deliveries);
    await unlink(file);
    imported += deliveries.length;
  }
  if (imported > 0) logger.info('moved deliveries a stopped process had recorded into the database, to be replayed', { count: imported, files: names.length });
  return imported;
}
