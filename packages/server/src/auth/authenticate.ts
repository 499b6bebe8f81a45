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

type UserRow = Selectable<UsersTable> & { merchant_enabled: boolean };

/**
 * Checks API keys and secrets. An unknown key, a wrong secret, a disabled user and a user of a
 * disabled merchant all give the same `null`, so the answer reveals nothing about which keys exist.
 * After a rotation (`POST /auth/secret/rotate`) the previous secret keeps working until its grace
 * period ends.
 *
 * The user row of a key that authenticated is kept for {@link USER_CACHE_TTL_MS}: a merchant's servers
 * that all fetch tokens at once cost one database read, not one each. The secret is still compared
 * with the stored hash on every call, so a wrong secret is refused from the cache too; a secret that
 * does not match the cached row is checked once more against a fresh read, so a secret rotated by
 * another process works at once. A disabled user or merchant is seen within the TTL (tokens already
 * issued are refused by auth/access-list.ts). Unknown keys are never cached, so a key created by
 * another process authenticates at once.
 */
/**
 * Whether a secret is the row's current one, or its previous one within the grace period. Both hashes
 * are compared every time (an unknown key against a placeholder), so timing tells nothing apart.
 */
function secretOf(row: UserRow | undefined, apiSecret: string, now: number): boolean {
  const current = secretMatches(apiSecret, row?.api_secret_hash ?? UNKNOWN_KEY_HASH);
  const previous = secretMatches(apiSecret, row?.previous_api_secret_hash ?? UNKNOWN_KEY_HASH);
  const expiresAt = row?.previous_api_secret_expires_at;
  const graceOpen = expiresAt instanceof Date && expiresAt.getTime() > now;
  return row !== undefined && (current || (previous && graceOpen));
}

export class Authenticator {
  private readonly users = new Map<string, { row: UserRow; expiresAt: number }>();

  constructor(private readonly db: Db, private readonly ttlMs = USER_CACHE_TTL_MS) {}

  /** @example const user = await authenticator.authenticate('ck_…', 'cs_…'); */
  async authenticate(apiKey: string, apiSecret: string, now = Date.now()): Promise<UserResource | null> {
    const cached = this.cachedUser(apiKey, now);
    let row = cached ?? (await this.readUser(apiKey));
    let matches = secretOf(row, apiSecret, now);
    if (cached && !matches) {
      this.users.delete(apiKey);
      row = await this.readUser(apiKey);
      matches = secretOf(row, apiSecret, now);
    }
    if (!row || !matches || !row.enabled || !row.merchant_enabled) return null;
    this.remember(apiKey, row, now);
    return toUserResource(row);
  }

  /** Drops a key's cached row (after this process changed it). @example authenticator.forget(apiKey) */
  forget(apiKey: string): void {
    this.users.delete(apiKey);
  }

  private cachedUser(apiKey: string, now: number): UserRow | undefined {
    const hit = this.users.get(apiKey);
    if (hit && hit.expiresAt > now) return hit.row;
    if (hit) this.users.delete(apiKey);
    return undefined;
  }

  private readUser(apiKey: string): Promise<UserRow | undefined> {
    return this.db
      .selectFrom('users')
      .innerJoin('merchants', 'merchants.id', 'users.merchant_id')
      .selectAll('users')
      .select('merchants.enabled as merchant_enabled')
      .where('users.api_key', '=', apiKey)
      .executeTakeFirst();
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
