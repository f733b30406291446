/**
 * Usage: runs, tokens and cost grouped by day, channel, user or model, read-only. The console's Usage page and CSV
 * use it, and App Home's last seven days for admins (`readUsageTotals`).
 * Days are UTC days, the same days the daily limits count.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { Database } from './database';
import { rowsOf } from './database';

export type UsageGrouping = 'day' | 'channel' | 'user' | 'model';

export interface UsageRow {
  /** The day (YYYY-MM-DD), channel id, user id or model name; '' when unknown. */
  key: string;
  runs: number;
  refused: number;
  failed: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

export interface UsageRange {
  /** Inclusive UTC days, YYYY-MM-DD. */
  from: string;
  to: string;
  channelId?: string;
}

const GROUP_KEY: Record<UsageGrouping, SQL> = {
  day: sql`to_char(created_at at time zone 'UTC', 'YYYY-MM-DD')`,
  channel: sql`coalesce(channel_id, '')`,
  user: sql`coalesce(trigger_user_id, '')`,
  model: sql`coalesce(model, '')`,
};

/** One row per day / channel / user / model in the range: days in order, the others most expensive first. */
export async function readUsage(db: Database, grouping: UsageGrouping, range: UsageRange, limit = 500): Promise<UsageRow[]> {
  const key = GROUP_KEY[grouping];
  const result = await db.execute(sql`
    select ${key} as key, count(*) filter (where status <> 'refused') as runs, count(*) filter (where status = 'refused') as refused,
      count(*) filter (where status = 'failed') as failed,
      coalesce(sum(input_tokens), 0) as input_tokens, coalesce(sum(output_tokens), 0) as output_tokens, coalesce(sum(cost_usd), 0) as cost_usd
    from runs
    where ${rangeCondition(range)}
    group by 1
    order by ${grouping === 'day' ? sql`1` : sql`cost_usd desc, 1`}
    limit ${limit}`);
  return rowsOf<Record<string, unknown>>(result).map(toUsageRow);
}

/** The whole range in one row. */
export async function readUsageTotals(db: Database, range: UsageRange): Promise<UsageRow> {
  const result = await db.execute(sql`
    select 'total' as key, count(*) filter (where status <> 'refused') as runs, count(*) filter (where status = 'refused') as refused,
      count(*) filter (where status = 'failed') as failed,
      coalesce(sum(input_tokens), 0) as input_tokens, coalesce(sum(output_tokens), 0) as output_tokens, coalesce(sum(cost_usd), 0) as cost_usd
    from runs where ${rangeCondition(range)}`);
  return toUsageRow(rowsOf<Record<string, unknown>>(result)[0] ?? {});
}

/** Who spent most today (UTC), users and channels: the console's "about to blow the budget" list. */
export async function readTopSpendersToday(db: Database, limit = 10): Promise<Array<{ scope: 'user' | 'channel'; subjectId: string; costUsd: number; runs: number }>> {
  const result = await db.execute(sql`
    (select 'user' as scope, trigger_user_id as subject_id, sum(cost_usd) as cost_usd, count(*) as runs from runs
      where created_at >= (date_trunc('day', now() at time zone 'UTC') at time zone 'UTC') and trigger_user_id is not null
      group by trigger_user_id order by 3 desc limit ${limit})
    union all
    (select 'channel', channel_id, sum(cost_usd), count(*) from runs
      where created_at >= (date_trunc('day', now() at time zone 'UTC') at time zone 'UTC') and channel_id is not null
      group by channel_id order by 3 desc limit ${limit})`);
  return rowsOf<Record<string, unknown>>(result).map((row) => ({
    scope: row.scope as 'user' | 'channel',
    subjectId: String(row.subject_id),
    costUsd: Number(row.cost_usd),
    runs: Number(row.runs),
  }));
}

function rangeCondition(range: UsageRange): SQL {
  const conditions = [
    sql`created_at >= (${range.from}::date at time zone 'UTC')`,
    sql`created_at < ((${range.to}::date + 1) at time zone 'UTC')`,
  ];
  if (range.channelId) conditions.push(sql`channel_id = ${range.channelId}`);
  return sql.join(conditions, sql` and `);
}

function toUsageRow(row: Record<string, unknown>): UsageRow {
  return {
    key: String(row.key ?? ''),
    runs: Number(row.runs ?? 0),
    refused: Number(row.refused ?? 0),
    failed: Number(row.failed ?? 0),
    inputTokens: Number(row.input_tokens ?? 0),
    outputTokens: Number(row.output_tokens ?? 0),
    costUsd: Number(row.cost_usd ?? 0),
  };
}
