/**
 * Channel settings in the database, on PGlite and (with TEST_DATABASE_URL) PostgreSQL: overrides per (team,
 * channel), one history row per changed field, and a resolver whose cache another replica's save makes stale for at
 * most its check interval — well within one second.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultChannelSettings, effectiveChannelSettings, type SettingsChoices } from '../../src/config/channel-settings';
import { loadConfig } from '../../src/config';
import type { DatabaseHandle } from '../../src/store/database';
import {
  channelSettingsHistoryOf,
  channelSettingsVersionOf,
  createChannelSettingsResolver,
  readChannelSettings,
  saveChannelSettings,
} from '../../src/store/channel-settings-store';
import { testDatabases } from '../support/databases';

const loaded = loadConfig({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's', OPENAI_API_KEY: 'k', OPENAI_MODEL: 'gpt-4o-mini', ALLOWED_MODELS: 'gpt-4o', PRELOAD_KB: '8' });
if (!loaded.ok) throw new Error(loaded.problems.join('\n'));
const config = loaded.config;
const choices: SettingsChoices = { models: config.model.allowedModels ?? [config.model.name], skills: ['jira', 'notion'], mcpServers: [] };
const defaults = defaultChannelSettings(config);
const effective = (stored: Record<string, unknown>) => effectiveChannelSettings(defaults, stored, choices);

describe.each(testDatabases())('channel settings on $label', (database) => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await database.open();
  });
  afterAll(async () => {
    await handle?.close();
  });

  it('stores only what a channel changed, and records who changed which field from what to what', async () => {
    const key = { teamId: 'T1', channelId: 'CHIST' };
    expect(await readChannelSettings(handle.db, key.teamId, key.channelId)).toEqual({});
    const versionBefore = await channelSettingsVersionOf(handle.db);

    expect(await saveChannelSettings(handle.db, key, { preloadKb: 0, model: 'gpt-4o' }, 'U0ANA')).toEqual([
      { field: 'model', oldValue: undefined, newValue: 'gpt-4o' },
      { field: 'preloadKb', oldValue: undefined, newValue: 0 },
    ]);
    expect(await saveChannelSettings(handle.db, key, { preloadKb: 16 }, 'U0BEN')).toEqual([
      { field: 'model', oldValue: 'gpt-4o', newValue: undefined },
      { field: 'preloadKb', oldValue: 0, newValue: 16 },
    ]);
    // Saving the same again changes nothing and writes nothing.
    expect(await saveChannelSettings(handle.db, key, { preloadKb: 16 }, 'U0BEN')).toEqual([]);

    expect(await readChannelSettings(handle.db, key.teamId, key.channelId)).toEqual({ preloadKb: 16 });
    expect(await channelSettingsVersionOf(handle.db)).toBe(versionBefore + 2);
    const history = await channelSettingsHistoryOf(handle.db, key.teamId, key.channelId);
    expect(history.map((row) => [row.changedBy, row.field, row.oldValue, row.newValue]).sort()).toEqual(
      [
        ['U0ANA', 'model', null, 'gpt-4o'],
        ['U0ANA', 'preloadKb', null, 0],
        ['U0BEN', 'model', 'gpt-4o', null],
        ['U0BEN', 'preloadKb', 0, 16],
      ].sort(),
    );
    expect(history.every((row) => row.changedAt instanceof Date)).toBe(true);
  });

  it('keeps channels and teams apart', async () => {
    await saveChannelSettings(handle.db, { teamId: 'T1', channelId: 'CAPART' }, { preloadKb: 1 }, 'U0ANA');
    await saveChannelSettings(handle.db, { teamId: 'T2', channelId: 'CAPART' }, { preloadKb: 2 }, 'U0ANA');
    expect(await readChannelSettings(handle.db, 'T1', 'CAPART')).toEqual({ preloadKb: 1 });
    expect(await readChannelSettings(handle.db, 'T2', 'CAPART')).toEqual({ preloadKb: 2 });
    expect(await readChannelSettings(handle.db, 'T1', 'COTHER')).toEqual({});
  });

  it('resolves a channel to the environment defaults with its own choices on top, naming which it chose', async () => {
    const resolver = createChannelSettingsResolver({ db: handle.db, effective });
    expect(await resolver.settingsFor('T1', 'CFRESH')).toEqual({ ...defaults, overridden: [] });
    await resolver.save({ teamId: 'T1', channelId: 'CFRESH' }, { preloadKb: 0, extraInstructions: 'Be careful.' }, 'U0ANA');
    expect(await resolver.settingsFor('T1', 'CFRESH')).toEqual({
      ...defaults,
      preloadKb: 0,
      extraInstructions: 'Be careful.',
      overridden: ['extraInstructions', 'preloadKb'],
    });
    expect((await resolver.settingsFor('T1', 'COTHER2')).preloadKb).toBe(8);
  });

  it('sees a change saved through another replica within one second, and serves from its cache until then', async () => {
    let clock = 1_000_000;
    const replicaOne = createChannelSettingsResolver({ db: handle.db, effective, checkEveryMs: 500, now: () => clock });
    const replicaTwo = createChannelSettingsResolver({ db: handle.db, effective, checkEveryMs: 500, now: () => clock });
    const key = { teamId: 'T1', channelId: 'CREPLICA' };
    expect((await replicaTwo.settingsFor(key.teamId, key.channelId)).preloadKb).toBe(8);

    await replicaOne.save(key, { preloadKb: 0 }, 'U0ANA');
    expect((await replicaOne.settingsFor(key.teamId, key.channelId)).preloadKb).toBe(0);
    // Replica two has not looked at the version since: its cache answers (no query per run).
    expect((await replicaTwo.settingsFor(key.teamId, key.channelId)).preloadKb).toBe(8);

    clock += 500; // half a second later the version check runs and finds the save
    expect((await replicaTwo.settingsFor(key.teamId, key.channelId)).preloadKb).toBe(0);
  });

  it('falls back to the default for a stored value that no longer validates (a model the operator removed)', async () => {
    await saveChannelSettings(handle.db, { teamId: 'T1', channelId: 'CSTALE' }, { model: 'gpt-3', maxImagesPerTurn: 2 }, 'U0ANA');
    const resolver = createChannelSettingsResolver({ db: handle.db, effective });
    const settings = await resolver.settingsFor('T1', 'CSTALE');
    expect(settings.model).toBe('gpt-4o-mini');
    expect(settings.maxImagesPerTurn).toBe(2);
    expect(settings.overridden).toEqual(['maxImagesPerTurn']);
  });
});
