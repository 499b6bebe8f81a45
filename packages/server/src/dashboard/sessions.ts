import { createHash, createHmac, randomBytes } from 'node:crypto';
import { constantTimeEqual } from '../auth/secrets';
import type { Principal } from '../auth/tokens';
import type { Db } from '../db/database';

/** A session ends after this long without a request. */
export const SESSION_IDLE_MS = 30 * 60_000;
/** And after this long in any case, however busy. */
export const SESSION_ABSOLUTE_MS = 12 * 3_600_000;
/** The cookie's name; the `__Host-` prefix is used only over HTTPS, where browsers enforce it. */
export const SESSION_COOKIE = 'colibri_dashboard';

export interface DashboardSession extends Principal {
  readonly expiresAt: Date;
  readonly csrfToken: string;
}

function hashOf(sessionId: string): string {
  return createHash('sha256').update(sessionId).digest('hex');
}

/**
 * The session's CSRF token: an HMAC of the session id, so it needs no storage and is useless without
 * the cookie it belongs to (a page of another site can neither read the cookie nor compute this).
 */
export function csrfTokenOf(sessionId: string): string {
  return createHmac('sha256', sessionId).update('colibri dashboard csrf').digest('base64url');
}

/**
 * Opens a session for a user that has just proved its API key and secret. Expired sessions of every
 * merchant are removed at the same time, so the table holds only live ones without a sweeper job.
 * @example const { sessionId, session } = await openSession(db, { userId, merchantId });
 */
export async function openSession(db: Db, principal: Principal, now = new Date()): Promise<{ sessionId: string; session: DashboardSession }> {
  const sessionId = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + SESSION_IDLE_MS);
  await db.deleteFrom('dashboard_sessions').where('expires_at', '<=', now).execute();
  await db
    .insertInto('dashboard_sessions')
    .values({ id_hash: hashOf(sessionId), merchant_id: principal.merchantId, user_id: principal.userId, created_at: now, last_seen_at: now, expires_at: expiresAt })
    .execute();
  return { sessionId, session: { ...principal, expiresAt, csrfToken: csrfTokenOf(sessionId) } };
}

/**
 * The live session of a cookie value, its idle limit moved forward; `null` for an unknown, expired or
 * signed-out session, or one whose user has been disabled since.
 * @example const session = await resumeSession(db, request.cookies.colibri_dashboard);
 */
export async function resumeSession(db: Db, sessionId: string | undefined, now = new Date()): Promise<DashboardSession | null> {
  if (!sessionId || sessionId.length > 100) return null;
  const row = await db
    .selectFrom('dashboard_sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select(['s.id_hash', 's.merchant_id', 's.user_id', 's.created_at', 's.expires_at', 'u.enabled'])
    .where('s.id_hash', '=', hashOf(sessionId))
    .executeTakeFirst();
  if (!row || !row.enabled || row.expires_at.getTime() <= now.getTime()) return null;
  const absoluteEnd = row.created_at.getTime() + SESSION_ABSOLUTE_MS;
  const expiresAt = new Date(Math.min(now.getTime() + SESSION_IDLE_MS, absoluteEnd));
  // Writing on every request would cost a write per page view; a minute of slack costs nothing.
  if (expiresAt.getTime() - row.expires_at.getTime() > 60_000) {
    await db.updateTable('dashboard_sessions').set({ last_seen_at: now, expires_at: expiresAt }).where('id_hash', '=', row.id_hash).execute();
  }
  return { userId: row.user_id, merchantId: row.merchant_id, expiresAt: new Date(Math.max(expiresAt.getTime(), row.expires_at.getTime())), csrfToken: csrfTokenOf(sessionId) };
}

/** Signs a session out: its row is deleted, so the cookie no longer opens anything. */
export async function closeSession(db: Db, sessionId: string | undefined): Promise<void> {
  if (!sessionId) return;
  await db.deleteFrom('dashboard_sessions').where('id_hash', '=', hashOf(sessionId)).execute();
}

/** Whether a request's `X-CSRF-Token` header is this session's token. */
export function csrfMatches(session: DashboardSession, header: unknown): boolean {
  return typeof header === 'string' && constantTimeEqual(header, session.csrfToken);
}
