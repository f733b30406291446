/**
 * Sign-ins in progress, durably — the same shape as approvals (approval-store.ts): a run parks (status
 * waiting_approval: it waits for a person; no lease; its turn saved) bound to one sign-in request per waiting call;
 * the OAuth callback, on whichever replica Slack's person lands, completes the request once (a conditional update
 * on its single-use state) and makes the run resumable when nothing else is pending, so exactly one worker claims
 * it (claimNextRun). The state is kept only as its SHA-256; the PKCE verifier sealed.
 */
import { createHash } from 'node:crypto';
import { and, eq, inArray, isNull, lt, sql } from 'drizzle-orm';
import type { Database } from './database';
import { makeResumable, markRunParked, type RunCostsSoFar } from './park-run';
import { approvals, oauthSignIns } from './schema';
import type { TokenCipher } from './token-cipher';

export type SignInRow = typeof oauthSignIns.$inferSelect;

/** How long a sign-in link works: DESIGN.md § Per-person sign-in. */
const SIGN_IN_TTL_MS = 10 * 60_000;

function hashState(state: string): string {
  return createHash('sha256').update(state, 'utf8').digest('hex');
}

const verifierContext = (stateHash: string) => `verifier\0${stateHash}`;

export interface NewSignIn {
  teamId: string;
  userId: string;
  server: string;
  state: string;
  codeVerifier: string;
  ttlMs?: number;
}

export async function createSignIn(db: Database, cipher: TokenCipher, request: NewSignIn): Promise<{ id: number; expiresAt: Date }> {
  const stateHash = hashState(request.state);
  const sealed = cipher.seal(request.codeVerifier, verifierContext(stateHash));
  const [row] = await db
    .insert(oauthSignIns)
    .values({
      stateHash,
      teamId: request.teamId,
      userId: request.userId,
      server: request.server,
      verifierSealed: sealed.sealed,
      keyId: sealed.keyId,
      expiresAt: sql`now() + make_interval(secs => ${(request.ttlMs ?? SIGN_IN_TTL_MS) / 1000})`,
    })
    .returning({ id: oauthSignIns.id, expiresAt: oauthSignIns.expiresAt });
  return row!;
}

export interface SignInParkRequest {
  runId: number;
  owner: string;
  turn: unknown;
  /** The sign-in requests the run waits for, each with the call that waits on it. */
  requests: Array<{ requestId: number; callId: string }>;
  costs: RunCostsSoFar;
  /** The servers the person must sign in to: the run's current step for the console ("waiting for sign-in to jira"). */
  servers?: string[];
}

/**
 * Parks a run this owner holds until its sign-ins are done. False when the lease was lost meanwhile. An approved
 * call that waits for a sign-in gets its execution claim back: it never reached the server (a refused 401, or no
 * request at all), so after the sign-in it runs — once.
 */
export async function parkRunForSignIn(db: Database, request: SignInParkRequest): Promise<boolean> {
  return db.transaction(async (tx) => {
    const parked = await markRunParked(tx, {
      runId: request.runId,
      owner: request.owner,
      turn: request.turn,
      costs: request.costs,
      currentStep: request.servers?.length ? { kind: 'sign_in', names: request.servers } : null,
    });
    if (!parked) return false;
    for (const { requestId, callId } of request.requests) {
      await tx
        .update(oauthSignIns)
        .set({ runId: request.runId, callId })
        .where(and(eq(oauthSignIns.id, requestId), isNull(oauthSignIns.runId), eq(oauthSignIns.status, 'pending')));
    }
    const callIds = request.requests.map((r) => r.callId);
    if (callIds.length > 0) {
      await tx
        .update(approvals)
        .set({ executedAt: null })
        .where(and(eq(approvals.runId, request.runId), inArray(approvals.callId, callIds), eq(approvals.status, 'approved')));
    }
    // A run that parked for requests that ended meanwhile (expired, or the person finished in another tab) is not
    // left waiting for nothing.
    await makeResumable(tx as unknown as Database, [request.runId]);
    return true;
  });
}

export type ConsumedSignIn =
  | { ok: true; signIn: SignInRow; codeVerifier: string }
  | { ok: false; reason: 'unknown' | 'used' | 'expired' };

/**
 * Uses a state once: of two callbacks with it (a replay, a double click, two replicas) exactly one gets `ok`. A
 * state nobody issued, one used before and one past its expiry are refused, saying which.
 */
export async function consumeSignIn(db: Database, cipher: TokenCipher, state: string): Promise<ConsumedSignIn> {
  const stateHash = hashState(state);
  const [won] = await db
    .update(oauthSignIns)
    .set({ status: 'done', usedAt: sql`clock_timestamp()` })
    .where(and(eq(oauthSignIns.stateHash, stateHash), eq(oauthSignIns.status, 'pending'), sql`${oauthSignIns.expiresAt} > now()`))
    .returning();
  if (!won) {
    const [row] = await db.select().from(oauthSignIns).where(eq(oauthSignIns.stateHash, stateHash));
    if (!row) return { ok: false, reason: 'unknown' };
    return { ok: false, reason: row.usedAt ? 'used' : row.status === 'pending' || row.status === 'expired' ? 'expired' : 'used' };
  }
  try {
    const { plaintext } = cipher.open({ sealed: won.verifierSealed, keyId: won.keyId }, verifierContext(stateHash));
    return { ok: true, signIn: won, codeVerifier: plaintext };
  } catch {
    return { ok: false, reason: 'expired' }; // sealed by a key no longer configured: as good as expired
  }
}

/**
 * The person is connected now: the run's other requests for the same server (the model asked twice) are done too,
 * and the run becomes resumable once it waits for nothing. Returns whether this call made it resumable.
 */
export async function completeSignIn(db: Database, signIn: Pick<SignInRow, 'runId' | 'teamId' | 'userId' | 'server'>): Promise<boolean> {
  if (signIn.runId === null) return false;
  const runId = signIn.runId;
  return db.transaction(async (tx) => {
    await tx
      .update(oauthSignIns)
      .set({ status: 'superseded' })
      .where(
        and(
          eq(oauthSignIns.runId, runId),
          eq(oauthSignIns.teamId, signIn.teamId),
          eq(oauthSignIns.userId, signIn.userId),
          eq(oauthSignIns.server, signIn.server),
          eq(oauthSignIns.status, 'pending'),
        ),
      );
    return (await makeResumable(tx as unknown as Database, [runId])).includes(runId);
  });
}

/** Sign-ins nobody finished in time: expired, and their runs resumable (the call then says so). Safe on every replica. */
export async function expireSignIns(db: Database): Promise<SignInRow[]> {
  return db.transaction(async (tx) => {
    const expired = await tx
      .update(oauthSignIns)
      .set({ status: 'expired' })
      .where(and(eq(oauthSignIns.status, 'pending'), lt(oauthSignIns.expiresAt, sql`now()`)))
      .returning();
    const runIds = [...new Set(expired.flatMap((row) => (row.runId === null ? [] : [row.runId])))];
    if (runIds.length > 0) await makeResumable(tx as unknown as Database, runIds);
    return expired;
  });
}

/**
 * The person declined at the server (the callback came back with an error): the state is used up like an expired
 * one, and the run carries on without the call. Undefined for a state that is not pending (unknown, used, expired).
 */
export async function declineSignIn(db: Database, state: string): Promise<{ signIn: SignInRow; runResumable: boolean } | undefined> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(oauthSignIns)
      .set({ status: 'expired', usedAt: sql`clock_timestamp()` })
      .where(and(eq(oauthSignIns.stateHash, hashState(state)), eq(oauthSignIns.status, 'pending'), sql`${oauthSignIns.expiresAt} > now()`))
      .returning();
    if (!row) return undefined;
    const resumable = row.runId === null ? [] : await makeResumable(tx as unknown as Database, [row.runId]);
    return { signIn: row, runResumable: row.runId !== null && resumable.includes(row.runId) };
  });
}

/** The sign-ins a run waited for that are done: for its record when it carries on. */
export async function completedSignInsOf(db: Database, runId: number): Promise<Array<{ callId: string; server: string; userId: string; at: Date }>> {
  const rows = await db
    .select()
    .from(oauthSignIns)
    .where(and(eq(oauthSignIns.runId, runId), eq(oauthSignIns.status, 'done')));
  return rows.flatMap((row) => (row.callId ? [{ callId: row.callId, server: row.server, userId: row.userId, at: row.usedAt ?? row.createdAt }] : []));
}

/** Whether this run already asked this person to connect this server and the link expired unused. */
export async function signInExpiredFor(db: Database, runId: number, key: { teamId: string; userId: string; server: string }): Promise<boolean> {
  const [row] = await db
    .select({ id: oauthSignIns.id })
    .from(oauthSignIns)
    .where(
      and(
        eq(oauthSignIns.runId, runId),
        eq(oauthSignIns.teamId, key.teamId),
        eq(oauthSignIns.userId, key.userId),
        eq(oauthSignIns.server, key.server),
        eq(oauthSignIns.status, 'expired'),
      ),
    )
    .limit(1);
  return row !== undefined;
}

