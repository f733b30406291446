/**
 * People's grants at rest: sealed with AES-256-GCM (a fresh IV each write, bound to the row), readable after a key
 * rotation and re-sealed with the new key on read, gone when the person leaves or the grant is unused past
 * retention — and never on disk in the clear: the embedded database's data directory is scanned for the raw tokens.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../../src/app/database/open-database';
import type { Database, DatabaseHandle } from '../../src/store/database';
import { createGrantStore, createOAuthStore, forgetPersonGrants, sweepGrants } from '../../src/store/grant-store';
import { consumeSignIn, createSignIn } from '../../src/store/sign-in-store';
import { createTokenCipher, keyIdOf } from '../../src/store/token-cipher';
import { testDatabases } from '../support/databases';

const OLD_KEY = randomBytes(32);
const NEW_KEY = randomBytes(32);
const ana = { teamId: 'T1', userId: 'U0ANA', server: 'jira' };
const ben = { teamId: 'T1', userId: 'U0BEN', server: 'jira' };
const tokensOf = (user: string) => ({ access_token: `at-${user}-${randomBytes(10).toString('hex')}`, refresh_token: `rt-${user}-${randomBytes(10).toString('hex')}`, token_type: 'Bearer', expires_in: 3600, issuer: 'https://as.example' });

describe('the token cipher', () => {
  it('seals with a fresh IV each time, opens only in its own row, and names its key', () => {
    const cipher = createTokenCipher({ current: NEW_KEY });
    const a = cipher.seal('secret', 'grant\0T1\0U0ANA\0jira');
    const b = cipher.seal('secret', 'grant\0T1\0U0ANA\0jira');
    expect(a.sealed).not.toBe(b.sealed);
    expect(a.keyId).toBe(keyIdOf(NEW_KEY));
    expect(cipher.open(a, 'grant\0T1\0U0ANA\0jira')).toEqual({ plaintext: 'secret', stale: false });
    // Copied into Ben's row, Ana's ciphertext does not open.
    expect(() => cipher.open(a, 'grant\0T1\0U0BEN\0jira')).toThrow();
    // A key nobody configured any more: refused by name.
    expect(() => createTokenCipher({ current: randomBytes(32) }).open(a, 'grant\0T1\0U0ANA\0jira')).toThrow(/neither TOKEN_ENCRYPTION_KEY nor TOKEN_ENCRYPTION_KEY_PREVIOUS/);
  });
});

const dataDir = await mkdtemp(join(tmpdir(), 'threadwise-grants-'));
const databases = [
  { label: 'pglite on disk', open: () => openDatabase({ driver: 'pglite', dataDir }), onDisk: true },
  ...testDatabases()
    .filter((database) => database.label === 'postgres')
    .map((database) => ({ ...database, onDisk: false })),
];
afterAll(() => rm(dataDir, { recursive: true, force: true }));

for (const database of databases) {
  describe(`grant store (${database.label})`, () => {
    let handle: DatabaseHandle;
    let db: Database;
    const written: string[] = [];
    beforeAll(async () => {
      handle = await database.open();
      db = handle.db;
    }, 120_000);
    afterAll(async () => {
      if (handle) await handle.close().catch(() => {});
    });

    it('keeps only ciphertext, reads it after a key rotation and re-seals it with the new key', async () => {
      const before = createGrantStore(db, createTokenCipher({ current: OLD_KEY }));
      const tokens = tokensOf('ana');
      written.push(tokens.access_token, tokens.refresh_token);
      await before.saveTokens(ana, tokens);
      await before.saveClient('jira', { client_id: 'c1', client_secret: 'dcr-client-secret-xyz', redirect_uris: ['https://b/oauth/callback'] });
      written.push('dcr-client-secret-xyz');
      const [row] = await db.execute(sql`select tokens_sealed, key_id from oauth_grants where user_id = 'U0ANA'`).then((r) => (r as { rows?: unknown[] }).rows ?? (r as unknown as unknown[]));
      expect((row as { key_id: string }).key_id).toBe(keyIdOf(OLD_KEY));
      expect(JSON.stringify(row)).not.toContain(tokens.access_token);

      // Rotation: TOKEN_ENCRYPTION_KEY = new, TOKEN_ENCRYPTION_KEY_PREVIOUS = old.
      const rotated = createGrantStore(db, createTokenCipher({ current: NEW_KEY, previous: OLD_KEY }));
      expect(await rotated.tokens(ana)).toEqual(tokens);
      expect((await rotated.client('jira'))?.client_secret).toBe('dcr-client-secret-xyz');
      const keys = await db.execute(sql`select key_id from oauth_grants where user_id = 'U0ANA' union all select key_id from oauth_servers where server = 'jira'`);
      expect(((keys as { rows?: Array<{ key_id: string }> }).rows ?? (keys as unknown as Array<{ key_id: string }>)).map((r) => r.key_id)).toEqual([keyIdOf(NEW_KEY), keyIdOf(NEW_KEY)]);
      // The old key can go now: the new one alone reads everything.
      expect(await createGrantStore(db, createTokenCipher({ current: NEW_KEY })).tokens(ana)).toEqual(tokens);
      // Without either key the grant reads as not connected (they connect again), never as garbage.
      expect(await createGrantStore(db, createTokenCipher({ current: randomBytes(32) })).tokens(ana)).toBeUndefined();
    });

    it('lists people\u2019s connections without tokens, and forgets a person who left and grants unused past retention', async () => {
      const store = createOAuthStore(db, createTokenCipher({ current: NEW_KEY }));
      const benTokens = tokensOf('ben');
      written.push(benTokens.access_token, benTokens.refresh_token);
      await store.saveTokens(ben, benTokens);
      await store.saveTokens({ ...ben, server: 'github' }, tokensOf('ben2'));
      await store.startSignIn({ ...ben, state: 'state-of-ben', codeVerifier: 'verifier-of-ben-0123456789-0123456789-abcd' });
      written.push('verifier-of-ben-0123456789-0123456789-abcd');
      const all = await store.allGrants('T1');
      expect(all.map((grant) => `${grant.userId}/${grant.server}`)).toEqual(['U0BEN/github', 'U0ANA/jira', 'U0BEN/jira']);
      expect(JSON.stringify(all)).not.toMatch(/at-|rt-/);
      expect((await store.grantsOf('T1', 'U0BEN')).map((grant) => grant.server)).toEqual(['github', 'jira']);

      expect(await forgetPersonGrants(db, 'T1', 'U0BEN')).toEqual({ grants: 2, signIns: 1 });
      expect(await store.grantsOf('T1', 'U0BEN')).toEqual([]);
      expect(await consumeSignIn(db, createTokenCipher({ current: NEW_KEY }), 'state-of-ben')).toEqual({ ok: false, reason: 'expired' });

      await db.execute(sql`update oauth_grants set last_used_at = now() - interval '100 days' where user_id = 'U0ANA'`);
      expect((await sweepGrants(db, 90)).grants).toBe(1);
      expect(await store.allGrants('T1')).toEqual([]);
    });

    it('keeps a sign-in\u2019s verifier sealed and its state only as a hash; the state works once', async () => {
      const cipher = createTokenCipher({ current: NEW_KEY });
      await createSignIn(db, cipher, { ...ana, state: 'the-raw-state-value-123', codeVerifier: 'the-raw-verifier-value-0123456789-0123456789' });
      written.push('the-raw-state-value-123', 'the-raw-verifier-value-0123456789-0123456789');
      const rows = await db.execute(sql`select * from oauth_sign_ins`);
      const text = JSON.stringify((rows as { rows?: unknown[] }).rows ?? rows);
      expect(text).not.toContain('the-raw-state-value-123');
      expect(text).not.toContain('the-raw-verifier-value');
      const first = await consumeSignIn(db, cipher, 'the-raw-state-value-123');
      expect(first).toMatchObject({ ok: true, codeVerifier: 'the-raw-verifier-value-0123456789-0123456789', signIn: { userId: 'U0ANA', server: 'jira' } });
      expect(await consumeSignIn(db, cipher, 'the-raw-state-value-123')).toEqual({ ok: false, reason: 'used' });
    });

    if (database.onDisk) {
      it('leaves no raw token, secret, state or verifier in any file of the data directory', async () => {
        await db.execute(sql`checkpoint`);
        await handle.close();
        const files = await listFiles(dataDir);
        expect(files.length).toBeGreaterThan(10);
        const needles = written.map((text) => Buffer.from(text, 'utf8'));
        for (const file of files) {
          const bytes = await readFile(file);
          for (const needle of needles) expect(bytes.includes(needle), `${needle.toString()} in ${file}`).toBe(false);
        }
      });
    }
  });
}

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir)) {
    const path = join(dir, entry);
    if ((await stat(path)).isDirectory()) out.push(...(await listFiles(path)));
    else out.push(path);
  }
  return out;
}
