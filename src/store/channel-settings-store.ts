/**
 * Channel settings as stored: each channel's overrides (validated above this, by config/channel-settings.ts), the
 * history of every change, and one version counter every write raises. The resolver caches effective settings per
 * channel and, instead of trusting a cache another replica may have made stale, reads the counter (a primary-key
 * lookup) at most every `checkEveryMs`: a change made on one replica is used by all within that time.
 */
import { and, desc, eq, sql } from 'drizzle-orm';
import { createBoundedCache } from '../core/bounded-cache';
import type { Database } from './database';
import { channelSettings, channelSettingsHistory, channelSettingsVersion } from './schema';

export type StoredSettings = Record<string, unknown>;

export interface SettingsChange {
  field: string;
  /** undefined: the field followed the workspace default. */
  oldValue: unknown;
  newValue: unknown;
}

export type SettingsHistoryRow = typeof channelSettingsHistory.$inferSelect;

/** The channel's stored overrides; empty when the channel never changed anything. */
export async function readChannelSettings(db: Database, teamId: string, channelId: string): Promise<StoredSettings> {
  const [row] = await db
    .select({ settings: channelSettings.settings })
    .from(channelSettings)
    .where(and(eq(channelSettings.teamId, teamId), eq(channelSettings.channelId, channelId)));
  return row?.settings ?? {};
}

/**
 * Replaces the channel's overrides with `next` (a field left out follows the default again), records one history
 * row per field that changed and raises the version, in one transaction. Returns what changed (nothing → no write).
 */
export async function saveChannelSettings(
  db: Database,
  key: { teamId: string; channelId: string },
  next: StoredSettings,
  changedBy: string,
): Promise<SettingsChange[]> {
  return db.transaction(async (tx) => {
    // The row lock (or, for a new channel, the unique key) serialises two editors: history never misses a change.
    const [row] = await tx
      .select({ settings: channelSettings.settings })
      .from(channelSettings)
      .where(and(eq(channelSettings.teamId, key.teamId), eq(channelSettings.channelId, key.channelId)))
      .for('update');
    const before = row?.settings ?? {};
    const changes = diffSettings(before, next);
    if (changes.length === 0) return [];
    await tx
      .insert(channelSettings)
      .values({ ...key, settings: next, updatedBy: changedBy })
      .onConflictDoUpdate({
        target: [channelSettings.teamId, channelSettings.channelId],
        set: { settings: next, updatedBy: changedBy, updatedAt: sql`now()` },
      });
    await tx.insert(channelSettingsHistory).values(
      changes.map((change) => ({ ...key, field: change.field, oldValue: change.oldValue ?? null, newValue: change.newValue ?? null, changedBy })),
    );
    await tx
      .insert(channelSettingsVersion)
      .values({ id: 1, version: 1 })
      .onConflictDoUpdate({ target: channelSettingsVersion.id, set: { version: sql`${channelSettingsVersion.version} + 1` } });
    return changes;
  });
}

/** The channel's changes, newest first. */
export async function channelSettingsHistoryOf(db: Database, teamId: string, channelId: string, limit = 50): Promise<SettingsHistoryRow[]> {
  return db
    .select()
    .from(channelSettingsHistory)
    .where(and(eq(channelSettingsHistory.teamId, teamId), eq(channelSettingsHistory.channelId, channelId)))
    .orderBy(desc(channelSettingsHistory.changedAt), desc(channelSettingsHistory.id))
    .limit(limit);
}

/** Raised by every save, on any replica. */
export async function channelSettingsVersionOf(db: Database): Promise<number> {
  const [row] = await db.select({ version: channelSettingsVersion.version }).from(channelSettingsVersion).where(eq(channelSettingsVersion.id, 1));
  return row?.version ?? 0;
}

function diffSettings(before: StoredSettings, after: StoredSettings): SettingsChange[] {
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return fields
    .filter((field) => JSON.stringify(before[field]) !== JSON.stringify(after[field]))
    .map((field) => ({ field, oldValue: before[field], newValue: after[field] }));
}

export interface ChannelSettingsResolver<Effective> {
  /** The channel's effective settings: the defaults with its overrides applied. */
  settingsFor(teamId: string, channelId: string): Promise<Effective>;
  /** Saves through this replica; its own cache is up to date at once, the others' within `checkEveryMs`. */
  save(key: { teamId: string; channelId: string }, next: StoredSettings, changedBy: string): Promise<SettingsChange[]>;
  /** What the channel stored itself (for the settings form). */
  stored(teamId: string, channelId: string): Promise<StoredSettings>;
}

export interface ChannelSettingsResolverOptions<Effective> {
  db: Database;
  /** Stored overrides → effective settings (the defaults from the environment applied underneath). */
  effective: (stored: StoredSettings) => Effective;
  /** How stale a replica's cache may be at most. */
  checkEveryMs?: number;
  now?: () => number;
}

export function createChannelSettingsResolver<Effective>(options: ChannelSettingsResolverOptions<Effective>): ChannelSettingsResolver<Effective> {
  const { db, effective } = options;
  const now = options.now ?? Date.now;
  const checkEveryMs = options.checkEveryMs ?? 500;
  const cache = createBoundedCache<string, Promise<StoredSettings>>({ maxEntries: 10_000, ttlMs: 60 * 60_000, now });
  let known: { version: number; checkedAt: number } | undefined;
  let checking: Promise<void> | undefined;

  /** Drops the cache when any replica saved since the last look; one look at a time, at most every checkEveryMs. */
  const freshen = async () => {
    if (known && now() - known.checkedAt < checkEveryMs) return;
    checking ??= channelSettingsVersionOf(db)
      .then((version) => {
        if (known && version !== known.version) cache.clear();
        known = { version, checkedAt: now() };
      })
      .finally(() => {
        checking = undefined;
      });
    await checking;
  };

  const stored = async (teamId: string, channelId: string) => {
    await freshen();
    const key = `${teamId}/${channelId}`;
    let pending = cache.get(key);
    if (!pending) {
      pending = readChannelSettings(db, teamId, channelId);
      pending.catch(() => cache.delete(key));
      cache.set(key, pending);
    }
    return pending;
  };

  return {
    settingsFor: async (teamId, channelId) => effective(await stored(teamId, channelId)),
    stored,
    async save(key, next, changedBy) {
      const changes = await saveChannelSettings(db, key, next, changedBy);
      // Forget what this replica knew: the next read sees the save even within checkEveryMs.
      cache.clear();
      known = undefined;
      return changes;
    },
  };
}
