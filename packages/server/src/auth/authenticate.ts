import type { Db } from '../db/database';
import { secretMatches } from './secrets';
import { toUserResource, type UserResource } from './user-resource';

const UNKNOWN_KEY_HASH = '0'.repeat(64);

/**
 * Checks an API key and secret. An unknown key, a wrong secret and a disabled user all give the same
 * `null`, so the answer reveals nothing about which keys exist.
 * @example const user = await authenticate(db, 'ck_…', 'cs_…');
 */
export async function authenticate(db: Db, apiKey: string, apiSecret: string): Promise<UserResource | null> {
  const row = await db.selectFrom('users').selectAll().where('api_key', '=', apiKey).executeTakeFirst();
  // The secret is hashed and compared even for an unknown key, so timing does not tell keys apart.
  const matches = secretMatches(apiSecret, row?.api_secret_hash ?? UNKNOWN_KEY_HASH);
  if (!row || !matches || !row.enabled) return null;
  return toUserResource(row);
}
