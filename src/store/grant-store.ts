/**
 * People's grants on per-person MCP servers (README § Per-person sign-in), and what threadwise keeps per server:
 * its OAuth client registration, discovery results and last tool list. Every secret (tokens, a registered client's
 * secret) is sealed by the token cipher before it reaches a row and opened only here; nothing in this module logs.
 * Values sealed with TOKEN_ENCRYPTION_KEY_PREVIOUS are sealed again with the current key when read.
 */
import { and, eq, lt, or, sql } from 'drizzle-orm';
import type { Database } from './database';
import { oauthGrants, oauthServers, oauthSignIns } from './schema';
import { createSignIn, signInExpiredFor } from './sign-in-store';
import type { TokenCipher } from './token-cipher';

export interface PersonServerKey {
  teamId: string;
  userId: string;
  server: string;
}

export interface GrantSummary {
  teamId: string;
  userId: string;
  server: string;
  scope: string | null;
  connectedAt: Date;
  lastUsedAt: Date;
}

const grantContext = (key: PersonServerKey) => `grant\0${key.teamId}\0${key.userId}\0${key.server}`;
const clientContext = (server: string) => `client\0${server}`;

export function createGrantStore(db: Database, cipher: TokenCipher) {
  const whereGrant = (key: PersonServerKey) =>
    and(eq(oauthGrants.teamId, key.teamId), eq(oauthGrants.userId, key.userId), eq(oauthGrants.server, key.server));

  /** Opens a sealed JSON value; undefined (and the caller forgets it) when no configured key opens it. */
  const openJson = (sealed: string, keyId: string, context: string): { value: Record<string, unknown>; stale: boolean } | undefined => {
    try {
      const opened = cipher.open({ sealed, keyId }, context);
      return { value: JSON.parse(opened.plaintext) as Record<string, unknown>, stale: opened.stale };
    } catch {
      return undefined;
    }
  };

  const saveClient = async (server: string, information: Record<string, unknown>): Promise<void> => {
    const sealed = cipher.seal(JSON.stringify(information), clientContext(server));
    await db
      .insert(oauthServers)
      .values({ server, clientSealed: sealed.sealed, keyId: sealed.keyId })
      .onConflictDoUpdate({ target: oauthServers.server, set: { clientSealed: sealed.sealed, keyId: sealed.keyId, updatedAt: sql`now()` } });
  };

  return {
    /** The person's tokens for the server (access, refresh, expiry, issuer), or undefined when not connected. */
    async tokens(key: PersonServerKey): Promise<Record<string, unknown> | undefined> {
      const [row] = await db.select({ sealed: oauthGrants.tokensSealed, keyId: oauthGrants.keyId }).from(oauthGrants).where(whereGrant(key));
      if (!row) return undefined;
      const opened = openJson(row.sealed, row.keyId, grantContext(key));
      if (!opened) return undefined; // sealed by a key no longer configured: they connect again
      if (opened.stale) {
        const resealed = cipher.seal(JSON.stringify(opened.value), grantContext(key));
        await db.update(oauthGrants).set({ tokensSealed: resealed.sealed, keyId: resealed.keyId }).where(and(whereGrant(key), eq(oauthGrants.keyId, row.keyId)));
      }
      return opened.value;
    },

    async saveTokens(key: PersonServerKey, tokens: Record<string, unknown>): Promise<void> {
      const sealed = cipher.seal(JSON.stringify(tokens), grantContext(key));
      const scope = typeof tokens.scope === 'string' ? tokens.scope : null;
      await db
        .insert(oauthGrants)
        .values({ ...key, tokensSealed: sealed.sealed, keyId: sealed.keyId, scope })
        .onConflictDoUpdate({
          target: [oauthGrants.teamId, oauthGrants.userId, oauthGrants.server],
          set: { tokensSealed: sealed.sealed, keyId: sealed.keyId, scope: sql`coalesce(${scope}, ${oauthGrants.scope})`, updatedAt: sql`now()`, lastUsedAt: sql`now()` },
        });
    },

    async touch(key: PersonServerKey): Promise<void> {
      await db.update(oauthGrants).set({ lastUsedAt: sql`now()` }).where(whereGrant(key));
    },

    /** Disconnect: the grant goes (threadwise forgets the tokens; revoking them at the server is the person's). */
    async deleteGrant(key: PersonServerKey): Promise<boolean> {
      const deleted = await db.delete(oauthGrants).where(whereGrant(key)).returning({ server: oauthGrants.server });
      return deleted.length > 0;
    },

    /** App Home: the servers this person connected. No tokens. */
    async grantsOf(teamId: string, userId: string): Promise<GrantSummary[]> {
      return db.select(summaryColumns).from(oauthGrants).where(and(eq(oauthGrants.teamId, teamId), eq(oauthGrants.userId, userId))).orderBy(oauthGrants.server);
    },

    /** The admin view: who connected which server. No tokens. */
    async allGrants(teamId?: string): Promise<GrantSummary[]> {
      const query = db.select(summaryColumns).from(oauthGrants);
      return (teamId === undefined ? query : query.where(eq(oauthGrants.teamId, teamId))).orderBy(oauthGrants.server, oauthGrants.userId);
    },

    /** The server's OAuth client registration (dynamic registration's result), opened. */
    async client(server: string): Promise<Record<string, unknown> | undefined> {
      const [row] = await db.select({ sealed: oauthServers.clientSealed, keyId: oauthServers.keyId }).from(oauthServers).where(eq(oauthServers.server, server));
      if (!row?.sealed || !row.keyId) return undefined;
      const opened = openJson(row.sealed, row.keyId, clientContext(server));
      if (opened?.stale) await saveClient(server, opened.value);
      return opened?.value;
    },

    saveClient,

    async forgetClient(server: string): Promise<void> {
      await db.update(oauthServers).set({ clientSealed: null, keyId: null, updatedAt: sql`now()` }).where(eq(oauthServers.server, server));
    },

    /** What discovery found (protected-resource and authorization-server metadata): public, kept as JSON. */
    async discovery(server: string): Promise<Record<string, unknown> | undefined> {
      const [row] = await db.select({ discovery: oauthServers.discovery }).from(oauthServers).where(eq(oauthServers.server, server));
      return (row?.discovery as Record<string, unknown> | null | undefined) ?? undefined;
    },

    async saveDiscovery(server: string, discovery: Record<string, unknown> | null): Promise<void> {
      await db
        .insert(oauthServers)
        .values({ server, discovery })
        .onConflictDoUpdate({ target: oauthServers.server, set: { discovery, updatedAt: sql`now()` } });
    },

    /** The server's tools as last listed by whoever connected; undefined before anyone did. */
    async cachedTools(server: string): Promise<unknown[] | undefined> {
      const [row] = await db.select({ tools: oauthServers.tools }).from(oauthServers).where(eq(oauthServers.server, server));
      return row?.tools ?? undefined;
    },

    async saveTools(server: string, tools: unknown[]): Promise<void> {
      await db
        .insert(oauthServers)
        .values({ server, tools, toolsListedAt: sql`now()` })
        .onConflictDoUpdate({ target: oauthServers.server, set: { tools, toolsListedAt: sql`now()`, updatedAt: sql`now()` } });
    },
  };
}

const summaryColumns = {
  teamId: oauthGrants.teamId,
  userId: oauthGrants.userId,
  server: oauthGrants.server,
  scope: oauthGrants.scope,
  connectedAt: oauthGrants.connectedAt,
  lastUsedAt: oauthGrants.lastUsedAt,
};

/**
 * The person left the workspace (Slack's user_change with deleted: true, or an admin's request): every grant and
 * sign-in of theirs goes. Runs parked for their sign-in stay parked until their sign-in expires.
 */
export async function forgetPersonGrants(db: Database, teamId: string, userId: string): Promise<{ grants: number; signIns: number }> {
  return db.transaction(async (tx) => {
    const grants = await tx.delete(oauthGrants).where(and(eq(oauthGrants.teamId, teamId), eq(oauthGrants.userId, userId))).returning({ server: oauthGrants.server });
    const signIns = await tx
      .update(oauthSignIns)
      .set({ status: 'expired', expiresAt: sql`now()` })
      .where(and(eq(oauthSignIns.teamId, teamId), eq(oauthSignIns.userId, userId), eq(oauthSignIns.status, 'pending')))
      .returning({ id: oauthSignIns.id });
    return { grants: grants.length, signIns: signIns.length };
  });
}

/**
 * Retention (RETENTION_DAYS): grants nobody used or refreshed for `days` days go (their person connects again when
 * next needed), and so do finished sign-in records older than a day. 0 days: grants are kept.
 */
export async function sweepGrants(db: Database, days: number): Promise<{ grants: number; signIns: number }> {
  const grants =
    days > 0
      ? await db.delete(oauthGrants).where(lt(oauthGrants.lastUsedAt, sql`now() - make_interval(days => ${days})`)).returning({ server: oauthGrants.server })
      : [];
  const signIns = await db
    .delete(oauthSignIns)
    .where(and(lt(oauthSignIns.expiresAt, sql`now() - interval '1 day'`), or(eq(oauthSignIns.status, 'done'), eq(oauthSignIns.status, 'expired'), eq(oauthSignIns.status, 'superseded'))))
    .returning({ id: oauthSignIns.id });
  return { grants: grants.length, signIns: signIns.length };
}

/**
 * Everything mcp/oauth/ needs from the database (its OAuthStore port, matched by shape): the grant store plus the
 * start of a sign-in and the check for one that expired in this run.
 */
export function createOAuthStore(db: Database, cipher: TokenCipher) {
  return {
    ...createGrantStore(db, cipher),
    startSignIn: (request: PersonServerKey & { state: string; codeVerifier: string }) => createSignIn(db, cipher, request),
    signInExpired: (runId: number, key: PersonServerKey) => signInExpiredFor(db, runId, key),
  };
}
