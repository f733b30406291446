/**
 * The shipped embedded-database template (drizzle/pglite-template.tar.gz) matches drizzle/ and the installed PGlite:
 * when a migration is added or PGlite upgraded, this fails until `npm run db:template` is run. A fresh DATA_DIR
 * made from it opens, has every migration applied, and takes rows.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/app/database/open-database';
import { installedPgliteVersion, readTemplateManifest, templateUsable } from '../../../src/app/database/pglite-template';

const migrationsFolder = fileURLToPath(new URL('../../../drizzle', import.meta.url));
const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

describe('the embedded database template', { timeout: 120_000 }, () => {
  it("lists drizzle/'s migrations and the installed PGlite (else: npm run db:template)", () => {
    const manifest = readTemplateManifest();
    const journal = JSON.parse(readFileSync(path.join(migrationsFolder, 'meta/_journal.json'), 'utf8')) as { entries: Array<{ tag: string }> };
    const hashes = readMigrationFiles({ migrationsFolder }).map((migration) => migration.hash);
    expect(manifest?.migrations, 'the template is older than drizzle/: run npm run db:template').toEqual(journal.entries.map((entry, index) => ({ tag: entry.tag, hash: hashes[index] })));
    expect(manifest?.pglite, 'the template was made by another PGlite: run npm run db:template').toBe(installedPgliteVersion());
    expect(templateUsable()).toBe(true);
  });

  it('a fresh DATA_DIR made from it has every migration applied, as drizzle recorded them, and takes rows', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'threadwise-template-'));
    dirs.push(dataDir);
    const said: string[] = [];
    const database = await openDatabase({ driver: 'pglite', dataDir }, (sentence) => said.push(sentence));
    try {
      expect(said).toEqual([`creating the embedded database in ${dataDir} (first start, ~1 s)…`]);
      const applied = await database.db.execute(sql`select hash from drizzle.__drizzle_migrations order by created_at`);
      const rows = ((applied as { rows?: Array<{ hash: string }> }).rows ?? (applied as unknown as Array<{ hash: string }>)).map((row) => row.hash);
      expect(rows).toEqual(readMigrationFiles({ migrationsFolder }).map((migration) => migration.hash));
      await database.db.execute(sql`insert into channel_settings (team_id, channel_id, settings, updated_by) values ('T1', 'C1', '{}'::jsonb, 'U1')`);
    } finally {
      await database.close();
    }
    const reopened = await openDatabase({ driver: 'pglite', dataDir }, (sentence) => said.push(sentence));
    try {
      expect(said.at(-1)).toBe(`opening the embedded database in ${dataDir}…`);
      const count = await reopened.db.execute(sql`select count(*)::int as n from channel_settings`);
      expect(((count as { rows?: Array<{ n: number }> }).rows ?? (count as unknown as Array<{ n: number }>))[0]!.n).toBe(1);
    } finally {
      await reopened.close();
    }
  });
});
