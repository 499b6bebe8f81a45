import type { Db } from '../db/database';
import type { UsersTable } from '../db/schema';
import type { Selectable } from 'kysely';
import { secretMatches } from './secrets';
import { toUserResource, type UserResource } from './user-resource';

const UNKNOWN_KEY_HASH = '0'.repeat(64);
/** How long a user row read for `POST /auth` is reused. */
export const USER_CACHE_TTL_MS = 5_000;
/** Bound of the cache, so memory stays flat whatever the traffic. */
const USER_CACHE_LIMIT = 10_000;

type UserRow = Selectable<UsersTable>;

/**
 * Checks API keys and secrets. An unknown key, a wrong secret and a disabled user all give the same
 * `null`, so the answer reveals nothing about which keys exist.
 *
 * The user row of a key that authenticated is kept for {@link USER_CACHE_TTL_MS}: a merchant's servers
 * that all fetch tokens at once cost one database read, not one each. The secret is still compared
 * with the stored hash on every call, so a wrong secret is refused from the cache too. Colibri has no
 * API that changes a user row after creation; a row changed in the database directly (a user disabled
 * by an operator) is seen within the TTL, well inside the 5 minutes its already issued tokens live.
 * Unknown keys are never cached, so a key created by another process authenticates at once.
 */
export class Authenticator {
  private readonly users = new Map<string, { row: UserRow; expiresAt: number }>();

  constructor(private readonly db: Db, private readonly ttlMs = USER_CACHE_TTL_MS) {}

  /** @example const user = await authenticator.authenticate('ck_…', 'cs_…'); */
  async authenticate(apiKey: string, apiSecret: string, now = Date.now()): Promise<UserResource | null> {
    const row = await this.findUser(apiKey, now);
    // The secret is hashed and compared even for an unknown key, so timing does not tell keys apart.
    const matches = secretMatches(apiSecret, row?.api_secret_hash ?? UNKNOWN_KEY_HASH);
    if (!row || !matches || !row.enabled) return null;
    this.remember(apiKey, row, now);
    return toUserResource(row);
  }

  private async findUser(apiKey: string, now: number): Promise<UserRow | undefined> {
    const hit = this.users.get(apiKey);
    if (hit && hit.expiresAt > now) return hit.row;
    if (hit) this.users.delete(apiKey);
    return this.db.selectFrom('users').selectAll().where('api_key', '=', apiKey).executeTakeFirst();
  }

  private remember(apiKey: string, row: UserRow, now: number): void {
    if (this.users.has(apiKey)) return;
    if (this.users.size >= USER_CACHE_LIMIT) {
      // Map iteration follows insertion order: the first key is the oldest entry.
      const oldest = this.users.keys().next();
      if (!oldest.done) this.users.delete(oldest.value);
    }
    this.users.set(apiKey, { row, expiresAt: now + this.ttlMs });
  }
}
