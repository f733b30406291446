/**
 * `npm run db:template`: makes drizzle/pglite-template.tar.gz, the embedded database a fresh DATA_DIR starts from
 * (pglite-template.ts), and its manifest. Run it after adding a migration (`npm run db:generate`) or upgrading
 * PGlite; test/app/database/pglite-template.test.ts says when it is due.
 *
 * The database is created by the installed PGlite with the options the bot opens it with, migrated with drizzle/,
 * closed cleanly, and its folder packed: sorted, without times or owners.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { pgliteStartParams } from './pglite-options.mjs';
import { installedPgliteVersion, TEMPLATE_FILE, TEMPLATE_MANIFEST, writeTar, type TemplateManifest } from './pglite-template';

const migrationsFolder = fileURLToPath(new URL('../../../drizzle', import.meta.url));
const work = mkdtempSync(path.join(tmpdir(), 'threadwise-template-'));
try {
  const started = performance.now();
  const database = await PGlite.create(work, { startParams: pgliteStartParams });
  await migrate(drizzle(database), { migrationsFolder });
  await database.exec('CHECKPOINT');
  await database.close();

  const entries: Parameters<typeof writeTar>[0] = [];
  const walk = (relative: string) => {
    for (const name of readdirSync(path.join(work, relative)).sort()) {
      const inside = relative ? `${relative}/${name}` : name;
      // The pid file of a database that was open: never part of a copy.
      if (inside === 'postmaster.pid') continue;
      const full = path.join(work, inside);
      if (statSync(full).isDirectory()) {
        entries.push({ name: inside, type: 'directory', data: Buffer.alloc(0) });
        walk(inside);
      } else {
        entries.push({ name: inside, type: 'file', data: readFileSync(full) });
      }
    }
  };
  walk('');
  const packed = gzipSync(writeTar(entries), { level: 9 });
  writeFileSync(TEMPLATE_FILE, packed);
  const migrations = readMigrationFiles({ migrationsFolder });
  const journal = JSON.parse(readFileSync(path.join(migrationsFolder, 'meta/_journal.json'), 'utf8')) as { entries: Array<{ tag: string }> };
  const manifest: TemplateManifest = {
    pglite: installedPgliteVersion(),
    migrations: journal.entries.map((entry, index) => ({ tag: entry.tag, hash: migrations[index]!.hash })),
  };
  writeFileSync(TEMPLATE_MANIFEST, `${JSON.stringify(manifest, null, 2)}\n`);
  process.stderr.write(
    `wrote ${path.relative(process.cwd(), TEMPLATE_FILE)} (${(packed.length / 1024 / 1024).toFixed(1)} MB, ${entries.length} entries, PGlite ${manifest.pglite}, ${manifest.migrations.length} migrations) in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
