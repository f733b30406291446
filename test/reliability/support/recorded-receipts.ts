/**
 * What the records of receipt (slack_deliveries, pending_questions) hold, for tests that prove every one of them is
 * settled once its question is answered or dropped.
 */
import { sql } from 'drizzle-orm';
import { rowsOf, type Database } from '../../../src/store/database';
import { eventually } from '../../support/eventually';

export type ReceiptTable = 'slack_deliveries' | 'pending_questions';

export async function countReceipts(db: Database, table: ReceiptTable): Promise<number> {
  return Number(rowsOf<{ n: number | string }>(await db.execute(sql.raw(`select count(*) as n from ${table}`)))[0]!.n);
}

/** Waits until every record of receipt is settled (the intake and the settling gone idle), not a fixed sleep. */
export async function receiptsSettled(db: Database, timeoutMs = 15_000): Promise<void> {
  await eventually(
    async () => {
      const left = { deliveries: await countReceipts(db, 'slack_deliveries'), questions: await countReceipts(db, 'pending_questions') };
      if (left.deliveries > 0 || left.questions > 0) throw new Error(`records left after ${timeoutMs} ms: ${JSON.stringify(left)}`);
    },
    { timeoutMs, intervalMs: 50 },
  );
}
