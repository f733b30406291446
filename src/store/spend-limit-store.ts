/**
 * The daily spend limits' side of the database: what each user and channel spent since UTC midnight, which limits
 * an admin lifted for today, and the refused runs. Read inside the intake's transaction, so the limit is one limit
 * for every replica (each reads the same rows), not one per process.
 */
import { sql } from 'drizzle-orm';
import type { Database } from './database';
import { rowsOf } from './database';
import { runs, spendLimitOverrides } from './schema';
import type { RunRequest } from './run-store';

export type LimitScope = 'user' | 'channel';

export interface TodaysSpend {
  /** USD spent today (UTC), by user id and by channel id. */
  byUser: ReadonlyMap<string, number>;
  byChannel: ReadonlyMap<string, number>;
  /** `${scope}:${id}` of the limits lifted for today. */
  lifted: ReadonlySet<string>;
}

/** Today's start in UTC, as PostgreSQL computes it: every replica agrees on the day whatever its clock says. */
const UTC_DAY_START = sql`(date_trunc('day', now() at time zone 'UTC') at time zone 'UTC')`;
const UTC_TODAY = sql`(now() at time zone 'UTC')::date`;

/** One statement: spend of these users and channels since UTC midnight, and today's lifted limits among them. */
export async function readTodaysSpend(db: Database, subjects: { userIds: readonly string[]; channelIds: readonly string[] }): Promise<TodaysSpend> {
  const userIds = [...new Set(subjects.userIds)];
  const channelIds = [...new Set(subjects.channelIds)];
  const byUser = new Map<string, number>();
  const byChannel = new Map<string, number>();
  const lifted = new Set<string>();
  if (userIds.length === 0 && channelIds.length === 0) return { byUser, byChannel, lifted };
  const users = sql`array[${sql.join(userIds.length ? userIds.map((id) => sql`${id}`) : [sql`''`], sql`, `)}]::text[]`;
  const channels = sql`array[${sql.join(channelIds.length ? channelIds.map((id) => sql`${id}`) : [sql`''`], sql`, `)}]::text[]`;
  const result = await db.execute(sql`
    select 'user' as kind, trigger_user_id as subject, sum(cost_usd) as spent from runs
      where trigger_user_id = any(${users}) and created_at >= ${UTC_DAY_START} group by trigger_user_id
    union all
    select 'channel', channel_id, sum(cost_usd) from runs
      where channel_id = any(${channels}) and created_at >= ${UTC_DAY_START} group by channel_id
    union all
    select 'lifted:' || scope, subject_id, 0 from spend_limit_overrides
      where day = ${UTC_TODAY} and ((scope = 'user' and subject_id = any(${users})) or (scope = 'channel' and subject_id = any(${channels})))`);
  for (const row of rowsOf<{ kind: string; subject: string; spent: number | string }>(result)) {
    if (row.kind === 'user') byUser.set(row.subject, Number(row.spent));
    else if (row.kind === 'channel') byChannel.set(row.subject, Number(row.spent));
    else lifted.add(`${row.kind.slice('lifted:'.length)}:${row.subject}`);
  }
  return { byUser, byChannel, lifted };
}

/** An admin lifts a user's or a channel's limit for the rest of today (UTC). Lifting twice is harmless. */
export async function liftSpendLimitForToday(db: Database, scope: LimitScope, subjectId: string, liftedBy: string): Promise<string> {
  const [row] = await db
    .insert(spendLimitOverrides)
    .values({ scope, subjectId, day: sql`${UTC_TODAY}` as unknown as string, liftedBy })
    .onConflictDoUpdate({ target: [spendLimitOverrides.scope, spendLimitOverrides.subjectId, spendLimitOverrides.day], set: { liftedBy } })
    .returning({ day: spendLimitOverrides.day });
  return row!.day;
}

/** Limits lifted today, newest first (the console lists them). */
export async function listLiftedLimitsToday(db: Database) {
  const result = await db.execute(sql`
    select scope, subject_id as "subjectId", lifted_by as "liftedBy", created_at as "createdAt"
    from spend_limit_overrides where day = ${UTC_TODAY} order by created_at desc`);
  return rowsOf<{ scope: LimitScope; subjectId: string; liftedBy: string; createdAt: string | Date }>(result);
}

/** Questions turned away by a limit, recorded as refused runs (they cost nothing and are never claimed). */
export async function insertRefusedRuns(db: Database, requests: ReadonlyArray<RunRequest & { reason: string }>): Promise<void> {
  if (requests.length === 0) return;
  await db
    .insert(runs)
    .values(requests.map(({ reason, ...request }) => ({ ...request, status: 'refused' as const, error: reason, finishedAt: sql`clock_timestamp()` })))
    .onConflictDoNothing();
}
