import { sql } from 'kysely';
import type { Db } from '../db/database';
import { hashSecret, newApiSecret } from './secrets';

/** The answer of a rotation: the new secret is shown here only. */
export interface RotatedSecret {
  api_key: string;
  api_secret: string;
  previous_secret_expires_at: string;
}

/**
 * Replaces a user's API secret. The current hash becomes the previous one, valid for `graceSeconds`
 * more, so a merchant can deploy the new secret to its servers while the old one still works; the
 * secret before that stops working at once. One statement, so two concurrent rotations each keep a
 * consistent pair.
 * @example const { api_secret } = await rotateApiSecret(db, userId, 86_400);
 */
export async function rotateApiSecret(db: Db, userId: string, graceSeconds: number): Promise<RotatedSecret> {
  const apiSecret = newApiSecret();
  const { rows } = await sql<{ api_key: string; previous_api_secret_expires_at: Date }>`
    update users
    set previous_api_secret_hash = api_secret_hash,
        previous_api_secret_expires_at = now() + ${`${graceSeconds} seconds`}::interval,
        api_secret_hash = ${hashSecret(apiSecret)}
    where id = ${userId}
    returning api_key, previous_api_secret_expires_at`.execute(db);
  const row = rows[0];
  if (!row) throw new Error(`invariant: the authenticated user ${userId} exists`);
  return { api_key: row.api_key, api_secret: apiSecret, previous_secret_expires_at: row.previous_api_secret_expires_at.toISOString() };
}
