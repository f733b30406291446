/**
 * The names of people and channels as runs resolved them (slack_names), for the console. Written only when a name is
 * new or changed, so a run that meets the same people again costs one statement that changes nothing.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from './database';
import { slackNames } from './schema';

export interface SlackName {
  id: string;
  kind: 'user' | 'channel';
  name: string;
}

export async function rememberSlackNames(db: Database, names: readonly SlackName[]): Promise<void> {
  const unique = [...new Map(names.filter((entry) => entry.id && entry.name).map((entry) => [entry.id, entry])).values()];
  if (unique.length === 0) return;
  await db
    .insert(slackNames)
    .values(unique.map((entry) => ({ id: entry.id, kind: entry.kind, name: entry.name.slice(0, 200) })))
    .onConflictDoUpdate({
      target: slackNames.id,
      set: { name: sql`excluded.name`, kind: sql`excluded.kind`, updatedAt: sql`now()` },
      setWhere: sql`${slackNames.name} is distinct from excluded.name`,
    });
}

/** Names by id for these ids; an id never met is left out. */
export async function readSlackNames(db: Database, ids: Iterable<string | null | undefined>): Promise<Map<string, string>> {
  const wanted = [...new Set([...ids].filter((id): id is string => Boolean(id)))];
  if (wanted.length === 0) return new Map();
  const rows = await db.select({ id: slackNames.id, name: slackNames.name }).from(slackNames).where(inArray(slackNames.id, wanted));
  return new Map(rows.map((row) => [row.id, row.name]));
}

/** The ids of the channels or people with this name (the console's filters accept "#incidents" and "Ana"). */
export async function findSlackIdsByName(db: Database, kind: SlackName['kind'], name: string): Promise<string[]> {
  const rows = await db
    .select({ id: slackNames.id })
    .from(slackNames)
    .where(and(eq(slackNames.kind, kind), sql`lower(${slackNames.name}) = lower(${name})`))
    .orderBy(slackNames.id)
    .limit(20);
  return rows.map((row) => row.id);
}
